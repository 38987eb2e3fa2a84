"""The registry (every study named, cited, with its SPARQL and methods) and results written
back through ingest: validated, with provenance, idempotent, revised, queryable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rdflib.plugins.sparql import prepareQuery

from reprokg.core.errors import NotFound, UsageError
from reprokg.ingest import write_result
from reprokg.studies import study_result
from reprokg.studies.registry import PUBLISHED, REGISTRY, get
from tests.studies.stores import load_into, sources

pytestmark = pytest.mark.slow  # the studies' store its fixture loads

MODULE_API = ("read", "analyze", "format_table", "values", "charts", "is_empty")


def test_the_issue_names_and_more() -> None:
    assert list(REGISTRY)[:4] == ["siggraph2020", "gk2018", "pwc-checklist-2019", "audits"]
    assert "grsi-stamps" in REGISTRY
    with pytest.raises(NotFound, match="registered studies: siggraph2020"):
        get("nope")


@pytest.mark.parametrize("name", list(REGISTRY))
def test_each_study_states_what_it_follows(name: str) -> None:
    s = get(name)
    assert s.default_method == PUBLISHED == s.methods[0].name
    for m in s.methods:
        assert m.summary and len(m.rules) >= 1 and all(len(r) > 20 for r in m.rules)
    assert s.citation and s.follows and s.data and s.title
    impl = s.impl()
    assert all(callable(getattr(impl, f)) for f in MODULE_API), name
    for text in s.sparql().values():
        prepareQuery(text)
    d = s.to_dict()
    assert json.loads(json.dumps(d)) == d
    with pytest.raises(UsageError, match="no method"):
        s.method("nope")


def test_listing_the_studies_imports_nothing_heavy() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from reprokg.studies.registry import REGISTRY; "
        "[s.to_dict() for s in REGISTRY.values()]; "
        "print(sorted(m for m in ('pandas','numpy','scipy','rdflib','matplotlib') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert out.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def fresh_store(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A store of its own: this module writes results into it."""
    from reprokg.store import open_store

    store = open_store(tmp_path_factory.mktemp("write-back") / "store")
    load_into(store, sources(shared_data))
    yield store
    store.close()


@pytest.mark.parametrize("name", list(REGISTRY))
def test_write_back_is_validated_idempotent_and_revised(fresh_store: Any, name: str) -> None:
    s = get(name)
    method = s.methods[-1].name
    res = s.run(fresh_store, method)
    first = write_result(fresh_store, res)
    iri = first.iri
    assert first.status == "added"
    assert first.report is not None and first.report.conforms
    again = write_result(fresh_store, res)
    assert again.status == "unchanged"
    # the stored document: kind, provenance, the study, the method, the JSON, the values
    got = fresh_store.query(
        "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
        "PREFIX prov: <http://www.w3.org/ns/prov#> "
        "SELECT ?kind ?name ?method ?json ?when (COUNT(?v) AS ?values) WHERE { "
        f"GRAPH <{iri}> {{ <{iri}> rk:documentKind ?kind ; prov:generatedAtTime ?when . "
        "?r a rk:StudyResult ; rk:studyName ?name ; rk:analysisMethod ?method ; "
        "<http://www.w3.org/1999/02/22-rdf-syntax-ns#value> ?json . "
        "OPTIONAL { ?r rk:hasStudyValue ?v } } } GROUP BY ?kind ?name ?method ?json ?when"
    )
    (kind, sname, smethod, payload, _when, n_values) = got.rows[0]
    assert (str(kind), str(sname), str(smethod)) == ("study-result", name, method)
    assert json.loads(str(payload)) == json.loads(json.dumps(res.to_json(), default=str))
    assert int(n_values) == len(s.impl().values(res)) > 0
    rev = write_result(fresh_store, _changed(res))
    iri2 = rev.iri
    assert rev.status == "revised" and rev.revision_of == iri
    assert not fresh_store.has_document(iri)
    fresh_store.delete_document(iri2)


def _changed(res: Any) -> Any:
    """``res`` with a note added to its JSON: the same study, method and options (so the
    same document key) and another answer."""
    import dataclasses

    base = type(res)
    changed = dataclasses.make_dataclass("Changed", [], bases=(base,), frozen=True)
    changed.to_json = lambda self: {**base.to_json(self), "note": "changed"}  # type: ignore[method-assign]
    return changed(**{f.name: getattr(res, f.name) for f in dataclasses.fields(res)})


def test_values_carry_statistic_p_adjusted_p_and_n(fresh_store: Any) -> None:
    s = get("siggraph2020")
    res = s.run(fresh_store)
    iri = write_result(fresh_store, res).iri
    rows = fresh_store.query(
        "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
        "SELECT ?name ?p ?adj ?n ?pub WHERE { "
        f"GRAPH <{iri}> {{ ?r rk:recomputedStudy ?pub ; rk:hasStudyValue ?v . "
        "?v rk:valueName ?name ; rk:studyPValue ?p ; rk:sampleSize ?n . "
        "OPTIONAL { ?v rk:adjustedPValue ?adj } } } ORDER BY ?name"
    ).rows
    by_name = {str(r[0]): r for r in rows}
    t = res.to_json()["tests"]["score_by_year"]
    row = by_name["consolidated.tests.score_by_year"]
    assert float(row[1]) == pytest.approx(t["p"]) and float(row[2]) == pytest.approx(
        t["p_adjusted"]
    )
    assert int(row[3]) == 126
    assert str(row[4]) == "https://doi.org/10.1145/3386569.3392413"
    assert by_name["consolidated.tests.anova2_topic"][2] is None  # outside the BH family
    fresh_store.delete_document(iri)


