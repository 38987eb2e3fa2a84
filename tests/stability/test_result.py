"""One object, two views: a :class:`StabilityResult`'s JSON answer and its document come
from the same fields, and what the graph holds reads back with the package's own queries
(the web view's ``stability.rq``) as the numbers of the JSON."""

from __future__ import annotations

from typing import Any

import pytest
from rdflib import URIRef
from rdflib.namespace import PROV, RDF, RDFS

from reprokg.core.namespaces import RK, SCHEMA
from reprokg.ingest import write_result
from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.stability.observations import OBSERVATIONS_QUERY, observations_query
from reprokg.stability.study import analyse_study
from tests.stability.stores import SMALL_TITLE, build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    s = build_store(tmp_path_factory.mktemp("stability-result"), examples=False)
    yield s
    s.close()


def test_stored_result_reads_back_as_its_json(store: Any) -> None:
    analysis = analyse_study(store, SMALL_TITLE, pairs=[("a", "c")])
    result = analysis.result
    answer = result.to_json()
    write_result(store, result)
    # the web view's query over the stored document: each tested hypothesis's p and decision
    rows = select_rows(store, package_query("service/web/queries/stability.rq").bind({}))
    got = {
        r["hypothesis"].rsplit("#", 1)[1]: (r["p"], r["decision"].rsplit("#", 1)[1])
        for r in rows
        if r["study"] == analysis.study.iri and r.get("hypothesis")
    }
    decisions = {"rejected": "HypothesisRejected", "not_rejected": "HypothesisNotRejected"}
    want = {
        h: (v["p"], decisions[v["decision"]])
        for h, v in answer["hypotheses"].items()
        if v["p"] is not None
    }
    assert got == want and {"H1", "H2"} <= set(want)  # no reruns here: H3 untested
    # every contrast: its experiments and numbers as the JSON names them
    contrasts = select_rows(
        store,
        """PREFIX rk: <https://w3id.org/reprokg/ontology#>
           PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
           SELECT ?a ?b ?est ?p WHERE { ?x a rk:ContrastEstimate ; rk:estimate ?est ;
             rk:pValue ?p ; rk:contrastMinuend/rdfs:label ?a ;
             rk:contrastSubtrahend/rdfs:label ?b }""",
    )
    assert {f"{r['a']} - {r['b']}": (r["est"], r["p"]) for r in contrasts} == {
        k: (v["estimate"], v["p"]) for k, v in answer["contrasts"].items()
    }


def test_document_records_what_computed_it(store: Any) -> None:
    """Provenance from the one builder: the inputs, the SPARQL that read them, the software
    and the parameters, on the activity that generated the analysis."""
    analysis = analyse_study(store, SMALL_TITLE, metric="accuracy", alpha=0.01)
    doc = analysis.result.document()
    g = doc.graph
    (activity,) = g.objects(doc.subject, PROV.wasGeneratedBy)
    used = set(g.objects(activity, PROV.used))
    assert {URIRef(d) for d in analysis.study.documents} <= used
    (query,) = (u for u in used if (u, RDF.type, RK.SparqlQuery) in g)
    assert str(g.value(query, RDFS.label)) == OBSERVATIONS_QUERY
    assert str(g.value(query, RK.queryText)) == observations_query(analysis.study)
    assert analysis.study.iri in str(g.value(query, RK.queryText))
    software = {
        str(g.value(u, SCHEMA.name)) for u in used if (u, RDF.type, SCHEMA.SoftwareApplication) in g
    }
    assert software == {"reprokg", "numpy", "scipy", "pandas"}
    params = {
        str(g.value(u, RK.parameterName)): str(g.value(u, RK.parameterValue))
        for u in used
        if (u, RDF.type, RK.ParameterSetting) in g
    }
    assert params == {"method": "REML", "alpha": "0.01", "metric": "accuracy"}
