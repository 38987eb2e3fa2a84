"""Audit analytics from the graph: NextClosure against brute-force closure on small
contexts, frequencies/order/derivations against the audit YAML files read here."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from reprokg.studies import audits, fca
from reprokg.studies.registry import AUDITS as AUDIT_STUDY
from tests.conftest import REPO
from tests.studies.stores import AUDITS, studies_store

pytestmark = pytest.mark.slow  # the audit study's store its fixture loads


def brute_force(objects, attributes, incidence):
    """Every (B', B'') for every subset B of attributes: the definition, exponentially."""
    out = set()
    for r in range(len(attributes) + 1):
        for b in itertools.combinations(attributes, r):
            ext = frozenset(g for g in objects if set(b) <= set(incidence.get(g, ())))
            intent = frozenset(a for a in attributes if all(a in incidence[g] for g in ext))
            out.add((ext, intent))
    return out


def brute_force_objects(objects, attributes, incidence):
    """Every (A'', A') for every subset A of objects (for contexts with many attributes)."""
    out = set()
    for r in range(len(objects) + 1):
        for a in itertools.combinations(objects, r):
            intent = frozenset(m for m in attributes if all(m in incidence[g] for g in a))
            ext = frozenset(g for g in objects if intent <= set(incidence.get(g, ())))
            out.add((ext, intent))
    return out


def as_set(found) -> set:
    return {(frozenset(c.extent), frozenset(c.intent)) for c in found}


@pytest.mark.parametrize("seed", range(25))
def test_next_closure_equals_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    objects = [f"g{i}" for i in range(rng.randint(0, 7))]
    attributes = [f"m{j}" for j in range(rng.randint(0, 9))]
    p = rng.random()
    incidence = {g: {a for a in attributes if rng.random() < p} for g in objects}
    found = fca.concepts(objects, attributes, incidence)
    assert len(found) == len(as_set(found))  # each concept once
    assert as_set(found) == brute_force(objects, attributes, incidence)
    assert as_set(found) == brute_force_objects(objects, attributes, incidence)


def test_concepts_come_in_lectic_order() -> None:
    objects, attributes = ["a", "b", "c"], ["x", "y", "z"]
    incidence = {"a": {"x"}, "b": {"y", "z"}, "c": {"x", "z"}}
    intents = [c.intent for c in fca.concepts(objects, attributes, incidence)]
    # lectic order = increasing as binary numbers with x the most significant bit
    nums = [int("".join("1" if a in i else "0" for a in attributes), 2) for i in intents]
    assert nums == sorted(nums)


def test_covering_pairs_of_a_divisibility_order() -> None:
    pairs = fca.covering_pairs([1, 2, 3, 4, 6, 12], lambda x, y: y % x == 0)
    assert set(pairs) == {(1, 2), (1, 3), (2, 4), (2, 6), (3, 6), (4, 12), (6, 12)}


# --- the audits in the graph --------------------------------------------------------------


def _iri(pub: dict[str, Any]) -> str:
    return f"https://doi.org/{pub['doi'].lower()}" if "doi" in pub else pub["url"]


@pytest.fixture(scope="module")
def docs() -> list[dict[str, Any]]:
    return [yaml.safe_load(p.read_text("utf-8")) for p in sorted(AUDITS.glob("*.yaml"))]


@pytest.fixture(scope="module")
def result(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    store = studies_store(shared_data, tmp_path_factory.mktemp("studies-store"))
    return AUDIT_STUDY.run(store).to_json()


def test_frequencies_match_the_yaml(result: dict[str, Any], docs: list[dict[str, Any]]) -> None:
    expected: dict[str, int] = {}
    for d in docs:
        for a in {f["attribute"] for f in d["findings"]}:
            expected[a] = expected.get(a, 0) + 1
    assert result["frequencies"] == expected
    assert result["n_audits"] == len(docs) == 4
    assert sum(result["by_category"].values()) == sum(expected.values())
    assert result["by_category"] == {"data set": 0, "software": 16, "computational result": 4}
    assert sum(result["by_subcategory"].values()) == sum(expected.values())


def test_order_is_the_subset_relation(result: dict[str, Any], docs: list[dict[str, Any]]) -> None:
    sets = {_iri(d["publication"]): {f["attribute"] for f in d["findings"]} for d in docs}
    expected = sorted([a, b] for a in sets for b in sets if a != b and sets[a] <= sets[b])
    assert sorted(result["order"]) == expected
    # the four GNN audits are pairwise incomparable: an antichain, no Hasse edge
    assert result["order"] == [] and result["hasse"] == []
    found = {(frozenset(c["extent"]), frozenset(c["intent"])) for c in result["concepts"]}
    assert found == brute_force_objects(list(sets), list(audits.ATTRIBUTES), sets)
    assert result["attributes"] == {
        p: [a for a in audits.ATTRIBUTES if a in s] for p, s in sorted(sets.items())
    }


def test_derived_r2_r4_against_the_auditors(result: dict[str, Any]) -> None:
    d = result["derived"]["publications"]
    rgcn = d["https://doi.org/10.1007/978-3-319-93417-4_38"]
    assert rgcn["R2"] == {"asserted": True, "derived": True, "agree": True}
    # R4 asserted for BGS only: 1 of 4 data sets strong is not "almost all" ...
    assert rgcn["R4"]["derived"] is False and rgcn["R4"]["agree"] is False
    # ... but within the finding's scope it is derived
    assert rgcn["R4"]["derived_in_scope"] is True
    gcn = d["https://arxiv.org/abs/1609.02907"]
    assert gcn["R2"]["derived"] is True and gcn["R4"]["derived"] is False
    assert result["derived"]["summary"] == {"agree": 3, "disagree": 1, "unknown": 4}
    assert result["derived"]["thresholds"] == {"small_max": 0.02, "strong": 0.05, "almost_all": 0.8}


def test_thresholds_are_study_options(shared_data: Path, tmp_path_factory: Any) -> None:
    from reprokg.core.errors import UsageError

    store = studies_store(shared_data, tmp_path_factory.mktemp("studies-store"))
    loose = AUDIT_STUDY.run(store, almost_all="0.25").to_json()
    rgcn = loose["derived"]["publications"]["https://doi.org/10.1007/978-3-319-93417-4_38"]
    assert rgcn["R4"]["derived"] is True and rgcn["R4"]["agree"] is True
    assert loose["derived"]["thresholds"]["almost_all"] == 0.25
    with pytest.raises(UsageError, match="between 0 and 1"):
        AUDIT_STUDY.run(store, strong=2)
    with pytest.raises(UsageError, match="no option"):
        AUDIT_STUDY.run(store, tolerance=0.1)


def test_hasse_on_a_chain_with_a_tie() -> None:
    f = pd.DataFrame(
        [
            {"audit": 1, "publication": "A", "attribute": "S1"},
            {"audit": 2, "publication": "B", "attribute": "S1"},
            {"audit": 2, "publication": "B", "attribute": "S4"},
            {"audit": 3, "publication": "C", "attribute": "S1"},
            {"audit": 3, "publication": "C", "attribute": "S4"},
            {"audit": 3, "publication": "C", "attribute": "R4"},
            {"audit": 4, "publication": "D", "attribute": "S1"},
        ]
    )
    res = audits.analyze_frames(f, publications=["E"])
    assert res["equivalent"] == [["A", "D"]]
    # E asserted nothing: at least as reproducible as everyone
    assert ["E", "C"] in res["order"] and ["C", "E"] not in res["order"]
    assert res["hasse"] == [["A", "B"], ["B", "C"], ["E", "A"]]


def test_values_derive_differences_from_reported_and_reproduced() -> None:
    f = pd.DataFrame([{"audit": 1, "publication": "P", "attribute": "R4"}])
    m = pd.DataFrame(
        [
            {"publication": "P", "metric": "acc", "reported": 0.80, "reproduced": 0.70},
            {"publication": "P", "metric": "f1", "reported": 0.50, "reproduced": 0.49},
        ]
    )
    res = audits.analyze_frames(f, m)["derived"]["publications"]["P"]
    assert [x["class"] for x in res["metrics"]] == ["strong", "small"]
    assert res["metrics"][0]["relative_difference"] == pytest.approx(0.125)
    assert res["R4"]["derived"] is False  # 1 of 2 strong < 80%


def test_scheme_matches_the_ontology() -> None:
    from rdflib import Graph, Namespace

    g = Graph().parse(REPO / "ontology" / "reprokg.ttl")
    skos = Namespace("http://www.w3.org/2004/02/skos/core#")
    rk = Namespace("https://w3id.org/reprokg/ontology#")

    def label(node: Any) -> str:
        return str(g.value(node, skos.prefLabel)).removesuffix(" (category)").lower()

    for attr, (cat, sub) in audits.ATTRIBUTE_SCHEME.items():
        parent = g.value(rk[attr], skos.broader)
        if sub is None:
            assert label(parent) == cat, attr
        else:
            assert label(parent) == sub, attr
            assert label(g.value(parent, skos.broader)) == cat, attr
