"""Comparisons API: ``POST /comparisons`` computes and stores one, ``GET /comparisons/{id}``.

POST takes either JSON naming stored documents —
``{"qrels": ID, "orig_base": ID, "rep_base": ID, "orig_adv": ID?, "rep_adv": ID?,
"qrels_rpl": ID?, "options": {...}?}`` (ids: document IRI, ``doc/<sha256>`` or the sha256)
— or multipart/form-data with files in fields of the same names. The answer is the
``reprokg compare --format json`` object plus ``iri`` and ``id`` (:class:`ComparisonModel`);
``options`` takes compare's options, the statistics' among them (``correction``,
``resamples`` up to the service's ``max_resamples``, ``seed``, ``level``); the comparison is
stored as a ``comparison`` document (with the uploaded runs and qrels), so writing needs
the bearer token like the documents API. The inputs are read and compared in an analysis
worker (``analysis_timeout``, ``analysis_memory_mb``: service/analysis.py), the result
stored here. GET rebuilds the same object from the graph.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, status
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from reprokg.core.errors import LoadError, NotFound, TooLarge
from reprokg.core.identifiers import mint
from reprokg.core.settings import Settings
from reprokg.evidence.verdicts import resolve as resolve_rule
from reprokg.evidence.verdicts import (
    stored_comparison_verdicts,
    stored_verdicts,
    verdicts_on_saved,
)
from reprokg.ingest import write_result
from reprokg.measures.comparison import ComparisonJSON
from reprokg.measures.comparison_document import stored_comparison
from reprokg.measures.inputs import (
    document_ref,
    qrels_from_bytes,
    qrels_from_store,
    run_from_bytes,
    run_from_store,
)
from reprokg.measures.registry import Options
from reprokg.measures.run_comparison import RunComparison, compare_inputs
from reprokg.service.analysis import get_analyses
from reprokg.service.deps import (
    SettingsDep,
    StoreDep,
    WriteAccess,
    error_responses,
    refuse_non_finite,
)
from reprokg.service.shapes import describe
from reprokg.store.base import Store

router = APIRouter(tags=["comparisons"])


class StoredComparison(ComparisonJSON):
    iri: str
    "the comparison's IRI"
    id: str
    "what GET /comparisons/{comparison_id} takes"


class ComparisonAnswer(StoredComparison, total=False):
    """``reprokg compare --format json`` with the comparison's ``iri`` and ``id``."""

    verdicts: list[dict[str, Any]] | None
    (
        "each acceptance rule's verdict of the comparison (outcome, conditions, "
        "insufficient_evidence, the comparison's warnings)"
    )
    verdict: dict[str, Any] | None
    (
        "the comparison's one verdict over its rules (reproduced only if every rule says "
        "reproduced): its outcome, each rule's, the work it judges (the paper only when the "
        "original run is the paper's own), why, and the comparison's warnings"
    )
    comparison_verdicts: list[dict[str, Any]] | None
    "GET: the comparison's stored verdicts over its rules, superseded ones marked"


describe(ComparisonAnswer)


RUN_FIELDS = ("orig_base", "rep_base", "orig_adv", "rep_adv")
QRELS_FIELDS = ("qrels", "qrels_rpl")
_OPTION_KEYS = {"depth", "order", "rbo_p", "rbo_depth", "rbo_extrapolated", "measures"}
#: the statistics' options (reprokg compare's --correction, --resamples, --seed, --level)
_STATISTICS_KEYS = {"correction", "resamples", "seed", "level"}


