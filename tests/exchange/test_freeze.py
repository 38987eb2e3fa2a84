"""``reprokg freeze``: DataCite 4.7 XML valid against DataCite's own XSD (shipped in
tests/exchange/data/datacite-4.7, validated with lxml), its JSON saying the same, a LaTeX
tabular that is well formed, and a CSV that holds exactly the comparison's JSON."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from reprokg.cli import main
from tests.conftest import need
from tests.exchange.conftest import DATA, PAPER, documents_by_kind

NS = {"d": "http://datacite.org/schema/kernel-4"}
ORCID = "0000-0002-1825-0097"  # ORCID's own example iD (valid check digit)


def _schema():
    try:
        from lxml import etree
    except ImportError:
        need(False, "lxml (test extra) is not installed")
        raise
    return etree, etree.XMLSchema(etree.parse(str(DATA / "datacite-4.7" / "metadata.xsd")))


def _comparison_id(store: Path) -> str:
    from reprokg.store import open_store

    with open_store(store, read_only=True) as s:
        return documents_by_kind(s)["comparison"][0].rsplit("/", 1)[-1]


def _freeze(result_store: Path, out: Path, *more: str) -> Path:
    code = main(
        [
            "freeze",
            _comparison_id(result_store),
            "-o",
            str(out),
            "--store",
            str(result_store),
            "--creator",
            f"Carberry, Josiah;{ORCID}",
            "--creator",
            "=The reprokg project",
            "--version",
            "1.2",
            *more,
        ]
    )
    assert code == 0
    return out


@pytest.fixture(scope="module")
def frozen(result_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _freeze(result_store, tmp_path_factory.mktemp("freeze") / "deposit")


@pytest.fixture(scope="module")
def frozen_full(result_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The deposit with the comparison's every value in its tables (``--full``)."""
    return _freeze(result_store, tmp_path_factory.mktemp("freeze") / "full", "--full")


def test_the_schema_check_works() -> None:
    """A positive and a negative control: DataCite's own example passes, and the same
    example without its publisher fails."""
    etree, schema = _schema()
    example = DATA / "datacite-4.7" / "example" / "datacite-example-relationtypeinformation-v4.xml"
    doc = etree.parse(str(example))
    assert schema.validate(doc)
    pub = doc.getroot().find("d:publisher", NS)
    pub.getparent().remove(pub)
    assert not schema.validate(doc)


def test_datacite_xml_is_valid(frozen: Path) -> None:
    etree, schema = _schema()
    doc = etree.parse(str(frozen / "datacite.xml"))
    assert schema.validate(doc), schema.error_log


def test_datacite_says_who_what_and_what_it_reproduces(frozen: Path) -> None:
    root = ET.parse(frozen / "datacite.xml").getroot()
    creators = root.findall("d:creators/d:creator", NS)
    assert [c.findtext("d:creatorName", namespaces=NS) for c in creators] == [
        "Carberry, Josiah",
        "The reprokg project",
    ]
    assert creators[0].findtext("d:givenName", namespaces=NS) == "Josiah"
    assert creators[0].findtext("d:nameIdentifier", namespaces=NS) == f"https://orcid.org/{ORCID}"
    assert creators[1].find("d:creatorName", NS).get("nameType") == "Organizational"
    rel = [
        (e.get("relationType"), e.get("relationTypeInformation"), e.text)
        for e in root.findall("d:relatedIdentifiers/d:relatedIdentifier", NS)
    ]
    # the demo compares a re-run with the original run that repro_eval's example header
    # reports for this paper (examples/runs/annotated_run_example.txt)
    header = Path(__file__).parents[2] / "examples" / "runs" / "annotated_run_example.txt"
    doi = re.search(r"doi: *(\S+)", header.read_text()).group(1).lower()
    assert doi.removeprefix("https://doi.org/") == PAPER.lower()
    assert ("Other", "reproduces", PAPER) in rel
    assert sum(1 for r in rel if r[0] == "IsDerivedFrom") >= 3  # qrels and both runs
    assert root.findtext("d:version", namespaces=NS) == "1.2"
    # the demo stores a verdict of the comparison (rule arp-within-5pct): it reviews it
    reviews = [r for r in rel if r[0] == "IsReviewedBy"]
    assert len(reviews) == 1 and "/assessment/" in reviews[0][2]
    methods = root.find("d:descriptions/d:description[@descriptionType='Methods']", NS).text
    assert "Verdict of rule arp-within-5pct" in methods
    rights = root.find("d:rightsList/d:rights", NS)
    assert rights.get("rightsIdentifier") == "cc-by-4.0"
    info = root.find("d:descriptions/d:description[@descriptionType='TechnicalInfo']", NS).text
    assert "reprokg" in info and "ir-measures" in info


def test_json_says_what_the_xml_says(frozen: Path) -> None:
    root = ET.parse(frozen / "datacite.xml").getroot()
    js = json.loads((frozen / "datacite.json").read_text())
    assert js["doi"] == root.findtext("d:identifier", namespaces=NS)
    assert [c["name"] for c in js["creators"]] == [
        c.text for c in root.findall("d:creators/d:creator/d:creatorName", NS)
    ]
    assert [
        (r["relationType"], r.get("relationTypeInformation"), r["relatedIdentifier"])
        for r in js["relatedIdentifiers"]
    ] == [
        (e.get("relationType"), e.get("relationTypeInformation"), e.text)
        for e in root.findall("d:relatedIdentifiers/d:relatedIdentifier", NS)
    ]
    assert js["publicationYear"] == int(root.findtext("d:publicationYear", namespaces=NS))
    assert js["version"] == root.findtext("d:version", namespaces=NS)


