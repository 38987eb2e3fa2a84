"""What a crate holds, read from the store: a stored result of any kind, a run, a passport.

Every computed result is a document with the same provenance (:mod:`reprokg.core.computed`):
its subject ``prov:wasGeneratedBy`` an activity that ``prov:used`` its inputs, the software
with versions, the parameters and the SPARQL it read. :func:`document_content` reads that,
whatever the kind, and adds what is kind-specific: the result's JSON (a comparison's is
rebuilt from its triples; stability, study and intrinsic-dimension results keep theirs as an
``rdf:JSON`` literal), its table and chart, and the runs whose PRIMAD it compared.
"""

from __future__ import annotations

import json
from typing import Any, cast

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import PROV, RDF, RDFS

from reprokg.core.errors import NotFound
from reprokg.core.namespaces import MLS, RK, SCHEMA, bind_prefixes
from reprokg.exchange.chart import bar_chart
from reprokg.exchange.crate import (
    CrateContent,
    CrateFile,
    CrateInput,
    CrateRun,
    Person,
)
from reprokg.exchange.crate import sha256 as sha256_of
from reprokg.exchange.tables import Table, csv_bytes, table_of
from reprokg.loaders.ir_metadata.export import graph_to_dict, graph_to_yaml
from reprokg.store.base import GraphResult, SelectResult, Store

#: what each kind is, in words (the crate's description)
KIND_LABELS = {
    "comparison": "a comparison of original and reproduced runs (reprokg compare)",
    "evaluation": "the reported measures of runs evaluated (reprokg evaluate)",
    "stability-analysis": "a stability analysis (reprokg stability)",
    "study-result": "a published study recomputed from the graph (reprokg study)",
    "intrinsic-dimension": "the intrinsic dimension of a data set (reprokg intrinsic-dimension)",
    "qra": "a quantified reproducibility assessment: CV* over originals and reproductions "
    "(reprokg qra)",
    "seed-comparison": "two experiments compared over their runs: ASO, P(A > B), IQM "
    "(reprokg stability --compare)",
    "critical-difference": "experiments ranked over blocks of runs: Friedman, Nemenyi CD "
    "(reprokg stability --cd)",
    "run": "a run and its PRIMAD metadata",
    "passport": "a paper's reproducibility passport (reprokg passport)",
}


def export_query(iri: str) -> str:
    return f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH <{iri}> {{ ?s ?p ?o }} }}"


def canonical_ntriples(g: Graph) -> bytes:
    """The graph as sorted N-Triples lines: the same triples, the same bytes."""
    text = g.serialize(format="nt", encoding="utf-8")
    lines = sorted({ln for ln in text.decode("utf-8").splitlines() if ln.strip()})
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""


def _jsonld(g: Graph) -> bytes:
    return bind_prefixes(g).serialize(format="json-ld", indent=2).encode("utf-8")


def _run_query(store: Store, query: str) -> Graph:
    res = store.query(query)
    assert isinstance(res, GraphResult)
    return res.graph


def _document_of(store: Store, node: URIRef, kind: str) -> URIRef | None:
    """The document of ``kind`` that describes ``node`` (a run is typed in the comparisons
    and evaluations that name it too)."""
    res = store.query(
        f"SELECT ?g WHERE {{ GRAPH ?g {{ <{node}> ?p ?o . ?g <{RK.documentKind}> "
        f'"{kind}" }} }} ORDER BY ?g LIMIT 1'
    )
    assert isinstance(res, SelectResult)
    return URIRef(str(res.rows[0][0])) if res.rows else None


def _tag(tree: dict[str, Any], fallback: str) -> str:
    return str(tree.get("tag") or fallback)


def run_record(store: Store, run: URIRef, key: str) -> CrateRun | None:
    """A run's PRIMAD (from its stored ``run`` document) and its run lines when kept."""
    doc = _document_of(store, run, "run")
    if doc is None:
        return None
    g = store.get_document(doc)
    if (run, RDF.type, RK.Run) not in g:
        return None
    tree = graph_to_dict(g, run)
    tag = _tag(tree, key)
    files = [
        CrateFile(
            f"runs/{key}.ir_metadata.yml",
            graph_to_yaml(g, run).encode("utf-8"),
            f"PRIMAD of run {tag} (ir_metadata)",
            "the run's metadata as ir_metadata YAML",
            media="application/yaml",
            about=str(run),
            conforms_to="https://www.ir-metadata.org/",
        )
    ]
    for rf in g.objects(run, RK.runFile):
        sha = g.value(rf, RK.sha256)
        data = store.get_blob(str(sha)) if sha is not None else None
        if data is not None:
            files.append(
                CrateFile(
                    f"runs/{key}.run",
                    data,
                    f"run lines of {tag}",
                    "the ranking (TREC run format)",
                    media="text/plain",
                    about=str(run),
                )
            )
    return CrateRun(key, str(run), tree, files)


