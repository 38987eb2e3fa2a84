"""``docs/ontology.md`` generated from the ontology itself, so the reference never drifts.

One section per ``ontology/*.ttl`` module: its classes, properties and SKOS concept
schemes with labels, definitions and alignments. Output is deterministic (sorted, no
dates), so a test can regenerate it and compare with the committed file.

    reprokg docs [--output docs/ontology.md] [--check]
    python -m reprokg.ontology.reference
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeGuard

from rdflib import OWL, RDF, RDFS, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, SKOS
from rdflib.term import Node

from reprokg.core.namespaces import ONTOLOGY_IRI, PREFIXES, RK, VANN, new_graph
from reprokg.core.rdf_parse import parse_package_file
from reprokg.core.resources import iter_files

#: docs/ontology.md of the checkout (the package root is the repository root)
DEFAULT_OUTPUT = Path(__file__).resolve().parents[1] / "docs" / "ontology.md"
_KINDS = (
    (OWL.Class, "Classes"),
    (OWL.ObjectProperty, "Object properties"),
    (OWL.DatatypeProperty, "Datatype properties"),
    (OWL.AnnotationProperty, "Annotation properties"),
)


def _curie(term: object) -> str:
    if isinstance(term, Literal):
        return f'"{term}"'
    text = str(term)
    for prefix, ns in sorted(PREFIXES.items(), key=lambda kv: -len(str(kv[1]))):
        if text.startswith(str(ns)) and len(text) > len(str(ns)):
            return f"{prefix}:{text[len(str(ns)) :]}"
    return f"<{text}>"


def _md(text: object) -> str:
    """One-line Markdown-safe text (table cells)."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _en(g: Graph, s: URIRef, p: URIRef) -> str:
    values = sorted(str(o) for o in g.objects(s, p) if getattr(o, "language", "en") in ("en", None))
    return "; ".join(values)


def _restriction(g: Graph, node: Node) -> str | None:
    prop = g.value(node, OWL.onProperty)
    for kind, word in ((OWL.someValuesFrom, "some"), (OWL.allValuesFrom, "only")):
        target = g.value(node, kind)
        if prop is not None and target is not None:
            return f"{_curie(prop)} {word} {_curie(target)}"
    members = g.value(node, OWL.unionOf)
    if members is not None:
        return " or ".join(_curie(m) for m in g.items(members))
    return None


def _related(g: Graph, s: URIRef, p: URIRef) -> list[str]:
    out = []
    for o in g.objects(s, p):
        if isinstance(o, URIRef):
            out.append(f"`{_curie(o)}`")
        else:
            r = _restriction(g, o)
            if r:
                out.append(f"`{r}`")
    return sorted(out)


def _ours(t: Node) -> TypeGuard[URIRef]:
    """A term of this ontology (an IRI in the rk: namespace)."""
    return isinstance(t, URIRef) and str(t).startswith(str(RK))


def _module_section(name: str, g: Graph) -> list[str]:
    lines = [f"## Module `{name}`", ""]
    comment = [ln[1:].strip() for ln in _header_comment(name)]
    if comment:
        lines += [" ".join(comment), ""]
    for kind, title in _KINDS:
        terms = sorted(t for t in g.subjects(RDF.type, kind) if _ours(t))
        if not terms:
            continue
        lines += [f"### {title}", ""]
        for t in terms:
            lines.append(f"#### `{_curie(t)}` — {_md(_en(g, t, RDFS.label))}")
            lines.append("")
            lines.append(_md(_en(g, t, SKOS.definition)) or "*(no definition)*")
            lines.append("")
            facts = []
            for label, p in (
                ("subclass of", RDFS.subClassOf),
                ("equivalent to", OWL.equivalentClass),
                ("subproperty of", RDFS.subPropertyOf),
                ("inverse of", OWL.inverseOf),
                ("domain", RDFS.domain),
                ("range", RDFS.range),
            ):
                rel = _related(g, t, p)
                if rel:
                    facts.append(f"{label} {', '.join(rel)}")
            for note in (SKOS.scopeNote, SKOS.editorialNote):
                text = _en(g, t, note)
                if text:
                    facts.append(f"{_curie(note).split(':')[1]}: {_md(text)}")
            lines += [f"- {f}" for f in facts]
            if facts:
                lines.append("")
    schemes = sorted(t for t in g.subjects(RDF.type, SKOS.ConceptScheme) if _ours(t))
    for scheme in schemes:
        lines += [f"### Concept scheme `{_curie(scheme)}` — {_md(_en(g, scheme, RDFS.label))}", ""]
        lines += [_md(_en(g, scheme, SKOS.definition)), ""]
        scope = _en(g, scheme, SKOS.scopeNote)
        if scope:
            lines += [f"*Semantics:* {_md(scope)}", ""]
        lines += [
            "| notation | concept | label | broader | definition | notes |",
            "|---|---|---|---|---|---|",
        ]
        concepts = sorted(
            (c for c in g.subjects(SKOS.inScheme, scheme) if _ours(c)),
            key=lambda c: (_sort_notation(g.value(c, SKOS.notation)), str(c)),
        )
        for c in concepts:
            notes = "; ".join(
                x for x in (_en(g, c, SKOS.scopeNote), _en(g, c, SKOS.editorialNote)) if x
            )
            match = ", ".join(
                f"`{_curie(m)}`" for m in sorted(g.objects(c, SKOS.closeMatch), key=str)
            )
            if match:
                notes = (notes + "; " if notes else "") + f"close match {match}"
            lines.append(
                "| "
                + " | ".join(
                    [
                        _md(g.value(c, SKOS.notation) or ""),
                        f"`{_curie(c)}`",
                        _md(_en(g, c, SKOS.prefLabel)),
                        ", ".join(
                            f"`{_curie(b)}`" for b in sorted(g.objects(c, SKOS.broader), key=str)
                        ),
                        _md(_en(g, c, SKOS.definition)),
                        _md(notes),
                    ]
                )
                + " |"
            )
        lines.append("")
    return lines


