"""core/rdf_parse: RDF text is parsed without resolving anything outside it (issue 38).

rdflib fetched every JSON-LD ``@context`` (HTTP and ``file:``) and expat expanded DTD
entities; the safe parse refuses both before rdflib sees the text, and resolves the
contexts the project ships offline.
"""

from __future__ import annotations

import json
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Literal, Namespace, URIRef
from rdflib.namespace import RDF, XSD

from reprokg.core.errors import LoadError
from reprokg.core.rdf_parse import parse_as_written, parse_rdf
from tests.loopback import loopback_listener

SDO = Namespace("http://schema.org/")
CRATES = Path(__file__).parents[1] / "exchange" / "data" / "crates"


def _refusal(doc: dict, name: str = "data.jsonld") -> LoadError:
    with pytest.raises(LoadError) as err:
        parse_rdf(json.dumps(doc), "json-ld", source=name)
    return err.value


def test_a_remote_context_is_refused_unfetched() -> None:
    with loopback_listener() as http:
        iri = f"{http.url}/context.jsonld"
        err = _refusal({"@context": iri, "@id": "http://ex.org/a", "p": "x"})
        assert http.requests == []
    assert err.source == "data.jsonld" and err.field == "@context"
    assert repr(iri) in err.message


def test_a_file_context_reads_the_same_whether_the_file_exists(tmp_path: Path) -> None:
    """The message must not tell an existing file from a missing one (the probe read
    ``No such file or directory`` against ``Expecting value``)."""
    target = tmp_path / "ctx.jsonld"
    doc = {"@context": target.as_uri(), "@id": "http://ex.org/a", "p": "x"}
    missing = str(_refusal(doc))
    target.write_text('{"@context": {"@vocab": "http://ex.org/"}}', encoding="utf-8")
    existing = str(_refusal(doc))
    assert missing == existing
    assert target.as_uri() in existing and "data.jsonld" in existing


@pytest.mark.slow
def test_file_dev_zero_is_refused_at_once() -> None:
    """Through ``validation.shacl.read_source`` in a child process (bounded memory and
    time): rdflib read /dev/zero until the memory ran out."""
    code = (
        "from reprokg.validation.shacl import read_source\n"
        "from reprokg.core.errors import LoadError\n"
        "try:\n"
        '    read_source(\'d.jsonld\', b\'{"@context": "file:///dev/zero", "@id": "http://a"}\')\n'
        "except LoadError as e:\n"
        "    print(e)\n"
    )

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
        cwd=Path(__file__).parents[3],
    )
    assert "'file:///dev/zero' is not resolved" in done.stdout, done.stdout + done.stderr
    assert time.monotonic() - started < 30


@pytest.mark.parametrize(
    "doc",
    [
        {"@context": {"@import": "REMOTE", "p": "http://ex.org/p"}, "@id": "http://a", "p": 1},
        {"@context": ["https://schema.org/", "REMOTE"], "@id": "http://a", "name": "x"},
        {"@graph": [{"@context": "REMOTE", "@id": "http://a", "p": 1}]},
        {"@id": "http://a", "http://ex.org/p": [{"@context": {"@import": "REMOTE"}, "q": 1}]},
        {  # a scoped context in a term definition
            "@context": {"t": {"@id": "http://ex.org/t", "@context": "REMOTE"}},
            "@id": "http://a",
            "t": {"p": 1},
        },
        {"@context": {"@context": "REMOTE"}, "@id": "http://a"},
    ],
    ids=["import", "array", "graph-node", "nested-import", "scoped", "wrapped"],
)
def test_nested_contexts_and_imports_are_refused(doc: dict) -> None:
    with loopback_listener() as http:
        iri = f"{http.url}/ctx"
        err = _refusal(json.loads(json.dumps(doc).replace("REMOTE", iri)))
        assert http.requests == []
    assert repr(iri) in err.message and err.field in ("@context", "@import")


