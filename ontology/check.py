"""``reprokg ontology check``: our ontology, loaded by owlready2 and reasoned over by HermiT.

The modules (``ontology/*.ttl``) and the pinned imports (``ontology/imports/*.ttl``) are
merged with rdflib, the ``owl:imports`` statements dropped (owlready2 would fetch them:
nothing downloads at run time), and handed to owlready2 as RDF/XML. owlready2 loading it
is the first check (it refuses what is not OWL it can read); its ``sync_reasoner`` runs
HermiT (Java), which says whether the ontology is consistent and which classes are
unsatisfiable (Pellet, owlready2's other reasoner, is broken on Java 17). A user who
extends the ontology passes their Turtle files as ``extra`` and checks the merge.

XSD datatypes outside the OWL 2 datatype map (``xsd:date`` …) are widened to
``rdfs:Literal`` for reasoning: HermiT refuses them, and SHACL checks the data's types.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rdflib import OWL, RDF, RDFS, XSD, Graph

from reprokg.core.errors import LoadError, UsageError
from reprokg.core.namespaces import new_graph
from reprokg.core.rdf_parse import parse_package_file, parse_rdf
from reprokg.core.resources import iter_files

#: XSD datatypes outside the OWL 2 datatype map (HermiT refuses them)
NON_OWL2_DATATYPES = frozenset(
    {XSD.date, XSD.time, XSD.gYear, XSD.gYearMonth, XSD.gMonthDay, XSD.duration}
)


@dataclass(frozen=True)
class OntologyCheck:
    """What owlready2 and HermiT found."""

    classes: int
    properties: int
    consistent: bool
    #: IRIs of the classes no individual can belong to (empty when inconsistent: then
    #: HermiT reports no classification)
    unsatisfiable: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return self.consistent and not self.unsatisfiable


def merged_ontology(extra: Sequence[Path] = ()) -> Graph:
    """Our modules, the pinned imports and ``extra`` Turtle files as one graph, prepared
    for the reasoner (no ``owl:imports``, non-OWL 2 datatypes widened)."""
    g = new_graph()
    for folder in ("ontology", "ontology/imports"):
        for f in iter_files(folder, ".ttl"):
            parse_package_file(f, graph=g, base=f.name)
    for path in extra:
        try:
            parse_rdf(
                path.read_bytes(), "turtle", source=str(path), graph=g, base=path.resolve().as_uri()
            )
        except OSError as exc:
            raise UsageError(f"{path}: cannot read it as Turtle: {exc}") from None
        except LoadError as exc:
            raise UsageError(f"{path}: cannot read it as Turtle: {exc.message}") from None
    g.remove((None, OWL.imports, None))
    for s, p, o in list(g):
        if o in NON_OWL2_DATATYPES and p != RDF.type:
            g.remove((s, p, o))
            g.add((s, p, RDFS.Literal))
    return g


def java_available() -> bool:
    """A ``java`` that runs (HermiT needs one; Debian: default-jre-headless)."""
    java = shutil.which("java")
    if java is None:
        return False
    return subprocess.run([java, "-version"], capture_output=True, check=False).returncode == 0


def check_ontology(extra: Sequence[Path] = (), graph: Graph | None = None) -> OntologyCheck:
    """Load the merged ontology (or ``graph``) with owlready2 and reason over it with HermiT.

    Raises :class:`UsageError` when no Java is installed.
    """
    if not java_available():
        raise UsageError(
            "the ontology check runs HermiT, which needs Java: install a Java runtime "
            "(Debian: apt-get install default-jre-headless)"
        )
    import owlready2

    g = graph if graph is not None else merged_ontology(extra)
    with tempfile.TemporaryDirectory(prefix="reprokg-ontology-") as tmp:
        path = Path(tmp) / "merged.owl"
        g.serialize(path, format="xml")
        world = owlready2.World()
        onto = world.get_ontology(path.as_uri()).load()
        classes = len(list(world.classes()))
        properties = len(list(world.properties()))
        try:
            with onto:
                owlready2.sync_reasoner(world, infer_property_values=False, debug=0)
        except owlready2.OwlReadyInconsistentOntologyError:
            return OntologyCheck(classes, properties, consistent=False, unsatisfiable=())
        unsat = sorted(c.iri for c in world.inconsistent_classes() if c is not owlready2.Nothing)
    return OntologyCheck(classes, properties, consistent=True, unsatisfiable=tuple(unsat))
