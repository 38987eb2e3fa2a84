"""Stability studies: loader, shapes, and the seed-003 hypothesis tests read from the paper."""

# ruff: noqa: E501

from __future__ import annotations

import re

import pytest
from rdflib import RDF, RDFS, XSD, Literal

from reprokg.core.errors import LoadError
from reprokg.core.namespaces import RK
from reprokg.loaders import stability
from reprokg.validation.engine import validate_document
from tests.conftest import REPO, need

EXAMPLES = REPO / "examples" / "stability"
SEED = REPO.parent / "shared" / "seeds" / "003_96923584e54dbb64.md"


def example(name: str = "fewshot_seed003.yaml"):
    return stability.load((EXAMPLES / name).read_bytes(), name)[0]


def seed_table2_pvalues() -> dict[str, float]:
    need(SEED.is_file(), f"seed {SEED} is missing")
    text = SEED.read_text(encoding="utf-8")
    table = text.split("Table 2: Means comparisons", 1)[1].split("\n\n", 2)[1]
    out = {}
    for line in table.splitlines():
        cells = line.split("\t")
        if len(cells) == 6 and cells[0]:  # the header row has an empty first cell
            out[cells[0]] = float(cells[5])
    return out


def test_h3_tests_carry_the_papers_p_values() -> None:
    paper = seed_table2_pvalues()
    # the paper: "only 2 are statistically significant ... Matching Networks with the adam
    # optimizer and TADAM with the adam optimizer"
    significant = {k for k, p in paper.items() if p < 0.05}
    assert significant == {"m-net-adam", "tadam-adam"}
    g = example().graph
    h3 = sorted(float(g.value(t, RK.pValue)) for t in g.subjects(RK.testedHypothesis, RK.H3))
    assert h3 == sorted(paper[k] for k in significant)
    for t in g.subjects(RK.testedHypothesis, RK.H3):
        assert g.value(t, RK.decision) == RK.HypothesisRejected


def test_h1_h2_not_rejected_as_in_table_1() -> None:
    g = example().graph
    for h in (RK.H1, RK.H2):
        (t,) = list(g.subjects(RK.testedHypothesis, h))
        assert g.value(t, RK.decision) == RK.HypothesisNotRejected
        assert float(g.value(t, RK.pValue)) == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fewshot_seed003.yaml", "fewshot_seed003.csv"])
def test_examples_conform_and_say_they_are_illustrative(name: str) -> None:
    doc = example(name)
    report = validate_document(doc)
    assert report.conforms, report.to_text()
    assert (doc.subject, RK.isIllustrative, Literal(True)) in doc.graph
    assert any(r.severity == "Info" and r.path == "study.illustrative" for r in report.results)


def test_runs_seeds_repeats_and_configurations() -> None:
    g = example().graph
    runs = list(g.subjects(RDF.type, RK.StabilityRun))
    assert len(runs) == 3
    seeds = sorted(int(g.value(r, RK.randomSeed)) for r in runs)
    assert seeds == [1234, 7654, 7654]
    # the same hyper-parameters give one configuration node shared by all runs
    (cfg,) = set(g.subjects(RDF.type, RK.HyperParameterConfiguration))
    assert str(g.value(cfg, RK.configurationName)) == "c1"
    values = {
        str(g.value(a, RK.hyperParameterName)): g.value(a, RK.hyperParameterValue)
        for a in g.subjects(RDF.type, RK.HyperParameterAssignment)
    }
    assert values["query_shots"] == Literal(15, datatype=XSD.integer)
    assert values["lr_decay_rate"].datatype == XSD.decimal


@pytest.mark.slow
def test_csv_is_the_papers_design_and_reruns_share_configurations() -> None:
    g = example("fewshot_seed003.csv").graph
    runs = list(g.subjects(RDF.type, RK.StabilityRun))
    assert len(runs) == 1083
    exps = {str(g.value(e, RDFS.label)): e for e in g.subjects(RDF.type, RK.StabilityExperiment)}
    assert len(exps) == 12 and {"m-net-adam-1", "m-net-adam-2", "tadam-sgd-2"} <= set(exps)
    assert str(g.value(exps["m-net-sgd-1"], RK.algorithmName)) == "Matching Networks"
    assert str(g.value(exps["m-net-sgd-1"], RK.optimizerName)) == "sgd"
    # 3 algorithms x 2 optimizers x 5 configurations, each shared by the two reruns
    configs = set(g.subjects(RDF.type, RK.HyperParameterConfiguration))
    assert len(configs) == 30
    assert {str(g.value(c, RK.configurationName)) for c in configs} == {
        f"c{i}" for i in range(1, 6)
    }
    for run in runs:
        assert len(list(g.objects(run, RK.usesConfiguration))) == 1

    def configs_of(exp: str) -> set:
        rs = g.subjects(RK.inExperiment, exps[exp])
        return {g.value(r, RK.usesConfiguration) for r in rs}

    assert configs_of("m-net-adam-1") == configs_of("m-net-adam-2")
    assert len(configs_of("m-net-adam-1")) == 5
    assert not configs_of("m-net-adam-1") & configs_of("m-net-sgd-1")


def test_csv_example_is_the_generator_output() -> None:
    """The paper-sized example is made up, by code: the file equals what it generates."""
    from reprokg.stability.simulate import example_csv

    assert (EXAMPLES / "fewshot_seed003.csv").read_text(encoding="utf-8") == example_csv(3)


