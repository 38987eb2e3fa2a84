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
AUTHORS_QUERY = "evidence/sparql/paper-author-names.rq"
RECORDED_QUERY = "evidence/sparql/recorded-candidates.rq"
DOI = "https://doi.org/"
_YEAR_RE = re.compile(r"\b(?:19|20)\d{2}\b")


def venue_key(venue: str) -> str:
    """A venue as the pass compares it: a year in it dropped, case and punctuation folded
    (``SIGGRAPH 2016`` and ``siggraph`` are one venue; ``USENIX Security`` and
    ``USENIXSEC`` are not)."""
    return normalise_title(_YEAR_RE.sub(" ", venue))


# ------------------------------------------------------------------ links without identifiers
#
# The fuzzy pass: records that name one work in different words (a ReproDB artifact without
# DOI and a results page's row, a GRSI entry and the SIGGRAPH survey's review, a ReScience
# entry and its MLRC header) are proposed as links with the fields that agreed and a score;
# a link is *accepted* for joins only at or above THRESHOLD and when it is both records' one
# best proposal in the other source. The score, the threshold and the precision/recall they
# give on the pairs the sources themselves link by identifier are in docs/evidence.md
# ("Links without shared identifiers") and benchmarks/README.md (benchmarks/linkage/run.py).

#: the declared acceptance threshold of a link's score (docs/evidence.md): at it, on the
#: identifier-linked pairs of the field's sources, precision and recall are measured by
#: benchmarks/linkage/run.py and asserted by tests/evidence/test_linkage.py
THRESHOLD = 0.95
#: the least score of a link the store pass records as a candidate (below it, the two are
#: not worth a person's look: most pairs sharing a rare title word are other works)
PROPOSE_FLOOR = 0.8
#: the weight of the title's similarity in the score; the rest is the corroborating fields'
WEIGHT_TITLE = 0.6
#: the rarest title words per record that key its blocks (see :func:`blocks`)
BLOCK_WORDS = 3
#: title words too common to block on (a title's rarest words are looked at first anyway)
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "of",
        "on",
        "or",
        "the",
        "to",
        "via",
        "with",
        "using",
        "towards",
        "toward",
        "re",
    ]
)
_ARXIV_RE = re.compile(r"(?:arxiv\.org/(?:abs|pdf)/|arxiv:)\s*(\d{4}\.\d{4,5})", re.I)


def family_names(authors: str | list[str] | None) -> frozenset[str]:
    """The authors' family names, accents and case folded: from "A B, C D", "A B and C D",
    "Kim, Juhyeon and Li, Nan" or a list of names ("Juhyeon Kim" and "Kim, Juhyeon" both
    give ``kim``)."""
    if not authors:
        return frozenset()
    chunks = [authors] if isinstance(authors, str) else [str(a) for a in authors]
    out: set[str] = set()
    for chunk in chunks:
        for piece in re.split(r"\s*(?:;|\band\b|&|\n)\s*", chunk):
            parts = [p.strip() for p in piece.split(",") if p.strip()]
            if len(parts) == 2 and len(parts[0].split()) == 1:
                families = [parts[0]]  # "Kim, Juhyeon"
            else:
                families = [p.split()[-1] for p in parts]  # "Juhyeon Kim, Craig Benko"
            for family in families:
                key = normalise_title(family).replace(" ", "")
                if len(key) > 1:
                    out.add(key)
    return frozenset(out)


def link_keys(urls: list[str] | tuple[str, ...]) -> frozenset[str]:
    """URLs as compared (scheme, ``www.``, a trailing slash and ``.git`` dropped; case
    folded) and arXiv ids (``arxiv:2004.01234``) found in them."""
    out: set[str] = set()
    for u in urls:
        u = (u or "").strip()
        if not u:
            continue
        found = _ARXIV_RE.search(u)
        if found:
            out.add("arxiv:" + found.group(1))
        key = re.sub(r"^[a-z]+://(www\.)?", "", u.casefold()).rstrip("/")
        out.add(key.removesuffix(".git"))
    return frozenset(out)


@dataclass(frozen=True)
class LinkRecord:
    """One record naming a work, as the fuzzy pass sees it (identifiers it shares with other
    sources are not given to it: that is what it is for)."""

    id: str
    source: str
    title: str
    year: int | None = None
    venue: str | None = None
    authors: frozenset[str] = frozenset()
    links: frozenset[str] = frozenset()

    @property
    def words(self) -> list[str]:
        return [w for w in normalise_title(self.title).split() if w not in STOPWORDS]