def _options(raw: Any, settings: Settings) -> Options:
    keys = _OPTION_KEYS | _STATISTICS_KEYS
    if raw is None:
        return Options()
    if not isinstance(raw, dict) or set(raw) - keys:
        raise LoadError(
            f"options: expected an object with keys among {', '.join(sorted(keys))}",
            field="options",
        )
    opts = dict(raw)
    if "measures" in opts:
        opts["measures"] = tuple(opts["measures"])
    if opts.get("order", "file") not in ("file", "score"):
        raise LoadError("options.order: file or score", field="options.order")
    if "correction" in opts:
        from reprokg.stats.multiplicity import correction_name

        try:
            opts["correction"] = correction_name(str(opts["correction"]))
        except ValueError as exc:
            raise LoadError(f"options.correction: {exc}", field="options.correction") from None
    resamples = opts.get("resamples", Options.resamples)
    if type(resamples) is not int or not 1 <= resamples <= settings.max_resamples:
        raise LoadError(
            f"options.resamples: a whole number from 1 to {settings.max_resamples} "
            "(the service's max_resamples)",
            field="options.resamples",
            details={"limit": "max_resamples", "limit_value": settings.max_resamples},
        )
    if type(opts.get("seed", 0)) is not int or opts.get("seed", 0) < 0:
        raise LoadError("options.seed: a whole number, at least 0", field="options.seed")
    level = opts.get("level", Options.level)
    if not isinstance(level, int | float) or not 0 < level < 1:
        raise LoadError("options.level: a number strictly between 0 and 1", field="options.level")
    return Options(**opts)


def comparison(
    stored: dict[str, Any],
    refs: dict[str, str],
    files: dict[str, tuple[str, bytes]],
    options: Options,
) -> RunComparison:
    """The uploads parsed and every input compared: in an analysis worker
    (``analysis_timeout``, ``analysis_memory_mb``: service/analysis.py), as every statistic
    a client asks for. The largest resampling a client may ask for ran past any limit in
    the server's thread pool before (benchmarks/README.md#figures-once-quoted-in-code). ``stored``:
    the inputs read from the store (in the request's thread: the live store holds their lines in its
    blob folder; a worker's snapshot does not)."""

    def run(field: str) -> Any:
        if field in files:
            name, data = files[field]
            return run_from_bytes(data, name)
        return stored.get(field)

    def qrels(field: str) -> Any:
        if field in files:
            name, data = files[field]
            return qrels_from_bytes(data, name, refs.get(f"{field}_collection"))
        return stored.get(field)

    q = qrels("qrels")
    ob, rb = run("orig_base"), run("rep_base")
    if q is None or ob is None or rb is None:
        raise LoadError("qrels, orig_base and rep_base are required", field="qrels")
    return compare_inputs(q, ob, rb, run("orig_adv"), run("rep_adv"), qrels("qrels_rpl"), options)


def _stored(
    store: Store, refs: dict[str, str], files: dict[str, tuple[str, bytes]]
) -> dict[str, Any]:
    """The inputs a request names by document id, read from the store (not uploaded)."""
    out: dict[str, Any] = {}
    for field in (*RUN_FIELDS, *QRELS_FIELDS):
        if field in files or not refs.get(field):
            continue
        read = run_from_store if field in RUN_FIELDS else qrels_from_store
        out[field] = read(store, refs[field], field)
    return out


def _text_fields(refs: dict[str, Any]) -> dict[str, str]:
    """The request's document references and collections, each a string (a document's
    IRI checked as the store parses IRIs: a 400 naming the field, before any worker)."""
    out: dict[str, str] = {}
    for field in (*RUN_FIELDS, *QRELS_FIELDS, *(f"{f}_collection" for f in QRELS_FIELDS)):
        value = refs.get(field)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise LoadError(
                f"{field}: expected a string (a stored document's IRI, doc/<sha256> or its "
                f"sha256, or a collection id), not {type(value).__name__}",
                source="request body",
                field=field,
            )
        if field in RUN_FIELDS or field in QRELS_FIELDS:
            document_ref(value, field)
        out[field] = value
    return out


def _compute(
    request: Request,
    store: Store,
    refs: dict[str, Any],
    files: dict[str, tuple[str, bytes]],
    settings: Settings,
) -> dict:
    """Check the request, compute in an analysis worker, store here (in the thread pool:
    blocking calls)."""
    rules = _rules(refs.get("rule"))  # an unknown rule is refused before anything is read
    options = _options(refs.get("options"), settings)
    texts = _text_fields(refs)
    stored = _stored(store, texts, files)
    study = get_analyses(request).compute(comparison, stored, texts, files, options)
    iri = str(write_result(store, study, inputs=study.source_documents()).subject)
    out = study.to_json()
    out["iri"] = iri
    out["id"] = iri.rsplit("/", 1)[-1]
    if rules:
        verdicts, whole = verdicts_on_saved(store, study, iri, rules)
        write_result(store, whole, inputs=whole.rule_documents())
        out["verdicts"] = [v.to_json() for v in verdicts]
        out["verdict"] = whole.to_json()
    return out