def test_options_at_their_default_do_not_change_the_source_key() -> None:
    s = get("audits")
    assert study_result.source_key(s, PUBLISHED, {}) == "study-result:audits:published"
    assert study_result.source_key(s, PUBLISHED, {"small_max": "0.02"}) == (
        "study-result:audits:published"
    )
    assert study_result.source_key(s, PUBLISHED, {"small_max": "0.03"}) == (
        "study-result:audits:published:small_max=0.03"
    )


@pytest.mark.parametrize("name", list(REGISTRY))
def test_any_store_reads_the_same_rows(fresh_store: Any, name: str) -> None:
    """A store without native queries (a remote one) answers through Store.query and
    rdflib terms: the same rows, so the same result."""

    class QueryOnly:  # what a remote backend offers: query() returning a SelectResult
        def query(self, sparql: str) -> Any:
            return fresh_store.query(sparql)

    s = get(name)
    native = s.run(fresh_store)
    generic = s.run(QueryOnly())
    assert json.dumps(generic.to_json(), sort_keys=True, default=str) == json.dumps(
        native.to_json(), sort_keys=True, default=str
    )


def test_every_ontology_term_the_studies_read_is_declared() -> None:
    """Catches a renamed property (a query would silently return nothing)."""
    import re

    from rdflib import Graph, URIRef
    from rdflib.namespace import RDF

    from reprokg.core.namespaces import RK
    from tests.conftest import REPO

    ontology = Graph()
    for ttl in (REPO / "ontology").glob("*.ttl"):
        ontology.parse(ttl, format="turtle")
    for s in REGISTRY.values():
        for path, text in s.sparql().items():
            used = set(re.findall(r"\brk:([A-Za-z0-9]+)", text))
            missing = sorted(t for t in used if (URIRef(RK[t]), RDF.type, None) not in ontology)
            assert not missing, f"{path} uses undeclared rk: terms {missing}"


def test_a_module_that_breaks_the_study_contract_is_refused_by_its_missing_parts() -> None:
    """``impl`` checks the module against ``StudyModule`` (a typing.Protocol), not by
    ``hasattr`` at the place that calls it."""
    import dataclasses

    from reprokg.core.errors import ReprokgError
    from reprokg.studies.plugin import StudyModule

    assert all(isinstance(s.impl(), StudyModule) for s in REGISTRY.values())
    bad = dataclasses.replace(get("audits"), module="reprokg.studies.fca")
    with pytest.raises(ReprokgError, match=r"reprokg.studies.fca .* lacks read, analyze"):
        bad.impl()


@pytest.mark.parametrize("name", ["gk2018", "pwc-checklist-2019"])
def test_study_result_json_and_graph_come_from_one_object(fresh_store: Any, name: str) -> None:
    """Each StudyValue reads back from the graph with its numbers; the rdf:JSON is the answer."""
    from rdflib.namespace import RDF

    s = get(name)
    r = s.run(fresh_store)
    g = r.to_graph()
    rows = g.query(
        "PREFIX rk: <https://w3id.org/reprokg/ontology#> "
        "SELECT ?name ?stat ?p ?n WHERE { ?r rk:hasStudyValue ?v . ?v rk:valueName ?name . "
        "OPTIONAL { ?v rk:statisticValue ?stat } OPTIONAL { ?v rk:studyPValue ?p } "
        "OPTIONAL { ?v rk:sampleSize ?n } }"
    )
    got = {
        str(n): tuple(None if x is None else x.toPython() for x in (st, p, k))
        for n, st, p, k in rows
    }
    want = {v.name: (v.statistic, v.p, v.n) for v in r.values}
    assert got == want and len(want) > 3
    assert json.loads(str(g.value(r.iri, RDF.value))) == r.to_json()


def test_every_registered_module_is_checked_against_the_contract() -> None:
    """``studies/modules.py`` assigns each study module to ``StudyModule[Inputs, Result]``
    so that mypy checks it; a study registered without its line would escape the check."""
    import ast

    from tests.conftest import REPO

    tree = ast.parse((REPO / "studies" / "modules.py").read_text("utf-8"))
    checked = {
        node.value.id
        for node in ast.walk(tree)
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.value, ast.Name)
        and isinstance(node.annotation, ast.Subscript)
        and ast.unparse(node.annotation.value) == "StudyModule"
    }
    assert checked == {s.module.rsplit(".", 1)[1] for s in REGISTRY.values()}


@pytest.mark.parametrize("name", list(REGISTRY))
def test_a_study_result_is_its_modules_typed_computed_result(fresh_store: Any, name: str) -> None:
    """``run`` returns the study module's own result dataclass (not a JSON dict), which keeps
    the ComputedResult contract and knows its study, method and options."""
    import dataclasses

    from reprokg.core.computed import ComputedResult

    s = get(name)
    res = s.run(fresh_store)
    assert isinstance(res, study_result.StudyResult) and isinstance(res, ComputedResult)
    assert dataclasses.is_dataclass(res) and type(res).__module__ == s.module
    assert (res.study, res.method, dict(res.options)) == (s, s.default_method, {})
    assert isinstance(s.impl().format_table(res), str)


def test_both_data_sets_are_saved_as_one_result_each(fresh_store: Any) -> None:
    """``dataset=both`` answers ``{dataset: analysis}``; it is saved as one document per
    data set, each named by its own data set."""
    res = get("siggraph2020").run(fresh_store, dataset="both")
    answer = res.to_json()
    parts = res.parts()
    assert [dict(p.options) for p in parts] == [
        {"dataset": "consolidated"},
        {"dataset": "per-paper"},
    ]
    assert [p.to_json() for p in parts] == [answer["consolidated"], answer["per-paper"]]
    assert parts[0].key == "study-result:siggraph2020:published"
    assert parts[1].key == "study-result:siggraph2020:published:dataset=per-paper"