@dataclass(frozen=True)
class Link:
    """A proposed link between two records of different sources: the fields that agreed,
    each field's score, the link's score, and whether it is accepted for joins and why."""

    a: str
    b: str
    score: float
    fields: dict[str, float]
    accepted: bool = False
    reason: str = ""

    @property
    def agreed(self) -> list[str]:
        return [f for f, v in self.fields.items() if v >= 0.9]

    def to_json(self) -> dict[str, Any]:
        return {
            "candidates": [self.a, self.b],
            "score": round(self.score, 4),
            "fields": {k: round(v, 4) for k, v in self.fields.items()},
            "agreed": self.agreed,
            "accepted": self.accepted,
            "reason": self.reason,
        }


def score(a: LinkRecord, b: LinkRecord) -> tuple[float, dict[str, float]]:
    """The link's score and each field's: the title's similarity (rapidfuzz's
    ``token_sort_ratio`` of the normalised titles, 0–1) weighted WEIGHT_TITLE, the rest the
    mean of the corroborating fields both records give — year (1 equal, 0.5 one apart, 0
    otherwise), authors (shared family names over the shorter list), venue (1 when the folded
    venues are equal; not counted otherwise, sources name venues differently) and links (1
    when a URL or arXiv id is shared; not counted otherwise) — and never more than the
    title's similarity: corroboration lowers a title's score (other years, other authors),
    it never lifts a near title over the threshold (a follow-up paper by the same authors
    agrees on authors, venue and links). No corroborating field: the title's similarity."""
    from rapidfuzz import fuzz

    fields = {
        "title": fuzz.token_sort_ratio(normalise_title(a.title), normalise_title(b.title)) / 100
    }
    if a.year is not None and b.year is not None:
        gap = abs(a.year - b.year)
        fields["year"] = 1.0 if gap == 0 else 0.5 if gap == 1 else 0.0
    if a.authors and b.authors:
        fields["authors"] = len(a.authors & b.authors) / min(len(a.authors), len(b.authors))
    if a.venue and b.venue and venue_key(a.venue) and venue_key(a.venue) == venue_key(b.venue):
        fields["venue"] = 1.0
    if a.links & b.links:
        fields["links"] = 1.0
    others = [v for k, v in fields.items() if k != "title"]
    if not others:
        return fields["title"], fields
    total = WEIGHT_TITLE * fields["title"] + (1 - WEIGHT_TITLE) * sum(others) / len(others)
    return min(fields["title"], total), fields


def blocks(records: list[LinkRecord]) -> set[tuple[int, int]]:
    """The pairs worth scoring (indices, different sources): records sharing one of their
    BLOCK_WORDS rarest title words (by how many records hold the word), so the pass is
    near-linear in the records, not quadratic. Two titles of one work that share none of
    their rarest words are missed here: the benchmark's recall counts them."""
    from collections import Counter, defaultdict

    frequency = Counter(w for r in records for w in set(r.words))
    index: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(records):
        for w in sorted(set(r.words), key=lambda w: (frequency[w], w))[:BLOCK_WORDS]:
            index[w].append(i)
    pairs: set[tuple[int, int]] = set()
    for members in index.values():
        for x, i in enumerate(members):
            for j in members[x + 1 :]:
                if records[i].source != records[j].source:
                    pairs.add((i, j) if i < j else (j, i))
    return pairs


def propose(
    records: list[LinkRecord], threshold: float = THRESHOLD, floor: float = 0.5
) -> list[Link]:
    """Links between records of different sources that may name one work: every blocked pair
    scoring at least ``floor`` is proposed (a candidate, never a merge); it is accepted at or
    above ``threshold`` when it is the best-scoring proposal of both records in the other's
    source (a tie is not accepted: two records of one source fit equally well)."""
    scored: list[tuple[int, int, float, dict[str, float]]] = []
    for i, j in sorted(blocks(records)):
        total, fields = score(records[i], records[j])
        if total >= floor:
            scored.append((i, j, total, fields))
    best: dict[tuple[int, str], list[float]] = {}
    for i, j, total, _ in scored:
        best.setdefault((i, records[j].source), []).append(total)
        best.setdefault((j, records[i].source), []).append(total)

    def sole_best(i: int, source: str, total: float) -> bool:
        found = best[(i, source)]
        return total >= max(found) and found.count(total) == 1

    out: list[Link] = []
    for i, j, total, fields in scored:
        a, b = records[i], records[j]
        agreed = ", ".join(f"{k} {v:.2f}" for k, v in fields.items())
        if total < threshold:
            accepted, reason = (
                False,
                f"score {total:.3f} below the threshold {threshold} ({agreed})",
            )
        elif not (sole_best(i, b.source, total) and sole_best(j, a.source, total)):
            accepted = False
            reason = f"score {total:.3f} but not the one best link of both records ({agreed})"
        else:
            accepted = True
            reason = (
                f"score {total:.3f} at or above the threshold {threshold}, the one best "
                f"link of both records ({agreed})"
            )
        out.append(Link(a.id, b.id, total, fields, accepted, reason))
    return out


