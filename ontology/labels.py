"""Labels of our ontology's terms and concepts, from the package's ontology files.

The graph holds instance data; the ontology (classes, properties, the SKOS schemes of
audit attributes, badges, study kinds, hypotheses, decisions) is package data, so a page
would otherwise show ``rk:AttributeS1`` where a person wants "S1 — Source code
available". The files are read once per process with pyoxigraph's parser (~4k triples,
tens of milliseconds); labels the store holds win over these (a store may load the
ontology or its own labels).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from reprokg.core.resources import iter_files

RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SKOS_PREF = "http://www.w3.org/2004/02/skos/core#prefLabel"
SKOS_NOTATION = "http://www.w3.org/2004/02/skos/core#notation"
SKOS_DEFINITION = "http://www.w3.org/2004/02/skos/core#definition"


@dataclass(frozen=True)
class Term:
    iri: str
    label: str | None = None
    notation: str | None = None
    definition: str | None = None

    @property
    def display(self) -> str:
        """``S1 — Source code available`` for a notated concept, else the label."""
        spelt = (self.notation or "").replace("_", " ").lower()
        if self.notation and self.label and not self.label.lower().startswith(spelt):
            return f"{self.notation} — {self.label}"  # a code worth showing: S1 — …
        return self.label or self.notation or self.iri


@functools.cache
def terms() -> dict[str, Term]:
    """IRI -> :class:`Term` for every labelled term of the ontology modules (English or
    untagged literals; the ``imports/`` subsets are left out: their labels are theirs)."""
    import pyoxigraph as ox

    found: dict[str, dict[str, str]] = {}
    keys = {RDFS_LABEL: "label", SKOS_PREF: "pref", SKOS_NOTATION: "notation"}
    keys[SKOS_DEFINITION] = "definition"
    for f in iter_files("ontology", ".ttl"):
        for t in ox.parse(f.read_bytes(), ox.RdfFormat.TURTLE):
            key = keys.get(t.predicate.value)
            if key is None or not isinstance(t.subject, ox.NamedNode):
                continue
            if not isinstance(t.object, ox.Literal) or t.object.language not in (None, "en"):
                continue
            slot = found.setdefault(t.subject.value, {})
            if key not in slot or t.object.language == "en":
                slot[key] = t.object.value
    return {
        iri: Term(
            iri,
            label=v.get("pref") or v.get("label"),
            notation=v.get("notation"),
            definition=v.get("definition"),
        )
        for iri, v in found.items()
    }


def label(iri: str) -> str | None:
    """The display label of an ontology term (``None`` when the ontology has none)."""
    term = terms().get(iri)
    return term.display if term is not None else None
