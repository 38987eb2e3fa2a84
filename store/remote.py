"""Remote backend: any SPARQL 1.1 engine over the Protocol; tested on Oxigraph server, Virtuoso 7.

Requests: queries and updates are form-encoded POSTs (``query=`` / ``update=``); a
direct ``application/sparql-query`` POST can hang on Virtuoso. Document writes are
one SPARQL Update request ``DROP SILENT GRAPH <g>; [DROP SILENT GRAPH <old>;]
INSERT {GRAPH <g> {…}} WHERE {}`` (``INSERT DATA`` when the graph has no blank nodes:
Virtuoso 7.2 refuses blank nodes in ``INSERT DATA``). Oxigraph server runs one
update request as one transaction; Virtuoso runs it in one transaction only in its
default (transactional) log mode — atomicity there is the engine's, not ours.

Default graph = the merge of the documents (the store contract), a set: engines repeat
a triple once per graph of a union/dataset (Virtuoso 7 alike, and Oxigraph:
https://github.com/oxigraph/oxigraph/issues/1919), so the merge is materialised, in the same update
request as every document write (:func:`reprokg.store.oxigraph.unmerge_ops` / ``merge_op``), with
the update policy of the embedded store (default graph not writable, :class:`UpdatePlan`):

* ``oxigraph`` — in the server's real default graph, with the embedded store's empty
  marker graphs; queries carry no dataset. A server without the marker is merged on the
  first use of a writable store; read-only, it is queried with its
  ``union-default-graph`` parameter (which repeats shared triples).
* ``virtuoso`` / ``generic`` — in the named graph :data:`MERGE_GRAPH`, its state as a
  triple in :data:`STATE_GRAPH` (Virtuoso keeps no empty graphs). Virtuoso's own default
  graph is the union of *all* its graphs, system graphs included, so a query's dataset is
  set, at a size that does not grow with the documents: ``default-graph-uri`` = the merge
  graph, and each ``GRAPH ?var {`` of the query opened with a ``FILTER`` keeping ``?var``
  to documents (:meth:`RemoteStore._documents_only`; Virtuoso takes every graph as named
  when the request names none). A ``generic`` engine gets the merge graph alone when the
  query text has no ``GRAPH`` / ``FROM NAMED``; otherwise (the Protocol has no "all graphs
  but these") one ``named-graph-uri`` per document after a listing query: the one request
  left that grows with the documents (docs/deploy.md). A full resync is one ``INSERT``
  from every document graph, filtered the same way.

Counters (:class:`~reprokg.store.base.Counters`, what ``/health`` reports and the service's
caches key on — the engine's state, so every replica over one engine sees one version):
every document write request also inserts, in :data:`~reprokg.store.merge.COUNTERS_GRAPH`,
one quad ``<…tx/uuid> rks:documentsDelta d`` (``d`` computed *by the engine*: +1 for a
graph that was not there, −1 for one dropped) and states the document's membership,
``<doc> rks:heldDocument 1`` (removed with the document), so both commit or fail with the
write. documents = the number of membership quads: a set, so two writers storing one new
document at once count it once (a sum of deltas each computed before the other committed
counted it twice); version = the number of deltas plus the folded ``rks:foldedWrites``,
which only has to move with every write (two folds over overlapping deltas can only move
it further). One small query reads both. Every :data:`FOLD_AT` writes a writer folds the
deltas into one; writes whose effect is not known (a SPARQL Update, a restore) recount
the document graphs in the engine.

Time limits are client-side (``httpx`` read timeout → :class:`QueryTimeout`); the
engine may keep computing (Oxigraph server: start it with ``--timeout-s``).
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlencode

import httpx
import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Identifier

from reprokg.core.errors import LoadError, QuerySyntaxError, QueryTimeout, StoreError
from reprokg.core.rdf_parse import parse_rdf
from reprokg.store.base import (
    AskResult,
    Counters,
    DocumentWrite,
    GraphResult,
    Liveness,
    MergeMaintenance,
    QueryResult,
    SelectResult,
    Store,
)
from reprokg.store.counters import FOLD_AT, RKS
from reprokg.store.merge import (
    COUNTERS_GRAPH,
    KEEP_LEGACY_OP,
    LEGACY_DEFAULT_GRAPH,
    MARK_MERGED,
    MARK_STALE,
    MERGED_MARKER,
    RESERVED_GRAPHS,
    RESYNC_OPS,
    SCRATCH_GRAPH,
    STALE_MARKER,
    UpdatePlan,
    merge_op,
    unmerge_ops,
)
from reprokg.store.terms import rdf_format, to_ntriples, to_oxigraph, to_quad

#: graphs an engine keeps for itself; never reported as documents
SYSTEM_GRAPH_PREFIXES: dict[str, tuple[str, ...]] = {
    "virtuoso": (
        "http://www.openlinksw.com/",
        "http://www.w3.org/ns/ldp#",
        "http://localuriqaserver/",
        "http://www.w3.org/2002/07/owl#",
        "urn:activitystreams-owl:map",
        "urn:core:services:sparql",
    ),
}
#: a graph that never exists: the dataset of a query when there are no documents
EMPTY_GRAPH = "urn:reprokg:empty-dataset"
#: named graph holding the merge on engines without a separate default graph (Virtuoso)
MERGE_GRAPH = "https://w3id.org/reprokg/store#merge"
#: named graph holding the merge state there (Virtuoso keeps no empty graphs as markers)
STATE_GRAPH = "https://w3id.org/reprokg/store#state"
_STATE = "https://w3id.org/reprokg/store#mergeState"
#: bookkeeping graphs of every dialect: never documents
REMOTE_RESERVED = RESERVED_GRAPHS | {MERGE_GRAPH, STATE_GRAPH}
#: update request size (estimated) :meth:`RemoteStore.write_documents` packs documents up to,
#: per dialect: Virtuoso's SPARQL compiler runs out of memory on a large ``INSERT DATA`` and
#: slows per triple before that (benchmarks/README.md#bulk-writes-to-remote-engines)
BATCH_BYTES = {"virtuoso": 800_000}
DEFAULT_BATCH_BYTES = 4_000_000
#: the most documents per update request in their own operations, per dialect
BATCH_DOCUMENTS = {"virtuoso": 1}
#: the most graphs one batched request names (its ``VALUES``): Virtuoso 7 refused a restore's
#: request naming ~400 at 10,000 documents ("generated SQL text has exceeded 10000 lines");
#: an ingest batch is 256 documents
BATCH_GRAPHS = 256
_DELTA = RKS + "documentsDelta"
#: ``<doc> rks:heldDocument 1`` in the counters graph while ``doc`` is a document
_HELD = RKS + "heldDocument"
_FOLDED = RKS + "foldedWrites"
#: the query text may name graphs (conservative: a match in a string or comment counts)
_NAMES_GRAPHS_RE = re.compile(r"\bGRAPH\b|\bNAMED\b", re.IGNORECASE)
#: a ``GRAPH ?var {`` pattern's opening (Virtuoso's dataset: :meth:`RemoteStore._documents_only`)
_GRAPH_VAR_RE = re.compile(r"\bGRAPH\s+([?$]\w+)\s*\{", re.IGNORECASE)
#: what a query's text holds that is not SPARQL syntax to rewrite: string literals (long and
#: short), IRIs and comments
_NOT_CODE_RE = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
    r"|<[^<>\"{}|^`\\\s]*>|#[^\n]*"
)
_NOT_DOCUMENTS = ", ".join(f"<{g}>" for g in sorted(REMOTE_RESERVED))
_FORM_RE = re.compile(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.IGNORECASE)
_PROLOGUE_RE = re.compile(
    r"^(?:\s+|#[^\n]*\n|(?:PREFIX\s+[^\s:]*:\s*<[^>]*>)|(?:BASE\s+<[^>]*>))*", re.IGNORECASE
)
_GRAPH_MIME = {
    "application/n-triples": "nt",
    "text/plain": "nt",
    "text/turtle": "turtle",
    "application/rdf+xml": "xml",
    "application/ld+json": "json-ld",
}


def query_form(sparql: str) -> str:
    """SELECT / ASK / CONSTRUCT / DESCRIBE: decides the Accept header."""
    body = _PROLOGUE_RE.sub("", sparql, count=1)
    m = _FORM_RE.search(body)
    return m.group(1).upper() if m else "SELECT"


def _term(binding: dict) -> Identifier:
    kind, value = binding.get("type"), binding.get("value", "")
    if kind == "uri":
        return URIRef(value)
    if kind == "bnode":
        return BNode(value.removeprefix("nodeID://"))
    if kind in ("literal", "typed-literal"):
        if "xml:lang" in binding:
            return Literal(value, lang=binding["xml:lang"])
        dt = binding.get("datatype")
        if dt and dt != "http://www.w3.org/2001/XMLSchema#string":
            return Literal(value, datatype=URIRef(dt))
        return Literal(value)
    raise StoreError(f"unsupported term in results: {binding!r}")


def parse_results_json(data: bytes) -> SelectResult | AskResult:
    """SPARQL 1.1 Query Results JSON; Virtuoso's one-row ``__ASK_RETVAL`` table is an ASK."""
    doc = json.loads(data)
    if "boolean" in doc:
        return AskResult(bool(doc["boolean"]))
    variables = list(doc.get("head", {}).get("vars", []))
    bindings = doc.get("results", {}).get("bindings", [])
    if variables == ["__ASK_RETVAL"]:
        return AskResult(bool(bindings) and str(bindings[0]["__ASK_RETVAL"]["value"]) == "1")
    rows = [tuple(_term(b[v]) if v in b else None for v in variables) for b in bindings]
    return SelectResult(variables, rows)