@dataclass(frozen=True)
class Match:
    """Two paper nodes of different records that may be one paper: sharing venue, year and
    normalised title (score 1), or linked by :func:`propose` (its score and fields); accepted
    for joins or not, and why."""

    a: str
    b: str
    venue: str | None
    year: int | None
    title: str
    #: the records (documents) describing each node, and their kinds
    documents: tuple[str, ...]
    kinds: tuple[str, ...]
    score: float = 1.0
    #: each compared field's score (empty: an exact key)
    fields: tuple[tuple[str, float], ...] = ()
    accepted: bool = True
    reason: str = "same venue, year and normalised title: an exact key"

    @property
    def evidence(self) -> str:
        if self.fields:
            scores = ", ".join(f"{k} {v:.2f}" for k, v in self.fields)
            return (
                f"similar titles ({self.title!r}) in different records ({', '.join(self.kinds)}):"
                f" score {self.score:.3f} ({scores}); no identifier joins them"
            )
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
            "score": round(self.score, 4),
            "fields": {k: round(v, 4) for k, v in self.fields},
            "accepted": self.accepted,
            "reason": self.reason,
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
            parameters={
                "key": "venue, year and normalised title",
                "links": f"propose(): title, year, venue, authors; proposed at {PROPOSE_FLOOR}, "
                f"accepted at {THRESHOLD}",
            },
            queries=self.queries,
        )

    def to_graph(self):
        from rdflib import RDF, Literal, URIRef
        from rdflib.namespace import PROV, XSD

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
            score = Literal(f"{m.score:.4f}", datatype=XSD.decimal)
            g.add((node, RK.matchScore, score))
            g.add((node, RK.matchAccepted, Literal(m.accepted)))
            g.add((node, RK.matchDecision, Literal(m.reason)))
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


def _year(value: Any) -> int | None:
    try:
        return None if value is None else int(str(value)[:4])
    except ValueError:
        return None


def find(store: Any) -> CandidateMatches:
    """The candidate matches across records of everything in ``store``."""
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    keys_query = package_query(KEYS_QUERY).bind({})
    recorded_query = package_query(RECORDED_QUERY).bind({})
    authors_query = package_query(AUTHORS_QUERY).bind({})
    rows = select_rows(store, keys_query)
    recorded = {(r["a"], r["b"]) for r in select_rows(store, recorded_query)}
    # paper -> its keys, and the records (documents) and kinds that describe it
    docs: dict[str, set[str]] = {}
    kinds: dict[str, str] = {}
    files: dict[str, str] = {}  # document -> its kind and source file: one source of links
    groups: dict[tuple[str, int, str], dict[str, str]] = {}  # key -> paper -> venue as given
    for r in rows:
        paper, document = r["paper"], r["document"]
        docs.setdefault(paper, set()).add(document)
        kinds[document] = r["kind"]
        files[document] = f"{r['kind']}:{r.get('file') or ''}"
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
    # links without an exact key (propose, above): nodes that are not both
    # DOIs, of different records, not matched already; a node's source is the files (and
    # kinds) of its records: two records of one file are never linked (the loader's call)
    authors: dict[str, set[str]] = {}
    for r in select_rows(store, authors_query):
        authors.setdefault(r["paper"], set()).add(str(r["name"]))
    titles: dict[str, tuple[str, str | None, int | None]] = {}
    for r in rows:
        year = r.get("year")
        venue = r.get("venue")
        if year is None and venue is not None and (found := _YEAR_RE.search(str(venue))):
            year = found.group()
        titles.setdefault(
            r["paper"], (str(r["title"]), None if venue is None else str(venue), _year(year))
        )
    records = [
        LinkRecord(paper, "+".join(sorted({files[d] for d in docs[paper]})), title, year, venue,
                   family_names(sorted(authors.get(paper, ()))))
        for paper, (title, venue, year) in sorted(titles.items())
    ]  # fmt: skip
    for link in propose(records, THRESHOLD, PROPOSE_FLOOR):
        a, b = sorted((link.a, link.b))
        if (a, b) in seen or docs[a] & docs[b] or (a, b) in recorded:
            continue
        if a.startswith(DOI) and b.startswith(DOI):
            continue  # two identifiers: two papers
        seen.add((a, b))
        both = sorted(docs[a] | docs[b])
        title, venue, year = titles[a]
        matches.append(
            Match(a, b, venue, year, title, tuple(both), tuple(sorted({kinds[d] for d in both})),
                  link.score, tuple(link.fields.items()), link.accepted, link.reason)
        )  # fmt: skip
    keyed = len({p for members in groups.values() for p in members})
    return CandidateMatches(
        papers=len(docs),
        records=len(kinds),
        keyed=keyed,
        matches=matches,
        recorded=already,
        distinct_dois=dois,
        queries={
            KEYS_QUERY: keys_query,
            RECORDED_QUERY: recorded_query,
            AUTHORS_QUERY: authors_query,
        },
    )
