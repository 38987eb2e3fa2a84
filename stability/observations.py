"""A stability study's observations read from the graph with SPARQL, into pandas.

Never from the source file: :func:`list_studies` finds the studies
(``stability/sparql/studies.rq``), :func:`resolve_study` picks the one a person named (IRI,
id or title) and :func:`observation_frame` reads its runs
(``stability/sparql/observations.rq``, inside the study's own document) as one row per run
and metric, the columns :mod:`.analysis` expects. The web view's chart reads the same query
(``service/web/routes/analyses.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reprokg.core.errors import NotFound, UsageError
from reprokg.loaders.stability import ROW_KEYS
from reprokg.sparql.named import package_query
from reprokg.sparql.rows import select_rows
from reprokg.stability.shapes import StudyJSON

if TYPE_CHECKING:  # pandas is imported where a frame is built: the service starts without it
    import pandas as pd

#: the observations of one study: what the analysis fits and the web view charts
OBSERVATIONS_QUERY = "stability/sparql/observations.rq"
STUDIES_QUERY = "stability/sparql/studies.rq"
#: the columns of :func:`observation_frame`
COLUMNS = (*ROW_KEYS, "experiment_iri", "document")


@dataclass(frozen=True)
class StudyInfo:
    """A stability study in the store: its IRI, the document(s) holding it, title, flag."""

    iri: str
    documents: tuple[str, ...]
    title: str | None
    illustrative: bool

    @property
    def id(self) -> str:
        """The last segment of the IRI (the key minted from the study's source)."""
        return self.iri.rstrip("/").rsplit("/", 1)[-1]

    def to_json(self) -> StudyJSON:
        return {
            "study": self.iri,
            "id": self.id,
            "title": self.title,
            "illustrative": self.illustrative,
            "documents": list(self.documents),
        }


def list_studies(store: Any) -> list[StudyInfo]:
    """Every stability study in the store, sorted by title and IRI."""
    by_iri: dict[str, dict[str, Any]] = {}
    for row in select_rows(store, package_query(STUDIES_QUERY).bind({})):
        s = by_iri.setdefault(row["study"], {"docs": set(), "title": None, "ill": False})
        s["docs"].add(row["document"])
        s["title"] = s["title"] or row.get("title")
        s["ill"] = s["ill"] or row.get("illustrative") is True
    studies = [
        StudyInfo(iri, tuple(sorted(s["docs"])), s["title"], s["ill"]) for iri, s in by_iri.items()
    ]
    return sorted(studies, key=lambda s: (s.title or "", s.iri))


def _choices(studies: list[StudyInfo]) -> str:
    return "; ".join(f"{s.id} ({s.title or 'untitled'})" for s in studies)


def resolve_study(store: Any, spec: str | None = None) -> StudyInfo:
    """The study ``spec`` names: its IRI, its id (or a unique prefix of at least 4
    characters), or its title; without ``spec`` the only study in the store.

    Raises :class:`NotFound` when nothing matches (or the store holds no study) and
    :class:`UsageError` when the choice is ambiguous; both list the studies there are.
    """
    studies = list_studies(store)
    listing = {"studies": [s.to_json() for s in studies]}
    if not studies:
        raise NotFound(
            "no stability study in the store (load one first, e.g. "
            "reprokg load examples/stability/)",
            details=listing,
        )
    if spec is None or not spec.strip():
        if len(studies) == 1:
            return studies[0]
        raise UsageError(
            f"{len(studies)} stability studies in the store; name one by IRI, id or title: "
            + _choices(studies),
            details=listing,
        )
    spec = spec.strip()
    for match in (
        lambda s: s.iri == spec,
        lambda s: s.id == spec,
        lambda s: len(spec) >= 4 and s.id.startswith(spec),
        lambda s: (s.title or "").casefold() == spec.casefold(),
    ):
        found = [s for s in studies if match(s)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise UsageError(
                f"{spec!r} names {len(found)} stability studies: {_choices(found)}",
                details={"studies": [s.to_json() for s in found]},
            )
    raise NotFound(
        f"no stability study {spec!r} in the store; there are: {_choices(studies)}",
        details=listing,
    )


def observations_query(study: StudyInfo | str) -> str:
    """``observations.rq`` with the study bound (:meth:`NamedQuery.bind`: an IRI term)."""
    iri = study.iri if isinstance(study, StudyInfo) else study
    return package_query(OBSERVATIONS_QUERY).bind({"study": iri})


def observation_frame(store: Any, study: StudyInfo | str) -> pd.DataFrame:
    """One row per run and metric (columns :data:`COLUMNS`), in a fixed order.

    The order does not depend on the engine's: sums over the rows then come out the same
    to the last bit, so analysing the same observations twice gives the same document.
    """
    rows = select_rows(store, observations_query(study))
    import pandas as pd

    frame = pd.DataFrame({c: [r.get(c) for r in rows] for c in COLUMNS})
    frame["value"] = pd.to_numeric(frame["value"], errors="coerce")
    order = ["experiment", "configuration", "seed", "repeat", "metric", "value"]
    keys = frame[order].astype(str)
    return frame.loc[keys.sort_values(order, kind="mergesort").index].reset_index(drop=True)