def _sort_notation(n: object) -> tuple[int, str, int, str]:
    text = str(n or "")
    head = text.rstrip("0123456789")
    tail = text[len(head) :]
    order = {"D": 0, "S": 1, "R": 2}
    return (order.get(head, 3), head, int(tail) if tail else -1, text)


def _header_comment(name: str) -> list[str]:
    for f in iter_files("ontology", ".ttl"):
        if f.name == name:
            out = []
            for ln in f.read_text(encoding="utf-8").splitlines():
                if not ln.startswith("#"):
                    break
                out.append(ln)
            return out
    return []


def render() -> str:
    """The whole reference as Markdown."""
    merged = new_graph()
    modules: list[tuple[str, Graph]] = []
    for f in iter_files("ontology", ".ttl"):
        g = new_graph()
        parse_package_file(f, graph=g, base=ONTOLOGY_IRI)
        modules.append((f.name, g))
        for t in g:
            merged.add(t)
    onto = URIRef(ONTOLOGY_IRI)
    imports = sorted(merged.objects(onto, OWL.imports), key=str)
    lines = [
        "# reprokg ontology reference",
        "",
        "<!-- Generated by `reprokg docs` (reprokg/ontology/reference.py) from ontology/*.ttl. "
        "Do not edit by hand; tests/ontology/test_ontology_docs.py checks it is up to date. -->",
        "",
        f"**{_md(_en(merged, onto, DCTERMS.title))}**",
        "",
        "| | |",
        "|---|---|",
        f"| ontology IRI | `{ONTOLOGY_IRI}` |",
        f"| version IRI | `{merged.value(onto, OWL.versionIRI) or ''}` |",
        f"| version | {merged.value(onto, OWL.versionInfo) or ''} |",
        f"| preferred prefix | `{merged.value(onto, VANN.preferredNamespacePrefix) or ''}:` = "
        f"`{merged.value(onto, VANN.preferredNamespaceUri) or ''}` |",
        f"| license | {merged.value(onto, DCTERMS.license) or ''} |",
        f"| imports | {', '.join(f'`{i}`' for i in imports)} |",
        "",
        _md(_en(merged, onto, DCTERMS.description)),
        "",
        _md(_en(merged, onto, RDFS.comment)),
        "",
        "Modules: " + ", ".join(f"[`{n}`](#module-{n.replace('.', '')})" for n, _ in modules),
        "",
    ]
    counts = []
    for kind, title in _KINDS:
        n = sum(1 for t in merged.subjects(RDF.type, kind) if str(t).startswith(str(RK)))
        counts.append(f"{n} {title.lower()}")
    n_concepts = sum(
        1 for t in merged.subjects(RDF.type, SKOS.Concept) if str(t).startswith(str(RK))
    )
    lines += ["Terms: " + ", ".join(counts) + f", {n_concepts} SKOS concepts.", ""]
    for name, g in modules:
        lines += _module_section(name, g)
    return "\n".join(lines).rstrip() + "\n"


def write(output: Path = DEFAULT_OUTPUT) -> Path:
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(render(), encoding="utf-8")
    return output