def _result_json(frozen: Path) -> dict:
    with zipfile.ZipFile(frozen / "crate.zip") as z:
        return json.loads(z.read("result.json"))


def test_csv_equals_the_comparison_json(frozen_full: Path) -> None:
    frozen = frozen_full
    measures = _result_json(frozen)["measures"]
    rows = list(csv.DictReader(io.StringIO((frozen / "table.csv").read_text())))
    seen = set()
    for r in rows:
        value = measures[r["measure"]]
        for key in (r["side"], r["effect"]):
            if key:
                value = value[key]
        assert (r["value"] == "" and value is None) or float(r["value"]) == value
        seen.add((r["measure"], r["side"], r["effect"]))
    # and every value of the JSON is a row (walked here, not by the code under test)
    expected = set()
    for name, v in measures.items():
        for k, x in v.items():
            side, eff = (k, "") if k in ("baseline", "advanced") else ("", k)
            if isinstance(x, dict):
                expected |= {(name, side, e) for e in x}
            else:
                expected.add((name, side, eff))
    assert seen == expected and len(rows) == len(expected)


@pytest.mark.parametrize("deposit", ["frozen", "frozen_full"])
def test_latex_tabular_is_well_formed(deposit: str, request: pytest.FixtureRequest) -> None:
    frozen = request.getfixturevalue(deposit)
    tex = (frozen / "table.tex").read_text()
    body = tex.split("\\begin{tabular}", 1)[1].split("\\end{tabular}", 1)[0]
    spec = re.match(r"\{([lcr]+)\}", body).group(1)
    assert tex.count("\\begin{tabular}") == tex.count("\\end{tabular}") == 1
    assert tex.count("\\begin{table}") == tex.count("\\end{table}") == 1
    rows = [
        ln
        for ln in body.splitlines()[1:]
        if ln.strip() and not ln.startswith(("\\toprule", "\\midrule", "\\bottomrule"))
    ]
    measures = _result_json(frozen)["measures"]
    assert len(rows) == 1 + len(list(csv.reader((frozen / "table.csv").open()))) - 1
    for ln in rows:
        assert ln.endswith(r"\\")
        cells = re.split(r"(?<!\\)&", ln[:-2])
        assert len(cells) == len(spec), ln
        text = re.sub(r"\$[^$]*\$", "", ln)  # outside math mode nothing is unescaped
        assert not re.search(r"(?<!\\)[#%_^~]", text), ln
        depth = 0
        for ch in re.sub(r"\\[{}]", "", ln):
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0
        assert depth == 0
    if deposit == "frozen_full":
        assert "ktu" in measures and any(ln.startswith("ktu &") for ln in rows)


def test_the_table_is_sized_for_a_paper(
    frozen: Path, frozen_full: Path, result_store: Path, tmp_path: Path
) -> None:
    """By default a comparison's table holds its headline measures — the ones its verdict's
    rule judges (the demo's arp-within-5pct reads AP, evidence/rules/presets.yaml), each
    run's mean, the difference with its interval, RMSE — read from the comparison's JSON;
    --measure chooses them; the table of every value (48 KB of LaTeX on the README's
    comparison) is behind --full."""
    data = _result_json(frozen)
    m = data["measures"]
    assert [v["rule"] for v in data["verdicts"]] == ["arp-within-5pct"]
    rows = list(csv.DictReader(io.StringIO((frozen / "table.csv").read_text())))
    assert [r["measure"] for r in rows] == ["AP"]
    chosen = _freeze(result_store, tmp_path / "d", "--measure", "P@10", "--measure", "RR")
    again = list(csv.DictReader(io.StringIO((chosen / "table.csv").read_text())))
    assert [r["measure"] for r in again] == ["P@10", "RR"]
    rows += again
    for r in rows:
        side, eff = r["side"], r["measure"]
        assert float(r["original"]) == m["original_mean"][side][eff]
        assert float(r["reproduced"]) == m["reproduced_mean"][side][eff]
        assert float(r["difference"]) == m["mean_diff"][side][eff]
        assert float(r["low"]) == m["mean_diff_low"][side][eff]
        assert float(r["RMSE"]) == m["rmse"][side][eff]
    tex = (frozen / "table.tex").read_bytes()
    assert len(tex) < 2_000 < 20_000 < len((frozen_full / "table.tex").read_bytes())
    assert tex.count(b"\\\n") == 2  # the header and AP's row


def test_bad_creator_orcid_is_refused(result_store: Path, tmp_path: Path) -> None:
    code = main(
        [
            "freeze",
            _comparison_id(result_store),
            "-o",
            str(tmp_path / "x"),
            "--store",
            str(result_store),
            "--creator",
            "Carberry, Josiah;0000-0002-1825-0098",
        ]
    )
    assert code == 2 and not (tmp_path / "x").exists()


@pytest.mark.slow
def test_passport_freezes_valid(result_store: Path, tmp_path: Path) -> None:
    etree, schema = _schema()
    out = tmp_path / "p"
    assert (
        main(["freeze", PAPER, "-o", str(out), "--store", str(result_store), "--creator", "=x"])
        == 0
    )
    assert schema.validate(etree.parse(str(out / "datacite.xml"))), schema.error_log
    rel = ET.parse(out / "datacite.xml").getroot().findall(".//d:relatedIdentifier", NS)
    assert any(e.text == PAPER for e in rel)