def _rules(raw: Any) -> list:
    """The acceptance rules of a request: a preset name, a list of names, or one rule object."""
    if raw is None or raw == "" or raw == []:
        return []
    items = raw if isinstance(raw, list) else [raw]
    if not all(isinstance(x, str | dict) for x in items):
        raise LoadError("rule: a preset name, a list of names or a rule object", field="rule")
    return [resolve_rule(x) for x in items]


def _json(data: str | bytes, source: str) -> Any:
    """A JSON value from a request, its nesting checked before the (recursive) decoder."""
    from reprokg.loaders.reading.source import decode_text, parse_json

    text = decode_text(data, source) if isinstance(data, bytes) else data
    value = parse_json(text, source)
    refuse_non_finite(value, source)  # NaN/Infinity: a 400, as on every JSON body
    return value


@router.post(
    "/comparisons",
    status_code=status.HTTP_201_CREATED,
    summary="Compute reproducibility measures for stored or uploaded runs and store them",
    responses={
        201: {
            "description": "the comparison as compare's JSON, with its iri and id",
            "links": {
                "GetComparison": {
                    "operationId": "get_comparison",
                    "parameters": {"comparison_id": "$response.body#/id"},
                }
            },
        },
        **error_responses(400, 401, 403, 404, 413, 415, 422, 429, 503, 507),
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"type": "object"}},
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "orig_base": {"type": "string", "format": "binary"},
                            "qrels": {"type": "string", "format": "binary"},
                        },
                    }
                },
            },
        }
    },
    operation_id="post_comparison",
    response_model=ComparisonAnswer,
    response_model_exclude_unset=True,
)
async def post_comparison(
    request: Request, store: StoreDep, settings: SettingsDep, _auth: WriteAccess
) -> dict:
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    refs: dict[str, Any] = {}
    files: dict[str, tuple[str, bytes]] = {}
    if ctype == "multipart/form-data":
        form = await request.form(max_files=len(RUN_FIELDS) + len(QRELS_FIELDS))
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                data = await value.read(settings.max_body_bytes + 1)
                if len(data) > settings.max_body_bytes:
                    raise TooLarge(
                        f"file larger than the limit of {settings.max_body_bytes} bytes",
                        source=value.filename or key,
                        details={"limit": settings.max_body_bytes},
                    )
                files[key] = (value.filename or key, data)
            elif key == "options":
                refs[key] = _json(value, "options")
            elif key == "rule":
                refs.setdefault("rule", []).append(value)
            else:
                refs[key] = value
    else:
        refs = _json(await request.body() or b"{}", "request body")
        if not isinstance(refs, dict):
            raise LoadError("expected a JSON object", source="request body")
    unknown = set(refs) | set(files)
    unknown -= {
        *RUN_FIELDS,
        *QRELS_FIELDS,
        "options",
        "rule",
        "qrels_collection",
        "qrels_rpl_collection",
    }
    if unknown:
        raise LoadError(f"unknown field(s): {', '.join(sorted(unknown))}", source="request body")
    # LoadError answers 400, ValidationFailed 422 with the reports (the app's error handler)
    return await run_in_threadpool(_compute, request, store, refs, files, settings)


@router.get(
    "/comparisons/{comparison_id}",
    summary="A stored comparison, as compare's JSON",
    responses=error_responses(404),
    operation_id="get_comparison",
    response_model=ComparisonAnswer,
    response_model_exclude_unset=True,
)
def get_comparison(comparison_id: str, store: StoreDep) -> dict:
    node = mint("comparison", comparison_id)
    out = stored_comparison(store, str(node))
    if out is None:
        raise NotFound(f"no comparison {comparison_id}")
    out["iri"] = str(node)
    out["id"] = comparison_id
    verdicts = stored_verdicts(store, str(node))
    if verdicts:
        out["verdicts"] = verdicts
    whole = stored_comparison_verdicts(store, str(node))
    if whole:
        out["comparison_verdicts"] = whole
    return out