def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network used")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize("version", ["1.1", "1.2"])
def test_the_ro_crate_contexts_resolve_offline(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real crate of the RO-Crate specification; its root dataset's name as written."""
    crate = {
        "1.1": CRATES / "workflow-run-example2" / "ro-crate-metadata.json",
        "1.2": CRATES / "spec-rainfall" / "ro-crate-metadata.json",
    }[version]
    text = crate.read_text(encoding="utf-8")
    assert f"https://w3id.org/ro/crate/{version}/context" in text
    _no_network(monkeypatch)
    g = parse_rdf(text, "json-ld", source=crate.name, base=crate.parent.as_uri() + "/")
    root = URIRef(crate.parent.as_uri() + "/")
    assert (root, RDF.type, SDO.Dataset) in g
    named = [
        (URIRef(e["@id"]), SDO.name, Literal(e["name"]))
        for e in json.loads(text)["@graph"]
        if e["@id"].startswith("http") and isinstance(e.get("name"), str)
    ]
    assert named and all(t in g for t in named)


def test_schema_org_resolves_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_network(monkeypatch)
    doc = {"@context": "https://schema.org/", "@id": "http://ex.org/ada", "@type": "Person"}
    g = parse_rdf(json.dumps({**doc, "name": "Ada"}), "json-ld", source="p.jsonld")
    assert set(g) == {
        (URIRef("http://ex.org/ada"), RDF.type, SDO.Person),
        (URIRef("http://ex.org/ada"), SDO.name, Literal("Ada")),
    }


RDF_XML_BODY = (
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
    'xmlns:ex="http://ex.org/"><rdf:Description rdf:about="http://ex.org/a">'
    "<ex:p>{value}</ex:p></rdf:Description></rdf:RDF>"
)


def _laughs(levels: int = 10) -> str:
    """The billion-laughs document (10^levels copies of "lol")."""
    ents = '<!ENTITY l0 "lol">' + "".join(
        f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, levels)
    )
    return f'<?xml version="1.0"?>\n<!DOCTYPE lolz [{ents}]>\n' + RDF_XML_BODY.format(
        value=f"&l{levels - 1};"
    )


def test_rdf_xml_billion_laughs_is_refused_at_once() -> None:
    text = _laughs()
    assert len(text.encode()) < 1000
    started = time.monotonic()
    with pytest.raises(LoadError) as err:
        parse_rdf(text.encode(), "xml", source="shapes.rdf")
    assert time.monotonic() - started < 0.5
    assert err.value.source == "shapes.rdf" and err.value.line == 2
    assert "<!DOCTYPE lolz" in err.value.message


def test_rdf_xml_external_entity_is_refused_unfetched() -> None:
    with loopback_listener() as http:
        text = f'<!DOCTYPE r [<!ENTITY e SYSTEM "{http.url}/e">]>' + RDF_XML_BODY.format(
            value="&e;"
        )
        with pytest.raises(LoadError, match="<!DOCTYPE r"):
            parse_rdf(text, "xml", source="d.rdf")
        assert http.requests == []


def test_rdf_xml_without_a_dtd_reads() -> None:
    g = parse_rdf(RDF_XML_BODY.format(value="1"), "xml", source="d.rdf")
    assert set(g) == {(URIRef("http://ex.org/a"), URIRef("http://ex.org/p"), Literal("1"))}


def test_turtle_and_n_quads_read_with_literals_as_written() -> None:
    ttl = '<http://ex.org/a> <http://ex.org/p> "01"^^<http://www.w3.org/2001/XMLSchema#integer> .'
    (t,) = parse_as_written(ttl, "turtle", source="d.ttl")
    assert str(t[2]) == "01" and t[2].datatype == XSD.integer
    nq = ttl + "\n"  # a quad of the default graph (a plain Graph holds no named ones)
    (t,) = parse_rdf(nq.encode(), "nquads", source="d.nq")
    assert t[1] == URIRef("http://ex.org/p")


def test_a_syntax_error_names_the_file() -> None:
    with pytest.raises(LoadError) as err:
        parse_rdf(b"not turtle <", "turtle", source="bad.ttl")
    assert err.value.source == "bad.ttl" and "not readable as turtle" in err.value.message


def test_pyoxigraph_fetches_no_context() -> None:
    """``ox.parse`` is the other parser in the package: it has no document loader unless
    given one (we never do), so a remote context is its syntax error, never a request."""
    with loopback_listener() as http:
        doc = json.dumps({"@context": f"{http.url}/ctx", "@id": "http://a", "p": "x"})
        with pytest.raises(SyntaxError):
            list(ox.parse(doc.encode(), ox.RdfFormat.JSON_LD))
        assert http.requests == []