class RemoteStore(Store, MergeMaintenance, Liveness, Counters):
    """A SPARQL 1.1 endpoint: ``url`` is the query endpoint; ``dialect+http://`` picks a dialect."""

    def __init__(
        self,
        url: str,
        *,
        update_url: str | None = None,
        dialect: str | None = None,
        auth: httpx.Auth | tuple[str, str] | None = None,
        read_only: bool = False,
        blob_dir: str | os.PathLike[str] | None = None,
        timeout: float = 60.0,
        batch_bytes: int | None = None,
    ) -> None:
        scheme, rest = url.split("://", 1)
        if "+" in scheme:
            dialect, scheme = scheme.split("+", 1)
        self.url = f"{scheme}://{rest}"
        self.read_only = read_only
        self.blob_dir = Path(blob_dir) if blob_dir is not None else None
        self.timeout = timeout
        self._client = httpx.Client(auth=auth, timeout=timeout)
        self.dialect = (dialect or self._detect_dialect()).lower()
        if update_url is None and self.dialect == "oxigraph" and self.url.endswith("/query"):
            update_url = self.url[: -len("/query")] + "/update"
        self.update_url = update_url or self.url
        self._system = SYSTEM_GRAPH_PREFIXES.get(self.dialect, ())
        #: where the merge lives: the server's default graph (Oxigraph) or MERGE_GRAPH
        self._into = None if self.dialect == "oxigraph" else MERGE_GRAPH
        self._merged: bool | None = None  # found out on first use (no request here)
        self._writes = 0  # document writes by this object since its last fold
        #: the largest update request :meth:`write_documents` sends (a document larger than
        #: this goes alone)
        self.batch_bytes = batch_bytes or BATCH_BYTES.get(self.dialect, DEFAULT_BATCH_BYTES)
        #: the most documents one update request carries in their own operations: one on
        #: Virtuoso, whose later operations of a request do not reliably see the earlier ones'
        #: writes (a graph inserted then dropped in one request stays) and which refuses a
        #: request of many operations ("SQ156 Query too large")
        self.batch_documents = BATCH_DOCUMENTS.get(self.dialect, 1_000_000)

    @property
    def merged(self) -> bool:
        """The merge is complete (else queries fall back to a union that repeats triples);
        a writable store without it builds it on first use."""
        if self._merged is None:
            self._merged = self._state() == "merged"
            if not self._merged and not self.read_only:
                self.rebuild_merge()
            elif not self.read_only and self._read_counters() is None:
                self._update(" ;\n".join(self._recount_ops()))
        return self._merged

    # ------------------------------------------------------------------ counters

    def _read_counters(self) -> tuple[int, int] | None:
        """(documents, version) from the engine in one query; ``None``: not kept here."""
        res = self._raw_select(
            f"SELECT ?p (COUNT(?v) AS ?n) (SUM(?v) AS ?s) WHERE {{ GRAPH <{COUNTERS_GRAPH}> "
            f"{{ ?t ?p ?v FILTER(?p IN (<{_DELTA}>, <{_FOLDED}>, <{_HELD}>)) }} }} GROUP BY ?p"
        )
        # a GROUP BY row's aggregates are bound literals: int() of a term mypy sees as optional
        got = {str(p): (int(n), int(s)) for p, n, s in res.rows}  # type: ignore[arg-type]
        if _DELTA not in got:
            return None
        return got.get(_HELD, (0, 0))[0], got[_DELTA][0] + got.get(_FOLDED, (0, 0))[1]

    def document_count(self) -> int:
        """The engine's membership quads (one small query, no scan of the data)."""
        self.merged  # noqa: B018 - a writable store starts its counters on first use
        got = self._read_counters()
        return got[0] if got is not None else len(self.documents())

    def version(self) -> int:
        """Moves with every document write committed to the engine by any client that
        writes through reprokg (read from the engine on every call: no bound beyond one
        round trip); 0 on an engine whose counters were never started."""
        self.merged  # noqa: B018
        got = self._read_counters()
        return got[1] if got is not None else 0

    @staticmethod
    def _delta_op(iri: URIRef | str, sign: int) -> str:
        """One quad whose value the engine computes before the write drops ``iri``: +1 when
        ``iri`` is new (``sign`` 1), −1 when it goes (``sign`` 0: a dropped graph).
        ``FILTER (NOT) EXISTS`` in an empty group is always true on Virtuoso 7.2, hence a
        ``COUNT`` over a ``LIMIT 1`` sub-select."""
        tx = f"<{RKS}tx/{uuid.uuid4().hex}>"
        return (
            f"INSERT {{ GRAPH <{COUNTERS_GRAPH}> {{ {tx} <{_DELTA}> ?d }} }} WHERE {{ "
            f"{{ SELECT (COUNT(*) AS ?n) WHERE {{ SELECT ?s WHERE {{ GRAPH <{iri}> "
            f"{{ ?s ?p ?o }} }} LIMIT 1 }} }} BIND({sign} - ?n AS ?d) }}"
        )

    @staticmethod
    def _held_op(iris: Sequence[URIRef | str], held: bool) -> str:
        """State (or withdraw) that ``iris`` are documents: what the count counts."""
        quads = " ".join(f"<{i}> <{_HELD}> 1 ." for i in iris)
        verb = "INSERT DATA" if held else "DELETE DATA"
        return f"{verb} {{ GRAPH <{COUNTERS_GRAPH}> {{ {quads} }} }}"

    def _fold_op(self) -> str:
        """The deltas → one base delta and their number less one as ``rks:foldedWrites``
        (the version stays). The fold's IRI comes from the newest delta's, so two writers
        folding the same deltas at once write the same triples."""
        return (
            f"DELETE {{ GRAPH <{COUNTERS_GRAPH}> {{ ?t <{_DELTA}> ?d }} }} "
            f"INSERT {{ GRAPH <{COUNTERS_GRAPH}> {{ ?f <{_DELTA}> ?s . ?f <{_FOLDED}> ?k }} }} "
            f"WHERE {{ {{ SELECT (COUNT(?d2) - 1 AS ?k) (SUM(?d2) AS ?s) "
            f"(MAX(STR(?t2)) AS ?last) WHERE {{ GRAPH <{COUNTERS_GRAPH}> "
            f"{{ ?t2 <{_DELTA}> ?d2 }} }} }} "
            f'BIND(IRI(CONCAT("{RKS}fold/", STRAFTER(?last, "{RKS}"))) AS ?f) '
            f"GRAPH <{COUNTERS_GRAPH}> {{ ?t <{_DELTA}> ?d }} }}"
        )

    def _recount_ops(self) -> list[str]:
        """Replace the deltas by the engine's count of document graphs (a scan of the
        graphs: after writes whose effect on them is not known); the version moves by one."""
        fold = f"<{RKS}fold/{uuid.uuid4().hex}>"
        return [
            f"INSERT {{ GRAPH <{COUNTERS_GRAPH}> {{ {fold} <{_FOLDED}> ?k }} }} WHERE {{ "
            f"SELECT (COUNT(?d) AS ?k) WHERE {{ GRAPH <{COUNTERS_GRAPH}> "
            f"{{ ?t <{_DELTA}> ?d }} }} }}",
            f"DELETE WHERE {{ GRAPH <{COUNTERS_GRAPH}> {{ ?t <{_DELTA}> ?d }} }}",
            f"INSERT {{ GRAPH <{COUNTERS_GRAPH}> {{ {fold} <{_DELTA}> ?n }} }} WHERE {{ "
            f"SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE {{ GRAPH ?g {{ ?s ?p ?o }} "
            f"FILTER({self._is_document('?g')}) }} }}",
            f"DELETE WHERE {{ GRAPH <{COUNTERS_GRAPH}> {{ ?h <{_HELD}> ?x }} }}",
            f"INSERT {{ GRAPH <{COUNTERS_GRAPH}> {{ ?g <{_HELD}> 1 }} }} WHERE {{ "
            f"SELECT ?g WHERE {{ GRAPH ?g {{ ?s ?p ?o }} FILTER({self._is_document('?g')}) }} "
            f"GROUP BY ?g }}",
        ]

    def _wrote(self, n: int = 1) -> None:
        """After ``n`` document writes: fold every :data:`FOLD_AT` writes of this object."""
        self._writes += n
        if self._writes >= FOLD_AT:
            self._writes = 0
            self._update(self._fold_op())

    # ------------------------------------------------------------------ the merge

    def _state(self) -> str:
        if self._into is None:
            if self._ask(f"ASK {{ GRAPH <{MERGED_MARKER}> {{ }} }}"):
                return "merged"
            return "stale" if self._ask(f"ASK {{ GRAPH <{STALE_MARKER}> {{ }} }}") else ""
        res = self._raw_select(
            f"SELECT ?v WHERE {{ GRAPH <{STATE_GRAPH}> {{ ?x <{_STATE}> ?v }} }}"
        )
        return str(res.rows[0][0]) if res.rows else ""

    def _mark(self, state: str) -> tuple[str, ...]:
        if self._into is None:
            return MARK_MERGED if state == "merged" else MARK_STALE
        return (
            f"DROP SILENT GRAPH <{STATE_GRAPH}>",
            f'INSERT DATA {{ GRAPH <{STATE_GRAPH}> {{ <{STATE_GRAPH}> <{_STATE}> "{state}" }} }}',
        )

    def _resync_ops(self) -> list[str]:
        """Operations that rebuild the whole merge from the named graphs."""
        if self._into is None:
            return list(RESYNC_OPS)
        return [
            f"DROP SILENT GRAPH <{SCRATCH_GRAPH}>",
            f"DROP SILENT GRAPH <{self._into}>",
            f"INSERT {{ GRAPH <{self._into}> {{ ?s ?p ?o }} }} WHERE {{ GRAPH ?g {{ ?s ?p ?o }} "
            f"FILTER({self._is_document('?g')}) }}",
        ]

    def _is_document(self, var: str) -> str:
        """A SPARQL expression: ``var`` names a document graph (no system or bookkeeping
        graph), so a resync or recount is one operation of constant size."""
        system = "".join(f' && !STRSTARTS(STR({var}), "{p}")' for p in self._system)
        return f"isIRI({var}) && {var} NOT IN ({_NOT_DOCUMENTS}){system}"

    def rebuild_merge(self) -> None:
        """Rebuild the merge from the named graphs (one request); see
        :meth:`reprokg.store.oxigraph.OxigraphStore.rebuild_merge`. On Oxigraph, triples
        of the server's own default graph that no document holds go to the legacy graph
        when the store predates the merge."""
        self._check_writable()
        legacy = [KEEP_LEGACY_OP] if self._into is None and self._state() != "stale" else []
        ops = [*legacy, *self._resync_ops(), *self._mark("merged")]
        self._update(" ;\n".join([*ops, *self._recount_ops()]))
        self._merged = True

    def ping(self) -> None:
        """``ASK {}`` with a short time limit (``/health``)."""
        try:
            self._post(self.url, [("query", "ASK { }")], "application/sparql-results+json", 2.0)
        except QueryTimeout as exc:
            raise StoreError(str(exc)) from exc

    def _ask(self, sparql: str) -> bool:
        r = self._post(self.url, [("query", sparql)], "application/sparql-results+json", None)
        res = parse_results_json(r.content)
        return isinstance(res, AskResult) and res.value

    def _detect_dialect(self) -> str:
        try:
            r = self._client.post(
                self.url,
                data={"query": "ASK { }"},
                headers={"Accept": "application/sparql-results+json"},
            )
        except httpx.HTTPError as exc:
            raise StoreError(f"cannot reach SPARQL endpoint {self.url}: {exc}") from exc
        server = r.headers.get("server", "").lower()
        for name in ("oxigraph", "virtuoso"):
            if name in server:
                return name
        return "generic"

    # ------------------------------------------------------------------ HTTP

    def _post(
        self, url: str, data: list[tuple[str, str]], accept: str | None, timeout: float | None
    ):
        headers = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}
        if accept:
            headers["Accept"] = accept
        body = urlencode(data).encode("ascii")
        try:
            r = self._client.post(
                url, content=body, headers=headers, timeout=timeout or self.timeout
            )
        except httpx.TimeoutException as exc:
            raise QueryTimeout(
                f"no answer from {url} within {timeout or self.timeout:g} s"
            ) from exc
        except httpx.HTTPError as exc:
            raise StoreError(f"SPARQL endpoint {url} failed: {exc}") from exc
        if r.status_code == 400 or (
            r.status_code == 500 and self.dialect == "virtuoso" and b"SPARQL compiler" in r.content
        ):
            raise QuerySyntaxError(r.text.strip()[:2000])
        if r.status_code >= 300:
            raise StoreError(f"SPARQL endpoint {url} answered {r.status_code}: {r.text[:2000]}")
        return r

    # a read-only default
    def _raw_select(self, sparql: str, dataset: list[tuple[str, str]] = ()) -> SelectResult:  # type: ignore[assignment]
        r = self._post(
            self.url,
            [("query", sparql), *dataset],
            "application/sparql-results+json",
            None,
        )
        res = parse_results_json(r.content)
        if not isinstance(res, SelectResult):
            raise StoreError("expected a SELECT result")
        return res

    # ------------------------------------------------------------------ reads

    def documents(self) -> list[URIRef]:
        """The named graphs holding a triple, less system and bookkeeping graphs. ``GROUP
        BY``, not ``DISTINCT``: Virtuoso 7.2 plans ``SELECT DISTINCT ?g`` over every graph
        far slower (docs/deploy.md, Virtuoso)."""
        res = self._raw_select("SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g")
        return sorted(
            URIRef(str(row[0]))
            for row in res.rows
            if isinstance(row[0], URIRef)
            and not str(row[0]).startswith(self._system)
            and str(row[0]) not in REMOTE_RESERVED
        )

    def documents_page(self, offset: int, limit: int) -> list[URIRef]:
        """From the membership quads (what :meth:`document_count` counts) in the engine's
        order, one small request whatever the number of documents; an engine whose counters
        were never started pages :meth:`documents`."""
        self.merged  # noqa: B018 - a writable store starts its counters on first use
        if self._read_counters() is None:
            return super().documents_page(offset, limit)
        res = self._raw_select(
            f"SELECT ?g WHERE {{ GRAPH <{COUNTERS_GRAPH}> {{ ?g <{_HELD}> ?held }} }} "
            f"LIMIT {int(limit)} OFFSET {int(offset)}"
        )
        return [URIRef(str(row[0])) for row in res.rows if isinstance(row[0], URIRef)]

    def triple_count(self) -> int:
        """The documents' triples: the counters graph is a named graph the engine lists
        (as the embedded store's is), so it is filtered out here."""
        res = self.query(
            "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } "
            f"FILTER(?g NOT IN ({_NOT_DOCUMENTS})) }}"
        )
        assert isinstance(res, SelectResult)
        return int(res.rows[0][0]) if res.rows and res.rows[0][0] is not None else 0

    def has_document(self, iri: URIRef | str) -> bool:
        return self._ask(f"ASK {{ GRAPH <{iri}> {{ ?s ?p ?o }} }}")

    def get_document(self, iri: URIRef | str) -> Graph:
        res = self._raw_select(f"SELECT ?s ?p ?o WHERE {{ GRAPH <{iri}> {{ ?s ?p ?o }} }}")
        g = Graph()
        for s, p, o in res.rows:
            g.add((s, p, o))  # type: ignore[arg-type]  # a graph's ?s ?p ?o are all bound
        return g

    def _dataset(
        self, sparql: str, default_graph_uris: Sequence[str], named_graph_uris: Sequence[str]
    ) -> tuple[str, list[tuple[str, str]]]:
        """The query text and its dataset parameters; their size does not grow with the
        documents except on a ``generic`` engine for a query that names graphs."""
        params = [("default-graph-uri", u) for u in default_graph_uris]
        params += [("named-graph-uri", u) for u in named_graph_uris]
        if default_graph_uris:
            return sparql, params
        if self.dialect == "oxigraph":
            return sparql, params if self.merged else [("union-default-graph", ""), *params]
        if self.merged and self.dialect == "virtuoso":
            return self._documents_only(sparql), [("default-graph-uri", MERGE_GRAPH), *params]
        if self.merged and (named_graph_uris or not _NAMES_GRAPHS_RE.search(sparql)):
            return sparql, [("default-graph-uri", MERGE_GRAPH), *params]
        docs = [str(d) for d in self.documents()] or [EMPTY_GRAPH]
        if self.merged:
            named = [("named-graph-uri", u) for u in docs]
            return sparql, [("default-graph-uri", MERGE_GRAPH), *named]
        params += [("default-graph-uri", u) for u in docs]
        if not named_graph_uris:
            params += [("named-graph-uri", u) for u in docs]
        return sparql, params

    def _documents_only(self, sparql: str) -> str:
        """``GRAPH ?g {`` → ``GRAPH ?g { FILTER(?g is a document)``: Virtuoso binds ``?g``
        inside the group (the SPARQL algebra does not, hence Virtuoso only). Its
        ``input:named-graph-exclude`` pragma would do without rewriting, but excluding
        the graph that is also the default empties the default graph (Virtuoso 7.2)."""

        def rewrite(code: str) -> str:
            return _GRAPH_VAR_RE.sub(
                lambda m: f"GRAPH {m[1]} {{ FILTER({self._is_document(m[1])}) ", code
            )

        # only the query's own syntax: a literal or a comment saying "GRAPH ?g {" stays
        out, at = [], 0
        for m in _NOT_CODE_RE.finditer(sparql):
            out += [rewrite(sparql[at : m.start()]), m.group()]
            at = m.end()
        return "".join([*out, rewrite(sparql[at:])])

    def query(
        self,
        sparql: str,
        *,
        default_graph_uris: Sequence[str] = (),
        named_graph_uris: Sequence[str] = (),
        timeout: float | None = None,
    ) -> QueryResult:
        form = query_form(sparql)
        accept = (
            "application/n-triples, text/turtle;q=0.8"
            if form in ("CONSTRUCT", "DESCRIBE")
            else "application/sparql-results+json"
        )
        text, dataset = self._dataset(sparql, default_graph_uris, named_graph_uris)
        data = [("query", text), *dataset]
        r = self._post(self.url, data, accept, timeout)
        if form in ("CONSTRUCT", "DESCRIBE"):
            mime = r.headers.get("content-type", "application/n-triples").split(";")[0].strip()
            fmt = _GRAPH_MIME.get(mime, "nt")
            try:  # the endpoint's answer is untrusted text like any other
                g = parse_rdf(r.content, fmt, source=f"the endpoint's {mime} answer")
            except LoadError as exc:
                raise StoreError(str(exc)) from None
            return GraphResult(g)
        return parse_results_json(r.content)

    # ------------------------------------------------------------------ writes

    def _check_writable(self) -> None:
        if self.read_only:
            raise StoreError("store is opened read-only")

    def update(
        self,
        sparql: str,
        *,
        using_graph_uris: Sequence[str] = (),
        using_named_graph_uris: Sequence[str] = (),
    ) -> None:
        """A SPARQL 1.1 Update; with a merged default graph (Oxigraph dialect) the policy
        of :meth:`reprokg.store.oxigraph.OxigraphStore.update` (default graph not
        writable; stale mark, update, resync as three requests)."""
        self._check_writable()
        if self.merged:
            plan = UpdatePlan.of(
                sparql,
                into=self._into,
                mark_stale=self._mark("stale"),
                mark_merged=self._mark("merged"),
            )
            self._update(plan.before)
            try:
                self._update(sparql, using_graph_uris, using_named_graph_uris)
            except QuerySyntaxError:
                self._update(plan.undo)
                raise
            after = [plan.after(self._resync_ops() if plan.graphs is None else ())]
            self._update(" ;\n".join([*after, *self._recount_ops()]))
            return
        self._update(sparql, using_graph_uris, using_named_graph_uris)

    def _update(
        self,
        sparql: str,
        using_graph_uris: Sequence[str] = (),
        using_named_graph_uris: Sequence[str] = (),
    ) -> None:
        data = [("update", sparql)]
        data += [("using-graph-uri", u) for u in using_graph_uris]
        data += [("using-named-graph-uri", u) for u in using_named_graph_uris]
        self._post(self.update_url, data, None, None)

    def _insert(self, iri: URIRef | str | None, triples: Iterable) -> str:
        triples = list(triples)
        body = "\n".join(
            f"{to_ntriples(s)} {to_ntriples(p)} {to_ntriples(o)} ." for s, p, o in triples
        )
        has_bnodes = any(isinstance(t, BNode) for tr in triples for t in (tr[0], tr[2]))
        block = f"GRAPH <{iri}> {{\n{body}\n}}" if iri is not None else body
        return f"INSERT {{ {block} }} WHERE {{}}" if has_bnodes else f"INSERT DATA {{ {block} }}"

    def add_document(self, iri: URIRef | str, graph: Graph) -> None:
        self.replace_document(iri, graph, iri)

    def replace_document(self, iri: URIRef | str, graph: Graph, old: URIRef | str) -> None:
        self.write_documents([DocumentWrite(URIRef(str(iri)), graph, URIRef(str(old)))])

    def _write_ops(self, w: DocumentWrite) -> list[str]:
        """One document write as update operations, in the order the engine runs them: the
        counters' deltas (computed before the drops), the drops and unmerges, the insert,
        the merge."""
        iri, old = w.iri, w.replaces if w.replaces is not None else w.iri
        try:
            to_oxigraph(URIRef(str(iri)))
            triples = list(w.triples)
            empty = not triples  # an empty graph is no document: a write drops it
            parts = [self._delta_op(iri, 0 if empty else 1)]
            if str(old) != str(iri):
                parts.append(self._delta_op(old, 0))
            parts += self._drop_ops(iri)
            if str(old) != str(iri):
                parts += self._drop_ops(old)
            parts.append(self._insert(iri, triples))
            if self.merged:
                parts.append(merge_op(iri, self._into))
            if str(old) != str(iri):
                parts.append(self._held_op([old], False))
            parts.append(self._held_op([iri], not empty))
        except (ValueError, SyntaxError, TypeError) as exc:
            raise StoreError(f"cannot write document {iri}: {exc}") from exc
        return parts

    def write_documents(self, writes: Sequence[DocumentWrite]) -> None:
        """The writes in order, in as few SPARQL Update requests as fit :attr:`batch_bytes`
        (one per ingest batch of field documents). Each request is one transaction on
        Oxigraph server and on Virtuoso in its default log mode: a document is written
        whole or not at all, and a batch that fits one request is all or nothing. Every
        request's text is built (terms checked) before the first is sent, so a bad term
        fails the call with nothing written. New IRIs written once each, without blank
        nodes (what an ingest writes), go as five operations whatever their number
        (:meth:`_batch_ops`); any other batch as each document's own operations in order
        (counted by the engine, so one IRI written twice or a revision replaced by the
        next one counts right), at most :attr:`batch_documents` per request."""
        self._check_writable()
        requests: list[tuple[str, int]] = []
        for chunk in self._chunks(writes):
            ops = self._batch_ops(chunk)
            if ops is not None:
                requests.append((" ;\n".join(ops), len(chunk)))
                continue
            for i in range(0, len(chunk), self.batch_documents):
                part = chunk[i : i + self.batch_documents]
                text = " ;\n".join(op for w in part for op in self._write_ops(w))
                requests.append((text, len(part)))
        for text, n in requests:
            self._update(text)
            self._wrote(n)

    def _chunks(self, writes: Sequence[DocumentWrite]) -> list[list[DocumentWrite]]:
        """``writes`` in order, cut where a request would pass :attr:`batch_bytes` (an
        estimate: 120 bytes a triple, twice with the merge) or name :data:`BATCH_GRAPHS`."""
        chunks: list[list[DocumentWrite]] = []
        size = 0
        for w in writes:
            triples = list(w.triples)  # read once: a write's triples may be a generator
            cost = 240 * len(triples) + 1000
            if not chunks or size + cost > self.batch_bytes or len(chunks[-1]) >= BATCH_GRAPHS:
                chunks.append([])
                size = 0
            chunks[-1].append(DocumentWrite(w.iri, triples, w.replaces))
            size += cost
        return chunks

    def _batch_ops(
        self, writes: Sequence[DocumentWrite], *, replace: bool = True
    ) -> list[str] | None:
        """Distinct IRIs, none replacing another, none empty, no blank node, merge kept:
        five operations for the whole batch — the counters' delta (the batch's IRIs the
        engine does not hold yet), the unmerge of what they held, their drop, one
        ``INSERT DATA`` of every graph and of the merge, and their membership quads (what
        the document count counts); three without ``replace`` (a restore adds to what is
        there: no unmerge, no drop). ``None``: another shape."""
        iris = [str(w.iri) for w in writes]
        if (
            len(writes) < 2
            or not self.merged
            or len(set(iris)) != len(iris)
            or any(w.replaces is not None and str(w.replaces) != str(w.iri) for w in writes)
        ):
            return None
        bodies: list[str] = []
        try:
            for w in writes:
                to_oxigraph(URIRef(str(w.iri)))
                triples = list(w.triples)
                if not triples or any(isinstance(t, BNode) for tr in triples for t in tr):
                    return None
                bodies.append(
                    "\n".join(
                        f"{to_ntriples(s)} {to_ntriples(p)} {to_ntriples(o)} ."
                        for s, p, o in triples
                    )
                )
        except (ValueError, SyntaxError, TypeError) as exc:
            raise StoreError(f"cannot write document {w.iri}: {exc}") from exc
        values = " ".join(f"<{i}>" for i in iris)
        keep = ", ".join([*(f"<{i}>" for i in iris), *([f"<{self._into}>"] if self._into else [])])
        tpl = f"GRAPH <{self._into}> {{ ?s ?p ?o }}" if self._into else "?s ?p ?o"
        tx = f"<{RKS}tx/{uuid.uuid4().hex}>"
        merged = "\n".join(bodies)
        merge = f"GRAPH <{self._into}> {{\n{merged}\n}}" if self._into else merged
        graphs = "\n".join(f"GRAPH <{i}> {{\n{b}\n}}" for i, b in zip(iris, bodies, strict=True))
        drops = [
            f"DELETE {{ {tpl} }} WHERE {{ VALUES ?g {{ {values} }} GRAPH ?g {{ ?s ?p ?o }} "
            f"FILTER NOT EXISTS {{ GRAPH ?h {{ ?s ?p ?o }} FILTER(?h NOT IN ({keep})) }} }}",
            f"DELETE {{ GRAPH ?g {{ ?s ?p ?o }} }} WHERE {{ VALUES ?g {{ {values} }} "
            f"GRAPH ?g {{ ?s ?p ?o }} }}",
        ]
        return [
            f"INSERT {{ GRAPH <{COUNTERS_GRAPH}> {{ {tx} <{_DELTA}> ?d }} }} WHERE {{ "
            f"{{ SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE {{ VALUES ?g {{ {values} }} "
            f"GRAPH ?g {{ ?s ?p ?o }} }} }} BIND({len(iris)} - ?n AS ?d) }}",
            *(drops if replace else []),
            f"INSERT DATA {{\n{graphs}\n{merge}\n}}",
            self._held_op(iris, True),
        ]

    def _drop_ops(self, iri: URIRef | str) -> list[str]:
        if self.merged:
            return unmerge_ops(iri, self._into)
        return [f"DROP SILENT GRAPH <{iri}>"]

    def delete_document(self, iri: URIRef | str) -> bool:
        self._check_writable()
        if str(iri) in REMOTE_RESERVED or not self.has_document(iri):
            return False
        ops = [self._delta_op(iri, 0), *self._drop_ops(iri), self._held_op([iri], False)]
        self._update(" ;\n".join(ops))
        self._wrote()
        return True

    # ------------------------------------------------------------------ dump / restore

    def dump(self, out: BinaryIO, fmt: str = "nquads") -> None:
        """Every document graph, one SELECT per graph, serialised by pyoxigraph."""
        quads: list[ox.Quad] = []
        for g in self.documents():
            name = ox.NamedNode(str(g))
            for s, p, o in self.get_document(g):
                quads.append(to_quad(s, p, o, name))
        out.write(ox.serialize(quads, format=rdf_format(fmt)) or b"")

    def restore(self, src: BinaryIO, fmt: str = "nquads") -> None:
        """Adds to what is there, counting the graphs it adds: graphs without blank nodes
        in requests of :attr:`batch_bytes`, three operations each (:meth:`_batch_ops`),
        any other graph in a request of its own."""
        self._check_writable()
        from reprokg.store.terms import to_rdflib

        graphs: dict[str | None, list[tuple]] = {}
        try:
            for q in ox.parse(src, format=rdf_format(fmt)):
                key = q.graph_name.value if isinstance(q.graph_name, ox.NamedNode) else None
                graphs.setdefault(key, []).append(
                    (to_rdflib(q.subject), to_rdflib(q.predicate), to_rdflib(q.object))
                )
        except SyntaxError as exc:
            raise StoreError(f"cannot restore: {exc}") from exc
        plain = [
            DocumentWrite(URIRef(g), triples)
            for g, triples in graphs.items()
            if g is not None and not any(isinstance(t, BNode) for tr in triples for t in tr)
        ]
        for chunk in self._chunks(plain) if self.merged else []:
            ops = self._batch_ops(chunk, replace=False)
            if ops is None:  # one graph alone: its own request below
                continue
            self._update(" ;\n".join(ops))
            self._wrote(len(chunk))
            for w in chunk:
                del graphs[str(w.iri)]
        for g, triples in graphs.items():
            if not self.merged:
                self._update(self._insert(g, triples))
                continue
            target = LEGACY_DEFAULT_GRAPH if g is None else g  # the merge is derived
            delta = [] if g is None else [self._delta_op(g, 1)]
            ops = [*delta, self._insert(target, triples), merge_op(target, self._into)]
            if g is not None:
                ops.append(self._held_op([g], True))
            self._update(" ;\n".join(ops))
            self._wrote()

    def close(self) -> None:
        self._client.close()
