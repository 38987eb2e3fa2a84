"""``POST /disputes``: a dispute of a stored assessment over HTTP, shown on the passport.

The store holds a real failed replication (a ReScience C ``[¬Re]`` article and the ML
Reproducibility Challenge header naming its original, ../shared/data; the fixture is
tests/cli/test_passport.py's). The dispute is a document of its own; the assessment stays.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from reprokg.cli import main
from reprokg.core.settings import Settings
from reprokg.service.app import create_app
from reprokg.store import open_store
from tests.cli.test_passport import store_dir  # noqa: F401 - the real failed replication

TOKEN = "t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ORCID = "0000-0002-1825-0097"  # ORCID's own example iD (valid check digit)


@pytest.fixture
def client(store_dir: tuple[Path, str]):  # noqa: F811
    d, _ = store_dir
    store = open_store(d)
    app = create_app(
        Settings(store=str(d), write_token=TOKEN, access_log=False, max_body_bytes=4096),
        store=store,
    )
    with TestClient(app) as c:
        yield c
    store.close()


def _passport(client: TestClient, original: str) -> dict:
    return client.get("/paper", params={"iri": original, "format": "json"}).json()


@pytest.mark.slow
def test_a_dispute_is_stored_and_shown_on_the_passport(client, store_dir) -> None:  # noqa: F811
    _, original = store_dir
    (v,) = _passport(client, original)["verdicts"]
    assert not v["disputed"] and v["disputes"] == []
    body = {"assessment": v["assessment"], "reason": "the code ran on a later commit", "by": ORCID}
    r = client.post("/disputes", json=body, headers=AUTH)
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["status"] == "added" and made["assessment"] == v["assessment"]
    # the passport: still one assessment, its outcome unchanged, now marked and explained
    data = _passport(client, original)
    (after,) = data["verdicts"]
    assert after["outcome"] == "not-reproduced" and data["verdict_summary"]["disputed"] == 1
    (d,) = after["disputes"]
    assert d["dispute"] == made["dispute"] and d["reason"] == body["reason"]
    assert d["by"] == f"https://orcid.org/{ORCID}" and d["date"]
    html = client.get("/paper", params={"iri": original}).text
    assert "disputed by" in html and "the code ran on a later commit" in html
    # the same dispute again changes nothing; a new reason revises it (one dispute shown)
    again = client.post("/disputes", json=body, headers=AUTH)
    assert again.status_code == 200 and again.json()["status"] == "unchanged"
    body["reason"] = "the original's numbers were misread"
    revised = client.post("/disputes", json=body, headers=AUTH)
    assert revised.status_code == 201 and revised.json()["status"] == "revised"
    (d,) = _passport(client, original)["verdicts"][0]["disputes"]
    assert d["reason"] == "the original's numbers were misread"


def test_writes_need_the_token(client, store_dir) -> None:  # noqa: F811
    body = {"assessment": "https://example.org/a", "reason": "r", "by": "Ada"}
    assert client.post("/disputes", json=body).status_code == 401
    wrong = client.post("/disputes", json=body, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403


@pytest.mark.parametrize(
    ("change", "status", "field", "words"),
    [
        ({"assessment": "not an iri"}, 400, "assessment", "not an absolute IRI"),
        ({"reason": "  "}, 400, "reason", "says why"),
        ({"by": ""}, 400, "by", "who disputes"),
        ({"assessment": "https://example.org/no-such-assessment"}, 404, "assessment",
         "no reproduction assessment <https://example.org/no-such-assessment>"),
    ],
)  # fmt: skip
def test_bad_fields_are_located(client, change, status, field, words) -> None:
    body = {"assessment": "https://example.org/a", "reason": "r", "by": "Ada"} | change
    r = client.post("/disputes", json=body, headers=AUTH)
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    assert detail["field"] == field and words in detail["message"]


def test_unknown_keys_and_large_bodies_are_refused(client) -> None:
    r = client.post("/disputes", json={"assessment": "x", "reason": "r", "by": "b", "x": 1},
                    headers=AUTH)  # fmt: skip
    assert r.status_code == 422 and "x" in r.text
    big = {"assessment": "https://example.org/a", "reason": "r" * 10_000, "by": "b"}
    r = client.post("/disputes", json=big, headers=AUTH)  # the Settings' body limit (4096)
    assert r.status_code == 413


def test_the_command_line_files_the_same_dispute(store_dir) -> None:  # noqa: F811
    d, original = store_dir
    with open_store(d, read_only=True) as s:
        from reprokg.evidence.passport import passport

        (v,) = passport(s, original).to_json()["verdicts"]
    out = io.StringIO()
    args = ["evidence", "dispute", v["assessment"], "--reason", "seeds differ", "--by", "Ada L"]
    with contextlib.redirect_stdout(out):
        assert main([*args, "--store", str(d)]) == 0
    assert out.getvalue().startswith("added dispute ")
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        assert main(["passport", original, "--store", str(d)]) == 0
    assert "disputed by Ada L (" in text.getvalue() and "): seeds differ" in text.getvalue()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main([*args[:3], "--reason", "", "--by", "x", "--store", str(d)]) == 2
    assert "reason: a dispute says why" in err.getvalue()
