"""Candidate matches across records: paper nodes that may be one paper, recorded, never merged.

A loader records a candidate match only within one record (artifact evaluation: a paper's
DOI node and the node minted from the same venue, year and title). Papers of different
records — another source, or a loader that mints differently (GK2018 by link, the GRSI list
by entry, a survey by title) — meet here: one scan of every titled paper
(``evidence/sparql/paper-keys.rq``, one row per paper and record), keyed in Python by the
venue (case, punctuation and a year in it folded away), the year and the normalised title
(the loaders' :func:`~reprokg.loaders.evidence.normalise_title`). A pair of nodes sharing a
key becomes a ``rk:CandidateMatch`` when no one record describes both (that is the loader's
call), they are not two DOIs (two identifiers: two papers, docs/architecture.md, Design
decisions) and no loader matched them already. Each match says why in words and names the
records it rests on (``prov:wasDerivedFrom``). One scan and a dictionary: linear in the
papers, where a match at load time would query the store once per record.

:class:`CandidateMatches` is a typed result (core/computed.py): its JSON is ``reprokg
evidence match``'s answer, its document (kind ``candidate-matches``) holds every match of
the pass and is revised when the pass runs again on a changed store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from reprokg.core.hashing import stable_key
from reprokg.loaders.evidence import normalise_title

KEYS_QUERY = "evidence/sparql/paper-keys.rq"
RECORDED_QUERY = "evidence/sparql/recorded-candidates.rq"
DOI = "https://doi.org/"
_YEAR_RE = re.compile(r"\b(?:19|20)\d{2}\b")


def venue_key(venue: str) -> str:
    """A venue as the pass compares it: a year in it dropped, case and punctuation folded
    (``SIGGRAPH 2016`` and ``siggraph`` are one venue; ``USENIX Security`` and
    ``USENIXSEC`` are not)."""
    return normalise_title(_YEAR_RE.sub(" ", venue))


@dataclass(frozen=True)
class Match:
    """Two paper nodes sharing venue, year and normalised title, from different records."""

    a: str
    b: str
    venue: str
    year: int
    title: str
    #: the records (documents) describing each node, and their kinds
    documents: tuple[str, ...]
    kinds: tuple[str, ...]

    @property
    def evidence(self) -> str:
        return (
            f"same venue ({self.venue}), year ({self.year}) and normalised title "
            f"({self.title!r}) in different records ({', '.join(self.kinds)}); no identifier "
            "joins them"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "candidates": [self.a, self.b],
            "venue": self.venue,
            "year": self.year,
            "title": self.title,
            "documents": list(self.documents),
            "kinds": list(self.kinds),
            "evidence": self.evidence,
        }


@dataclass
class CandidateMatches:
    """The pass's answer: what it scanned, the new matches, and the pairs it left apart."""

    KIND: ClassVar[str] = "candidate-matches"

    papers: int
    records: int
    keyed: int
    matches: list[Match]
    #: pairs sharing a key that a loader matched already (within one record)
    recorded: int = 0
    #: pairs sharing a key that are two DOIs (two papers, never candidates: listed for a
    #: person to look at, e.g. two reproductions of one paper under one title)
    distinct_dois: list[tuple[str, str]] = field(default_factory=list)
    queries: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "papers": self.papers,
            "records": self.records,
            "keyed": self.keyed,
            "matches": [m.to_json() for m in self.matches],
            "recorded_already": self.recorded,
            "distinct_dois": [list(p) for p in self.distinct_dois],
        }

    def _computation(self):
        from reprokg.core.computed import Computation, software_versions

        return Computation(
            label="candidate matches across records (reprokg evidence match)",
            key=stable_key("candidate-matches", "across-records"),
            software=software_versions(),
            parameters={"key": "venue, year and normalised title"},
            queries=self.queries,
        )

    def to_graph(self):
        from rdflib import RDF, Literal, URIRef
        from rdflib.namespace import PROV

        from reprokg.core.identifiers import mint
        from reprokg.core.namespaces import RK, new_graph

        g = new_graph()
        activity = self._computation().activity
        for m in self.matches:
            node = mint("candidate-match", stable_key(m.a, m.b))
            g.add((node, RDF.type, RK.CandidateMatch))
            g.add((node, RK.candidate, URIRef(m.a)))
            g.add((node, RK.candidate, URIRef(m.b)))
            g.add((node, RK.matchEvidence, Literal(m.evidence)))
            g.add((node, PROV.wasGeneratedBy, activity))
            for d in m.documents:
                g.add((node, PROV.wasDerivedFrom, URIRef(d)))
        return g

    def document(self):
        from reprokg.core.computed import canonical_json, result_document

        computation = self._computation()
        return result_document(
            kind=self.KIND,
            subject=computation.activity,  # the pass is its activity
            graph=self.to_graph(),
            computation=computation,
            source=canonical_json({"matches": [m.to_json() for m in self.matches]}),
            source_key="candidate-matches:across-records",
            source_name="candidate-matches.json",
            producer="reprokg.evidence.candidate_matches",
        )


def find(store: Any) -> CandidateMatches:
    """The candidate matches across records of everything in ``store``."""
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    keys_query = package_query(KEYS_QUERY).bind({})
    recorded_query = package_query(RECORDED_QUERY).bind({})
    rows = select_rows(store, keys_query)
    recorded = {(r["a"], r["b"]) for r in select_rows(store, recorded_query)}
    # paper -> its keys, and the records (documents) and kinds that describe it
    docs: dict[str, set[str]] = {}
    kinds: dict[str, str] = {}
    groups: dict[tuple[str, int, str], dict[str, str]] = {}  # key -> paper -> venue as given
    for r in rows:
        paper, document = r["paper"], r["document"]
        docs.setdefault(paper, set()).add(document)
        kinds[document] = r["kind"]
        venue, year = r.get("venue"), r.get("year")
        if venue is None:
            continue
        if year is None:
            found = _YEAR_RE.search(str(venue))
            year = int(found.group()) if found else None
        title = normalise_title(str(r["title"]))
        if year is None or not title or not venue_key(str(venue)):
            continue
        group = groups.setdefault((venue_key(str(venue)), int(year), title), {})
        group.setdefault(paper, str(venue))
    matches: list[Match] = []
    already = 0
    dois: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for (_, year, title), members in sorted(groups.items()):
        nodes = sorted(members)
        for i, a in enumerate(nodes):
            for b in nodes[i + 1 :]:
                if (a, b) in seen or docs[a] & docs[b]:
                    continue  # one record describes both: the loader's call
                seen.add((a, b))
                if (a, b) in recorded:
                    already += 1
                elif a.startswith(DOI) and b.startswith(DOI):
                    dois.append((a, b))
                else:
                    both = sorted(docs[a] | docs[b])
                    matches.append(
                        Match(
                            a,
                            b,
                            members[a],
                            year,
                            title,
                            tuple(both),
                            tuple(sorted({kinds[d] for d in both})),
                        )  # fmt: skip
                    )
    keyed = len({p for members in groups.values() for p in members})
    return CandidateMatches(
        papers=len(docs),
        records=len(kinds),
        keyed=keyed,
        matches=matches,
        recorded=already,
        distinct_dois=dois,
        queries={KEYS_QUERY: keys_query, RECORDED_QUERY: recorded_query},
    )
