"""Schemathesis against the service's own OpenAPI schema, in-process (ASGI, no network).

Every operation, without and with the write token, with schema-valid (positive) and
schema-violating (negative) requests, then the stateful links (upload a document, fetch it,
delete it; compute a comparison, fetch it): no server error, and every answer as the schema
declares it (status, media type, headers, body). The checks left out, and why:
``positive_data_acceptance`` (a schema-valid string body is not a valid YAML audit: the
schema cannot say which texts our loaders read) and ``negative_data_rejection`` (a query
parameter we ignore, such as an unknown one, is no error in our API).
``ST_MAX_EXAMPLES`` sets the examples per operation and mode (default 12; the survey
analysis and its charts, a second of statistics or rendering each, get a quarter).
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import pytest
import schemathesis  # a test dependency (pyproject's test extra): missing is a failure
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store

pytestmark = pytest.mark.slow  # every operation, generated cases

TOKEN = "schemathesis-token"
MAX = int(os.environ.get("ST_MAX_EXAMPLES", "12"))
#: operations that compute for a second or more per call get fewer examples
EXPENSIVE = {"GET /measures/survey", "GET /measures/survey/charts/{name}"}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory, demo_store_copy):
    path = demo_store_copy(tmp_path_factory.mktemp("st") / "kg")
    store = open_store(path)
    settings_ = Settings(store=str(path), write_token=TOKEN, access_log=False, query_timeout=5.0)
    app = create_app(settings_, store=store)
    yield schemathesis.openapi.from_asgi("/openapi.json", app)
    app.state.parse_pool.close()
    runner = app.state.query_runner
    if runner is not None:
        runner.close()
    store.close()


def _label(op) -> str:
    return f"{op.method.upper()} {op.path}"


@pytest.mark.parametrize("mode", ["positive", "negative"])
@pytest.mark.parametrize("token", [False, True], ids=["anonymous", "token"])
def test_every_operation_answers_as_its_schema_says(schema, token: bool, mode: str) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"} if token else None
    failures: dict[tuple[str, str], list[str]] = defaultdict(list)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15
    for op in operations:
        try:
            _fuzz(op, mode, headers, failures)()
        except Unsatisfiable:
            continue
    report = "\n".join(
        f"{label}: {title} x{len(cases)}, e.g. {cases[0]}"
        for (label, title), cases in sorted(failures.items())
    )
    assert not failures, report


def _fuzz(op, mode: str, headers, failures):
    """A hypothesis test of one operation that records every failing check."""
    label = _label(op)

    def record(case, response, f) -> None:
        failures[(label, f.title)].append(
            f"{response.status_code}: {case.as_curl_command(headers=headers)[:300]}"
        )

    @given(case=op.as_strategy(generation_mode=GenerationMode(mode)))
    @settings(
        max_examples=max(2, MAX // 4) if label in EXPENSIVE else MAX,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case) -> None:
        response = case.call(headers=headers)
        try:
            case.validate_response(response, checks=CHECKS, headers=headers)
        except FailureGroup as group:
            for f in group.exceptions:
                record(case, response, f)
        except Failure as f:
            record(case, response, f)

    return run


def test_the_stateful_links(schema) -> None:
    links = [
        (name, link)
        for path in schema.raw_schema["paths"].values()
        for op in path.values()
        for resp in op.get("responses", {}).values()
        for name, link in resp.get("links", {}).items()
    ]
    assert {name for name, _ in links} >= {"GetDocument", "DeleteDocument", "GetComparison"}

    class Machine(schema.as_state_machine()):  # type: ignore[misc]
        def get_call_kwargs(self, case):
            return {"headers": {"Authorization": f"Bearer {TOKEN}"}}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=CHECKS, headers=kwargs.get("headers"))

    Machine.run(
        settings=settings(
            max_examples=max(5, MAX // 2),
            stateful_step_count=4,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
    )


def test_an_uploaded_document_can_be_fetched_and_deleted_through_the_links(schema) -> None:
    """The links the stateful run follows, once by hand with a real document."""
    example = Path(__file__).resolve().parents[2] / "examples/audits/gcn.yaml"
    post = schema["/documents"]["POST"]
    case = post.Case(
        media_type="text/plain",
        body=example.read_text(encoding="utf-8"),
        query={"name": "gcn.yaml"},
    )
    headers = {"Authorization": f"Bearer {TOKEN}"}
    r = case.call(headers=headers)
    assert r.status_code in (201,), r.text
    case.validate_response(r, checks=CHECKS, headers=headers)
    doc_id = r.json()["documents"][0]["id"]
    get = schema["/documents/{doc_id}"]["GET"].Case(path_parameters={"doc_id": doc_id})
    assert get.call().status_code == 200
    delete = schema["/documents/{doc_id}"]["DELETE"].Case(path_parameters={"doc_id": doc_id})
    r = delete.call(headers=headers)
    assert r.status_code == 204
    delete.validate_response(r, checks=CHECKS, headers=headers)


#: checks the command leaves out, and why: a schema-valid body is not a valid source
#: (``positive_data_acceptance``: the schema cannot say which texts our loaders read, which
#: bytes a multipart ``data`` file must hold, or which strings are SPARQL), and a text body
#: is read as bytes whatever JSON type schemathesis sent (``negative_data_rejection``)
CLI_EXCLUDED = "positive_data_acceptance,negative_data_rejection"


@pytest.mark.slow
def test_the_schemathesis_command_finds_no_mismatch(tmp_path: Path, demo_store_copy) -> None:
    """``st run`` against a real ``reprokg serve`` (the demo data, the token), as the
    probe ran it: examples, coverage (boundary values, empty strings, undeclared methods
    and their ``Allow`` headers), fuzzing and the stateful links, every other check.
    Before: empty ``kind=``/``query=`` allowed by the schema and answered 400, ``Allow``
    naming one route's methods, ``GET /comparisons`` and ``GET /validate`` pages on paths
    whose API declared only POST. Bounded: ``ST_CLI_EXAMPLES`` examples per operation
    (default 5), the survey analysis left out (seconds per call), 10 minutes at most."""
    import shutil
    import subprocess

    from tests.service.conftest import reprokg_serve

    st = shutil.which("st") or shutil.which("schemathesis")
    assert st, "schemathesis' command is missing (pyproject's test extra)"
    env = {"REPROKG_WRITE_TOKEN": TOKEN, "REPROKG_ACCESS_LOG": "0", "REPROKG_QUERY_TIMEOUT": "5"}
    with reprokg_serve(demo_store_copy(tmp_path / "kg"), env) as (port, proc):
        done = subprocess.run(
            [
                st,
                "run",
                f"http://127.0.0.1:{port}/openapi.json",
                "--phases",
                "examples,coverage,fuzzing,stateful",
                "--max-examples",
                os.environ.get("ST_CLI_EXAMPLES", "5"),
                "--checks",
                "all",
                "--exclude-checks",
                CLI_EXCLUDED,
                "--header",
                f"Authorization: Bearer {TOKEN}",
                "--exclude-path-regex",
                "survey",
                "--workers",
                "1",
                "--seed",
                "28",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.poll() is None
    summary = done.stdout[done.stdout.rfind("=== SUMMARY") :] if "SUMMARY" in done.stdout else ""
    print(summary)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