def _provenance(g: Graph, subject: URIRef) -> dict[str, Any]:
    """The computation's activity: label, software, parameters, queries, other inputs."""
    out: dict[str, Any] = {"software": {}, "parameters": {}, "queries": {}, "used": []}
    activities = list(g.objects(subject, PROV.wasGeneratedBy)) or [subject]
    for a in activities:
        if (a, RDF.type, PROV.Activity) not in g:
            continue
        label = g.value(a, RDFS.label)
        if label is not None:
            out["label"] = str(label)
        for u in g.objects(a, PROV.used):
            if (u, RDF.type, SCHEMA.SoftwareApplication) in g:
                name, ver = g.value(u, SCHEMA.name), g.value(u, SCHEMA.softwareVersion)
                if name is not None:
                    out["software"][str(name)] = str(ver or "")
            elif (u, RDF.type, RK.ParameterSetting) in g:
                name, val = g.value(u, RK.parameterName), g.value(u, RK.parameterValue)
                if name is not None:
                    out["parameters"][str(name)] = str(val or "")
            elif (u, RDF.type, RK.SparqlQuery) in g:
                text = g.value(u, RK.queryText)
                if text is not None:
                    out["queries"][str(g.value(u, RDFS.label) or u)] = str(text)
            else:
                out["used"].append(u)
    return out


_NAME_QUERY = """PREFIX rk: <https://w3id.org/reprokg/ontology#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX schema: <http://schema.org/>
SELECT ?name WHERE {
  { <%(u)s> rdfs:label|schema:name ?name }
  UNION { ?run rk:runFile <%(u)s> ; rk:runTag ?tag . BIND(CONCAT("run lines of ", ?tag) AS ?name) }
  UNION { GRAPH ?g { <%(u)s> a ?type } ?g rk:sourceFileName ?name }
} ORDER BY ?name LIMIT 1"""


def _name_of(store: Store, u: URIRef) -> str:
    res = store.query(_NAME_QUERY % {"u": str(u)})
    assert isinstance(res, SelectResult)
    return str(res.rows[0][0]) if res.rows else str(u).rsplit("/", 1)[-1]


def _inputs(
    store: Store, g: Graph, used: list[URIRef], runs: list[CrateRun]
) -> list[CrateFile | CrateInput]:
    """Each input as a file where the store keeps its bytes (a run's lines are the run's
    file), else as a reference."""
    out: list[CrateFile | CrateInput] = []
    documents = {str(d) for d in store.documents()}
    held = {sha256_of(f.data): f for r in runs for f in r.files}
    for k, u in enumerate(sorted(set(used), key=str)):
        sha = g.value(u, RK.sha256)
        name = _name_of(store, u)
        if str(u) in documents:
            dg = store.get_document(u)
            sha = dg.value(u, RK.sourceSha256)
            name = str(dg.value(u, RK.sourceFileName) or name)
        data = store.get_blob(str(sha)) if sha is not None else None
        if data is not None and sha256_of(data) in held:
            out.append(held[sha256_of(data)])
        elif data is not None:
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80]
            out.append(
                CrateFile(
                    f"inputs/{k}-{safe}",
                    data,
                    name,
                    f"input {u}",
                    media="text/plain",
                    about=str(u),
                )
            )
        else:
            out.append(
                CrateInput(
                    str(u),
                    name,
                    str(sha) if sha is not None else None,
                    "input named by the computation; its bytes are not kept in the store",
                )
            )
    return out


def result_json(g: Graph, kind: str, subject: URIRef) -> dict[str, Any] | None:
    """The result's JSON: a comparison's rebuilt from its triples, the others' stored one."""
    if kind == "comparison":
        from reprokg.measures.comparison_document import comparison_json

        return comparison_json(g, subject)
    if kind == "evaluation":
        return evaluation_json(g)
    for node in [subject, *g.objects(subject, PROV.wasGeneratedBy)]:
        for lit in g.objects(node, RDF.value):
            if isinstance(lit, Literal) and lit.datatype == RDF.JSON:
                return json.loads(str(lit))
    for _s, lit in g.subject_objects(RDF.value):
        if isinstance(lit, Literal) and lit.datatype == RDF.JSON:
            return json.loads(str(lit))
    return None


def evaluation_json(g: Graph) -> dict[str, Any]:
    """An evaluation's runs and their reported scores, read from its triples."""
    runs = []
    for run in sorted(g.subjects(RDF.type, RK.Run), key=str):
        scores = {}
        for v in g.objects(run, RK.reportedScore):
            name, x = g.value(v, RK.measureName), g.value(v, MLS.hasValue)
            if name is not None and x is not None:
                scores[str(name)] = {
                    "ir_measures": str(g.value(v, RK.irMeasuresName) or name),
                    "value": float(str(x)),  # a Literal is a str: the same number
                }
        runs.append({"run": str(run), "scores": dict(sorted(scores.items()))})
    return {"runs": runs}