CSV_HEAD = "# stability: 1\n# title: t\nexperiment,algorithm,seed,repeat,metric,value,hp.lr,hp.k\n"


def _csv(*rows: str, header: str = CSV_HEAD):
    return stability.load((header + "\n".join(rows) + "\n").encode(), "s.csv")[0]


def test_configuration_name_derived_from_hyper_parameters() -> None:
    g = _csv("e1,A,1,1,acc,0.5,0.01,3", "e1,A,2,1,acc,0.6,0.01,3", "e1,A,1,1,acc,0.7,0.02,3").graph
    names = sorted(str(n) for n in g.objects(None, RK.configurationName))
    assert names == ["k=3, lr=0.01", "k=3, lr=0.02"]
    assert stability.configuration_name([]) is None


def test_configuration_column_names_the_configuration() -> None:
    head = CSV_HEAD.replace("experiment,", "experiment,configuration,")
    doc = _csv("e1,c1,A,1,1,acc,0.5,0.01,3", "e2,c1,A,1,1,acc,0.6,0.01,3", header=head)
    g = doc.graph
    (cfg,) = set(g.subjects(RDF.type, RK.HyperParameterConfiguration))  # shared by reruns
    assert str(g.value(cfg, RK.configurationName)) == "c1"
    assert validate_document(doc).conforms
    # two configurations without hyper-parameters, same seed and repeat: two runs
    head2 = "# stability: 1\n# title: t\nexperiment,algorithm,configuration,seed,metric,value\n"
    g2 = _csv("e1,A,c1,1,acc,0.5", "e1,A,c2,1,acc,0.6", header=head2).graph
    assert len(set(g2.subjects(RDF.type, RK.StabilityRun))) == 2


def test_one_configuration_name_with_two_hyper_parameter_sets_is_an_error() -> None:
    head = CSV_HEAD.replace("experiment,", "experiment,configuration,")
    with pytest.raises(LoadError) as exc:
        _csv("e1,c1,A,1,1,acc,0.5,0.01,3", "e1,c1,A,2,1,acc,0.6,0.02,3", header=head)
    assert exc.value.field == "configuration" and exc.value.line == 5
    assert "line 4" in str(exc.value)


def _mutated(old: str, new: str, count: int = 1):
    text = (EXAMPLES / "fewshot_seed003.yaml").read_text(encoding="utf-8")
    assert old in text
    return stability.load(text.replace(old, new, count).encode(), "s.yaml")[0]


@pytest.mark.parametrize(
    ("old", "new", "severity", "path"),
    [
        ("    p_value: 1\n", "    p_value: 1.5\n", "Violation", "hypotheses[].p_value"),
        ("    decision: not_rejected\n", "", "Warning", "hypotheses[].decision"),
        (
            "    test: likelihood ratio test of the repeat random effect (Table 1, (1 | repeats))\n",
            "",
            "Warning",
            "hypotheses[].test",
        ),
        ("    optimizer: adam\n", "", "Warning", "optimizer"),
        ("    seed: 7654\n", "", "Warning", "seed"),
        ("    repeat: 1\n", "    repeat: 0\n", "Violation", "repeat"),
    ],
)
def test_stability_shape_reports_what_is_wrong(
    old: str, new: str, severity: str, path: str
) -> None:
    report = validate_document(_mutated(old, new, -1 if path == "optimizer" else 1))
    found = [r for r in report.results if r.severity == severity and r.path == path]
    assert found, report.to_text()
    assert all(path in r.message for r in found)


@pytest.mark.parametrize(
    ("old", "new", "field", "needle"),
    [
        ("  - id: H1\n", "  - id: H4\n", "hypotheses[0].id", "H4"),
        ("    value: 0.6012\n", "    value: 60,12%\n", "value", "not a number"),
        ("    seed: 7654\n", "    seed: seven\n", "seed", "not an integer"),
        ("stability: 1\n", "stability: 2\n", "stability", "stability: 1"),
        ("    decision: rejected\n", "    decision: maybe\n", "hypotheses[2].decision", "maybe"),
        ("    metric: test accuracy\n", "", "metric", "missing metric"),
    ],
)
def test_loader_errors_name_the_field(old: str, new: str, field: str, needle: str) -> None:
    with pytest.raises(LoadError) as exc:
        _mutated(old, new)
    assert exc.value.field == field
    assert needle in str(exc.value)


def test_sniff() -> None:
    assert stability.sniff("x.yaml", "stability: 1\ntitle: x\n")
    assert stability.sniff("x.csv", "# stability: 1\n# title: x\nexperiment,algorithm\n")
    assert not stability.sniff("x.yaml", "audit: 1\n")
    for name in ("fewshot_seed003.yaml", "fewshot_seed003.csv"):
        assert stability.sniff(name, (EXAMPLES / name).read_text(encoding="utf-8")[:4096])


def test_same_content_same_iris() -> None:
    a, b = example(), example()
    assert set(a.graph) == set(b.graph)
    assert re.match(r"^https://w3id\.org/reprokg/id/stability-study/[0-9a-f]{20}$", str(a.subject))


def test_the_documented_example_loads_and_conforms() -> None:
    text = (REPO / "docs" / "audit-format.md").read_text(encoding="utf-8")
    example = re.findall(r"```yaml\n(.*?)```", text, re.S)[1]
    doc = stability.load(example.encode(), "doc.yaml")[0]
    report = validate_document(doc)
    assert report.conforms, report.to_text()
