"""Names, not hashes (issue 41): what the demo's pages call a comparison, its study kind and
a collection, held to the example files themselves (the run headers' ``tag`` and
``data.test collection.ir_datasets``) and to the ontology's label of the study kind."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import quote

import yaml

from tests.conftest import REPO
from tests.service.web.test_views import ask, html, rows

RUNS = REPO / "examples" / "runs"
PAPER = "/paper?doi=10.1007/978-3-030-15712-8_26"


def _header(name: str) -> dict:
    """The YAML of a run file's ``# ir_metadata`` header, read here without reprokg."""
    text = (RUNS / name).read_text()
    block = text.split("# ir_metadata.start\n", 1)[1].split("# ir_metadata.end", 1)[0]
    return yaml.safe_load("\n".join(line[2:] for line in block.splitlines()))


def _expected_title() -> str:
    orig, rep = _header("annotated_run_example.txt"), _header("reproduced_run.txt")
    ident = orig["data"]["test collection"]["ir_datasets"]  # https://ir-datasets.com/nyt
    assert ident == rep["data"]["test collection"]["ir_datasets"]
    return f"{orig['tag']} vs {rep['tag']} on {ident.rsplit('/', 1)[-1]}"


def _text(page: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def test_a_comparison_is_titled_by_its_runs_and_collection(client, demo_store) -> None:
    """Not "PRIMAD PrimAd": the list, the page's heading and the paper's runs table name
    the comparison ``bm25+rm3 vs bm25+rm3-rerun on nyt``."""
    want = _expected_title()
    assert want == "bm25+rm3 vs bm25+rm3-rerun on nyt"
    (listed,) = rows(client, "/comparisons")
    assert listed["title"] == want
    page = html(client, f"/comparison?iri={quote(listed['comparison'], safe='')}")
    (heading,) = re.findall(r"<h1>(.*?)</h1>", page, flags=re.S)
    assert unescape(heading).strip() == want
    assert f"{want} (PRIMAD PrimAd)" in _text(html(client, PAPER))


def test_the_study_kind_reads_the_same_on_comparison_and_passport(client, demo_store) -> None:
    """PrimAd is the ontology's rk:KindIndependentRepeat ("independent repeat"): the
    comparison list, its page and the passport's runs table all say so."""
    (kind,) = ask(
        demo_store, "SELECT ?k WHERE { ?c a rk:ReproductionComparison ; rk:studyKind ?k }"
    )
    assert str(kind["k"]).endswith("#KindIndependentRepeat")
    (listed,) = rows(client, "/comparisons")
    listing = _text(html(client, "/comparisons"))
    assert "PrimAd same-collection independent repeat" in listing
    page = _text(html(client, f"/comparison?iri={quote(listed['comparison'], safe='')}"))
    assert "Study kind independent repeat" in page
    assert "original independent repeat" in _text(html(client, PAPER))


def test_an_intrinsic_dimension_estimate_is_titled_by_its_data_set(client) -> None:
    """The demo's estimate is of UCI's data set 109, which the UCI Machine Learning
    Repository titles "Wine": the section says so, not "intrinsic dimension of
    examples/intrinsic_dimension/wine.csv" (the file keeps its line under the name)."""
    page = html(client, "/intrinsic-dimension")
    headings = [unescape(h).strip() for h in re.findall(r"<h2>(.*?)</h2>", page, flags=re.S)]
    assert headings[0] == "Wine"
    assert "examples/intrinsic_dimension/wine.csv" not in headings[0]
    (row, *_) = rows(client, "/intrinsic-dimension")
    assert row["dataSetName"] == "Wine"