def _authors(g: Graph, doc: URIRef) -> list[Person]:
    out = []
    for p in g.objects(doc, PROV.wasAttributedTo):
        if (p, RDF.type, SCHEMA.Person) in g:
            out.append(Person(str(p), str(g.value(p, SCHEMA.name) or p)))
    return out


def _outputs(stem: str, data: dict[str, Any] | None, table: Table | None) -> list[CrateFile]:
    out = []
    if data is not None:
        out.append(
            CrateFile(
                f"{stem}.json",
                (json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode(
                    "utf-8"
                ),
                f"{stem} (JSON)",
                "the result as the command line and the HTTP API answer it",
                media="application/json",
            )
        )
    if table is not None and table.rows:
        out.append(
            CrateFile(
                f"{stem}.csv",
                csv_bytes(table),
                f"{stem} (CSV table)",
                table.caption,
                media="text/csv",
            )
        )
        svg = bar_chart(table)
        if svg is not None:
            out.append(
                CrateFile(
                    f"{stem}.svg",
                    svg.encode("utf-8"),
                    f"{stem} (chart)",
                    f"the first values of the table: {table.caption}",
                    media="image/svg+xml",
                )
            )
    return out


def _runs_of(store: Store, g: Graph, subject: URIRef) -> list[CrateRun]:
    """The runs a result compared (original, reproduction) or evaluated (any other run)."""
    runs = []
    seen: set[URIRef] = set()
    for role, pred in (("original", RK.originalRun), ("reproduction", RK.reproducingRun)):
        for i, node in enumerate(sorted(g.objects(subject, pred), key=str)):
            run = cast(URIRef, node)  # comparisons name their runs by IRI
            seen.add(run)
            rec = run_record(store, run, f"{role}-{i}")
            if rec is not None:
                runs.append(rec)
    others = sorted((r for r in g.subjects(RDF.type, RK.Run) if r not in seen), key=str)
    for i, other in enumerate(others):
        if isinstance(other, URIRef):
            rec = run_record(store, other, f"run-{i}")
            if rec is not None:
                runs.append(rec)
    return runs


def document_content(store: Store, doc: URIRef) -> CrateContent:
    """The crate content of one stored document: a computed result of any kind, or a run."""
    g = store.get_document(doc)
    if len(g) == 0:
        raise NotFound(f"no document {doc}")
    kind = str(g.value(doc, RK.documentKind) or "document")
    subject = g.value(predicate=PROV.wasDerivedFrom, object=doc)
    if not isinstance(subject, URIRef):
        subject = doc
    created = str(g.value(doc, PROV.generatedAtTime) or "1970-01-01T00:00:00Z")
    query = export_query(str(doc))
    exported = _run_query(store, query)
    label = str(g.value(subject, RDFS.label) or "")
    title = f"{kind}: {label}" if label else f"{kind} {str(subject).rsplit('/', 1)[-1]}"
    content = CrateContent(
        kind=kind,
        subject=str(subject),
        title=title,
        description=f"{KIND_LABELS.get(kind, kind)}, exported by reprokg with its inputs, "
        "software, provenance and graph",
        created=created,
        export_query=query,
        graph_ntriples=canonical_ntriples(exported),
        graph_jsonld=_jsonld(exported),
        authors=_authors(g, doc),
    )
    loader = g.value(doc, RK.loaderName)
    version = g.value(doc, RK.loaderVersion)
    if kind == "run" or (subject, RDF.type, RK.Run) in g:
        rec = run_record(store, subject, "run")
        if rec is not None:
            content.runs.append(rec)
        content.activity = f"loaded by {loader} {version}" if loader else "loaded"
        content.software = {"reprokg": str(g.value(predicate=SCHEMA.softwareVersion) or "")}
        content.software = {k: v for k, v in content.software.items() if v}
        content.cites = sorted(
            str(p)
            for goal in g.objects(subject, RK.researchGoal)
            for p in g.objects(goal, RK.publication)
            if str(p).startswith("https://doi.org/")
        )
        return content
    prov = _provenance(g, subject)
    content.activity = prov.get("label", "")
    content.software = prov["software"]
    content.parameters = prov["parameters"]
    content.queries = prov["queries"]
    content.runs = _runs_of(store, g, subject)
    content.inputs = _inputs(store, g, prov["used"], content.runs)
    data = result_json(g, kind, subject)
    if kind == "comparison" and data is not None:
        # as GET /comparisons/{id} answers it: with the verdicts stored for it
        from reprokg.evidence.verdicts import stored_verdicts

        verdicts = stored_verdicts(store, str(subject))
        if verdicts:
            data["verdicts"] = verdicts
            content.related = [v["assessment"] for v in verdicts]
    content.outputs = _outputs("result", data, table_of(kind, data))
    content.cites = sorted(
        {
            str(o)
            for o in g.objects()
            if isinstance(o, URIRef) and str(o).startswith("https://doi.org/")
        }
    )
    return content


def passport_content(store: Store, paper: str) -> CrateContent:
    """A work's passport (:func:`reprokg.evidence.passport.passport`, the SPARQL behind each
    part) as crate content: the JSON, its verdicts as a table, the PRIMAD of the runs it
    names."""
    from reprokg.evidence.passport import passport, sparql

    found = passport(store, paper, runs_limit=None)  # a crate holds every run
    data = found.to_json()
    queries = {
        path.rsplit("/", 1)[-1].removesuffix(".rq"): q for path, (_t, q) in sparql(paper).items()
    }
    query = (
        f"CONSTRUCT {{ <{paper}> ?p ?o . ?s ?q <{paper}> }} WHERE "
        f"{{ {{ <{paper}> ?p ?o }} UNION {{ ?s ?q <{paper}> }} }}"
    )
    exported = _run_query(store, query)
    content = CrateContent(
        kind="passport",
        subject=paper,
        title=f"Reproducibility passport: {found.title or paper}",
        description=f"{KIND_LABELS['passport']}: {found.summary.text}",
        created=_latest(store),
        export_query=query,
        graph_ntriples=canonical_ntriples(exported),
        graph_jsonld=_jsonld(exported),
        activity="reproducibility passport (reprokg passport)",
        queries=queries,
        software={"reprokg": _reprokg_version()},
        cites=[paper] if paper.startswith("https://doi.org/") else [],
    )
    content.outputs = _outputs("passport", data, table_of("passport", data))
    seen: set[str] = set()
    for i, row in enumerate(data.get("runs", [])):
        run = row.get("run")
        if not run or run in seen:
            continue
        seen.add(run)
        rec = run_record(store, URIRef(run), f"run-{i}")
        if rec is not None:
            content.runs.append(rec)
    return content


def _reprokg_version() -> str:
    from reprokg import __version__

    return __version__


def _latest(store: Store) -> str:
    res = store.query(
        "SELECT (MAX(?t) AS ?m) WHERE { GRAPH ?g "
        "{ ?g <http://www.w3.org/ns/prov#generatedAtTime> ?t } }"
    )
    assert isinstance(res, SelectResult)
    value = res.rows[0][0] if res.rows else None
    return str(value) if value is not None else "1970-01-01T00:00:00Z"


#: the formats :func:`document_text` writes a stored document in
DOCUMENT_FORMATS = ("turtle", "nquads", "yaml")


def crate_content(store: Store, ident: str) -> CrateContent:
    """The crate content of ``ident`` (``reprokg export crate``, ``reprokg.export``): a DOI
    (the paper's passport), or a document (a short id, id or IRI, through the one resolver
    :func:`reprokg.store.catalog.resolve`): a computed result of any kind, or a run."""
    from reprokg.core.identifiers import is_doi

    if is_doi(ident.strip()):
        from reprokg.evidence.passport import work_iri

        return passport_content(store, work_iri(ident.strip(), None))
    from reprokg.store.catalog import resolve

    return document_content(store, resolve(store, ident).document)


def document_text(store: Store, ident: str, fmt: str = "turtle") -> str:
    """One stored document (a short id, id or IRI) written back (``reprokg export``,
    ``reprokg.export``): as Turtle, as N-Quads in its named graph, or as the YAML of the
    source format it came from (an ir_metadata run header)."""
    from reprokg.core.errors import UsageError
    from reprokg.store.catalog import resolve

    if fmt not in DOCUMENT_FORMATS:
        raise UsageError(f"format {fmt!r}: expected one of {', '.join(DOCUMENT_FORMATS)}")
    iri = resolve(store, ident).document
    graph = store.get_document(iri)
    if fmt == "yaml":
        subjects = list(graph.subjects(PROV.wasDerivedFrom, iri))
        if not subjects:
            raise UsageError(f"{iri} names no subject to export as YAML")
        return graph_to_yaml(graph, str(subjects[0]))
    if fmt == "nquads":
        import pyoxigraph as ox

        from reprokg.store.oxigraph import graph_quads

        data = ox.serialize(graph_quads(iri, graph), format=ox.RdfFormat.N_QUADS)
        assert data is not None  # no output file given: the bytes are returned
        return data.decode("utf-8")
    return bind_prefixes(graph).serialize(format="turtle")
