"""Artifact-evaluation results -> one document per evaluated artifact (``artifact-evaluation``).

Three inputs, one record model:

* ReproDB's ``artifacts.json`` (ReproDB/reprodb.github.io): one object per evaluated
  artifact of 13 systems and security venues: ``conference``, ``year``, ``title``,
  ``badges`` (labels as the venue wrote them), ``artifact_urls``, ``doi`` (the
  *artifact's* DOI, usually Zenodo's: docs/architecture.md, Design decisions, Papers,
  artifacts and assessments), ``paper_url`` (where the paper's DOI is, when it is),
  ``appendix_url``, ``award``;
* ReproDB's ``papers.json``: every paper of a venue and year with ``has_artifact``, one
  document per venue and year (the denominators: papers without an evaluated artifact);
* a raw ``results.md`` of sysartifacts/secartifacts (``_conferences/<venue><year>/``, or
  saved as ``<venue><year>-results.md``): YAML front matter with an ``artifacts:`` list, or
  a Markdown table whose badges are ``<span>`` s.

Per artifact: the paper (its DOI IRI when ``paper_url`` or the page's ``doi`` gives one,
else minted from venue, year and normalised title, :func:`~reprokg.loaders.evidence.
minted_paper`), the artifact (``rk:ResearchArtifact``: its URLs and DOIs as
``rk:artifactLocation``), the badges as ACM/NISO concepts (``rk:badge`` on the paper, the
labels as written kept; docs/badge-normalisation.md) and one ``rk:ReproductionAssessment``
by the venue's committee: *reproduced* when a results badge was awarded, *not attempted*
otherwise (the source judges no results). A paper with a DOI whose record also has venue,
year and title gets a ``rk:CandidateMatch`` with the minted node of the same venue, year
and title (which papers.json uses), with its evidence: never merged. A malformed record is
a rejected document with a located Violation; the file's other records are stored.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from rdflib import RDF, Literal, URIRef

import reprokg.loaders.badges as badges
from reprokg.core.document import Document, Message
from reprokg.core.errors import LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import doi_iri, mint
from reprokg.core.namespaces import RK, RKX, SCHEMA, new_graph
from reprokg.core.swhid import RESOLVER
from reprokg.loaders.evidence import (
    Assessment,
    agent,
    link,
    minted_paper,
    normalise_title,
    paper_doi,
    read_doi,
    read_swhid,
    rejected_record,
    typed_year,
)
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.limits import check_records
from reprokg.loaders.reading.source import decode_text, not_a_scalar, parse_json
from reprokg.loaders.reading.summary import LoadSummary

INFO = LoaderInfo(
    kind="artifact-evaluation", name="reprokg.loaders.artifact_evaluation", version="1"
)

_RESULTS_NAME_RE = re.compile(r"^(?P<venue>[a-z]+)(?P<year>\d{4})(?:-results)?\.md$", re.I)
_SPAN_RE = re.compile(r"<span[^>]*>(.*?)</span>", re.I | re.S)
_MD_LINK_RE = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")
#: front-matter keys of a results page that hold artifact locations
_URL_KEYS = ("artifact_url", "github_url", "scripts_url", "cloudlab_url", "zenodo_url", "url")


def sniff(name: str, head: str) -> bool:
    stripped = head.lstrip()
    if stripped.startswith("[") and '"conference"' in head and '"badges"' in head:
        return True
    if name.endswith("results.md") or _RESULTS_NAME_RE.match(PurePath(name).name):
        return "badges" in head.lower() or "Awarded Badges" in head or "_name" in head
    return False


@dataclass
class Record:
    """One evaluated artifact, whatever the input it came from."""

    venue: str
    year: int
    title: str
    badges: list[str]
    line: int | None
    origin: str  # "reprodb" | "results-page"
    urls: list[str] = field(default_factory=list)
    artifact_doi: str = ""
    paper_url: str = ""
    doi: str = ""  # the paper's DOI when the source gives it as such (SOSP's page)
    appendix_url: str = ""
    award: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def load(data: bytes, name: str) -> list[Document]:
    return load_with_summary(data, name)[0]


def load_with_summary(data: bytes, name: str) -> tuple[list[Document], LoadSummary]:
    text = decode_text(data, name)
    summary = LoadSummary(name, INFO.kind)
    stripped = text.lstrip()
    if stripped.startswith("["):
        docs = _load_json(text, name, summary)
    else:
        docs = _load_results_page(text, name, summary)
    summary.documents = len(docs)
    return docs, summary


# --------------------------------------------------------------------------- ReproDB JSON


def _elements(text: str, name: str) -> list[tuple[Any, int, str]]:
    """The array's elements with the line each starts on and its own text; the node limit
    holds per record (each is a document), so an export of any number of records is read."""
    parsed = parse_json(text, name, per_record=True)
    if not isinstance(parsed, list):
        raise LoadError("expected a JSON array of artifacts or papers", source=name, line=1)
    check_records(parsed, name, "record")
    decoder = json.JSONDecoder()
    out = []
    pos = text.index("[") + 1
    line, counted = 1, 0
    for _ in parsed:
        while text[pos] in " \t\r\n,":
            pos += 1
        value, end = decoder.raw_decode(text, pos)
        line += text.count("\n", counted, pos)
        counted = pos
        out.append((value, line, text[pos:end]))
        pos = end
    return out


def _load_json(text: str, name: str, summary: LoadSummary) -> list[Document]:
    elements = _elements(text, name)
    papers_list = any(isinstance(v, dict) and "has_artifact" in v for v, _, _ in elements[:50])
    if papers_list:
        return _load_papers(elements, name, summary)
    docs: list[Document] = []
    seen: dict[str, int] = {}
    raws: dict[str, int] = {}
    claimed: dict[str, tuple[int | None, str]] = {}  # paper DOI -> the first line, title
    for i, (rec, line, raw) in enumerate(elements):
        summary.records += 1
        if raw in raws:
            summary.skip(
                line, f"record {i + 1}", f"an exact copy of the record at line {raws[raw]}"
            )
            continue
        raws[raw] = line
        problem = _check(rec)
        if problem is not None:
            path, why = problem
            docs.append(_rejected(name, raw, f"record {i + 1}", path, why, line, summary))
            continue
        r = Record(
            venue=rec["conference"].strip(),
            year=int(rec["year"]),
            title=rec["title"].strip(),
            badges=[str(b) for b in rec.get("badges") or []],
            line=line,
            origin="reprodb",
            urls=[str(u) for u in rec.get("artifact_urls") or [] if str(u).strip()],
            artifact_doi=str(rec.get("doi") or "").strip(),
            paper_url=str(rec.get("paper_url") or "").strip(),
            appendix_url=str(rec.get("appendix_url") or "").strip(),
            award=_award(rec.get("award")),
            extra={
                k: str(v) for k, v in rec.items() if k not in _JSON_KEYS and v not in (None, "", [])
            },
        )
        base = f"reprodb:{r.venue}:{r.year}:{normalise_title(r.title)}"
        seen[base] = seen.get(base, 0) + 1
        key = base if seen[base] == 1 else f"{base}#{seen[base]}"
        doc = _record_document(r, key, name, raw.encode("utf-8"), summary)
        _warn_on_a_shared_doi(doc, r, claimed, summary)
        docs.append(doc)
    return docs


def _warn_on_a_shared_doi(
    doc: Document, r: Record, claimed: dict[str, tuple[int | None, str]], summary: LoadSummary
) -> None:
    """A paper DOI the source gives to records of different titles is a conflict: both
    records stay, each with its title (the passport shows them apart); the load says so
    with both titles."""
    papers = {str(p) for p in doc.graph.subjects(RK.hasArtifact, None)}
    for paper in sorted(p for p in papers if p.startswith("https://doi.org/")):
        first = claimed.setdefault(paper, (r.line, r.title))
        if normalise_title(first[1]) != normalise_title(r.title):
            doi = paper.removeprefix("https://doi.org/")
            text = (
                f"DOI {doi} is given to {r.title!r} here and to {first[1]!r} (line {first[0]}): "
                "two papers claim one DOI; both are kept, each with its own evidence"
            )
            doc.messages.append(Message("Warning", "paper_url", text, paper, doi, r.line))
            summary.counts["DOIs given to two titles"] += 1


_JSON_KEYS = {
    "conference", "category", "year", "title", "badges", "artifact_urls", "doi", "paper_url",
    "appendix_url", "award",
}  # fmt: skip


def _award(v: Any) -> str:
    if v in (None, "", False):
        return ""
    return "award" if v is True else str(v).strip()


def _check(rec: Any) -> tuple[str, str] | None:
    """(field, what is wrong) for a record that cannot be read, else None."""
    if not isinstance(rec, dict):
        return "record", f"expected a JSON object per artifact, got {type(rec).__name__}"
    for k in ("conference", "title"):
        if not isinstance(rec.get(k), str) or not rec[k].strip():
            return k, f"{k!r} is missing or not text; every artifact names its venue and title"
    y = rec.get("year")
    if isinstance(y, bool) or not (
        isinstance(y, int) or (isinstance(y, str) and y.strip().isdigit())
    ):
        return "year", f"'year' must be a year such as 2023, got {y!r}"
    if not 1950 <= int(y) <= 2100:
        return "year", f"'year' {y!r} is not a plausible year of an evaluation"
    b = rec.get("badges")
    if b is not None and (not isinstance(b, list) or not all(isinstance(x, str) for x in b)):
        return "badges", f"'badges' must be a list of labels, got {json.dumps(b)[:60]}"
    u = rec.get("artifact_urls")
    if u is not None and (not isinstance(u, list) or not all(isinstance(x, str) for x in u)):
        return "artifact_urls", "'artifact_urls' must be a list of URLs"
    return _not_text(rec, _TEXT_KEYS) or _bad_award(rec)


def _bad_award(rec: dict[str, Any]) -> tuple[str, str] | None:
    """An award is true/false or its name; an object or a list is not (its Python text was
    the award's name)."""
    v = rec.get("award")
    if isinstance(v, bool) or v is None or not_a_scalar(v) is None:
        return None
    return "award", f"'award' must be true, false or the award's name, not {not_a_scalar(v)}"


#: a record's fields that are one text (its DOI, its links), each read with ``str()``
_TEXT_KEYS = ("doi", "paper_url", "appendix_url")


def _not_text(rec: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, str] | None:
    """(field, what is wrong) for the first of ``keys`` that is an object, a list or a
    boolean (its Python text ``{'a': 1}`` was taken as the DOI or link), else None."""
    for k in keys:
        what = None if rec.get(k) is None else not_a_scalar(rec[k])
        if what is not None:
            return k, f"{k!r} must be one text (a title, a DOI or a URL), not {what}"
    return None


def _rejected(
    name: str, raw: str, what: str, path: str, why: str, line: int | None, summary: LoadSummary
) -> Document:
    summary.skip(line, what, f"{path}: {why}")
    return rejected_record(
        INFO,
        name=name,
        source=raw.encode("utf-8"),
        key=f"{INFO.kind}:rejected:{stable_key(name, line, raw)}",
        path=path,
        message=f"{path}: {why} (the record is skipped; the file's other records are loaded)",
        line=line,
    )


def _load_papers(
    elements: list[tuple[Any, int, str]], name: str, summary: LoadSummary
) -> list[Document]:
    """papers.json: one document per venue and year, each paper a node (minted key)."""
    groups: dict[tuple[str, int], list[tuple[dict, int, str]]] = {}
    docs: list[Document] = []
    for i, (rec, line, raw) in enumerate(elements):
        summary.records += 1
        problem = _check(rec)
        if problem is None and not isinstance(rec.get("has_artifact"), bool):
            problem = ("has_artifact", "'has_artifact' must be true or false")
        if problem is not None:
            docs.append(_rejected(name, raw, f"paper {i + 1}", *problem, line, summary))
            continue
        groups.setdefault((rec["conference"].strip(), int(rec["year"])), []).append(
            (rec, line, raw)
        )
    for (venue, year), members in sorted(groups.items()):
        g = new_graph()
        lines: dict[str, int] = {}
        seen: set[URIRef] = set()
        for rec, line, _ in members:
            title = rec["title"].strip()
            paper = minted_paper(venue, year, title)
            if paper in seen:
                summary.skip(line, f"paper {title!r}", "listed twice for the venue and year")
                continue
            seen.add(paper)
            _paper_facts(g, paper, venue, year, title)
            g.add((paper, RK.artifactEvaluated, Literal(bool(rec["has_artifact"]))))
            summary.counts["papers with an evaluated artifact" if rec["has_artifact"] else
                           "papers without an evaluated artifact"] += 1  # fmt: skip
            lines.setdefault(f"{venue}{year}", line)
        source = "\n".join(raw for _, _, raw in members).encode("utf-8")
        docs.append(
            INFO.document(
                g,
                source_name=name,
                source_bytes=source,
                source_key=f"{INFO.kind}:reprodb-papers:{venue}:{year}",
                lines=lines,
                messages=[],
            )
        )
    return docs


# --------------------------------------------------------------------------- results pages


def _venue_year(name: str) -> tuple[str, int]:
    p = PurePath(name)
    m = _RESULTS_NAME_RE.match(p.name) or (
        _RESULTS_NAME_RE.match(p.parent.name + ".md") if p.name == "results.md" else None
    )
    if not m:
        raise LoadError(
            "cannot tell the venue and year of this results page from its name; expected "
            "_conferences/<venue><year>/results.md or <venue><year>-results.md",
            source=name,
            line=1,
        )
    return m.group("venue").upper(), int(m.group("year"))


def _load_results_page(text: str, name: str, summary: LoadSummary) -> list[Document]:
    from reprokg.loaders.reading.yaml_scalars import Scalar, parse_yaml

    venue, year = _venue_year(name)
    front, body, body_line = _split_front_matter(text)
    records: list[Record] = []
    if front is not None:
        head = parse_yaml(front, name)
        arts = head.get("artifacts") if isinstance(head, dict) else None
        if isinstance(arts, list):
            for a in arts:
                summary.records += 1
                line = _first_line(a)
                bad = (
                    _not_text(a, ("title", *_TEXT_KEYS, *_URL_KEYS)) or _bad_award(a)
                    if isinstance(a, dict)
                    else None
                )
                if bad or not isinstance(a, dict) or not str(a.get("title") or "").strip():
                    raw = json.dumps(a, default=str)
                    extra = {"raw": raw}
                    if bad:
                        extra |= {"path": f"artifacts[].{bad[0]}", "why": bad[1]}
                    records.append(Record(venue, year, "", [], line, "rejected", extra=extra))
                    continue
                urls = [str(a[k]).strip() for k in _URL_KEYS if str(a.get(k) or "").strip()]
                records.append(
                    Record(
                        venue=venue,
                        year=year,
                        title=str(a["title"]).strip(),
                        badges=[str(a.get("badges") or "")] if a.get("badges") else [],
                        line=line,
                        origin="results-page",
                        urls=urls,
                        paper_url=str(a.get("paper_url") or "").strip(),
                        doi=str(a.get("doi") or "").strip(),
                        appendix_url=str(a.get("appendix_url") or "").strip(),
                        award=_award(a.get("award")),
                        extra={
                            str(k): str(v)
                            for k, v in a.items()
                            if str(k) not in _PAGE_KEYS and isinstance(v, Scalar) and v.strip()
                        },
                    )
                )
    records += _table_records(body, body_line, venue, year, summary)
    docs: list[Document] = []
    for r in records:
        raw = json.dumps(r.__dict__, sort_keys=True, default=str)
        if r.origin == "rejected":
            docs.append(
                _rejected(
                    name,
                    r.extra.get("raw", raw),
                    "artifact",
                    r.extra.get("path", "artifacts[].title"),
                    r.extra.get("why", "every artifact of a results page names its paper's title"),
                    r.line,
                    summary,
                )
            )
            continue
        key = f"results-page:{venue}:{year}:{normalise_title(r.title)}"
        docs.append(_record_document(r, key, name, raw.encode("utf-8"), summary))
    return docs


_PAGE_KEYS = {*_URL_KEYS, "title", "badges", "paper_url", "doi", "appendix_url", "award"}


def _first_line(v: Any) -> int | None:
    if isinstance(v, dict):
        for k in v:
            ln = getattr(k, "line", None)
            if ln is not None:
                return ln
    return getattr(v, "line", None)


def _split_front_matter(text: str) -> tuple[str | None, str, int]:
    """(front matter with the lines of the file, body, the body's first line)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None, text, 1
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            # the opening line blanked, so that YAML line numbers are the file's
            front = "\n".join(["", *lines[1:i]])
            return front, "\n".join(lines[i + 1 :]), i + 2
    return None, text, 1


def _table_records(
    body: str, first_line: int, venue: str, year: int, summary: LoadSummary
) -> list[Record]:
    """Rows of a Markdown table whose header names the paper title and its badges."""
    out: list[Record] = []
    header: list[str] | None = None
    for offset, row in enumerate(body.split("\n")):
        line = first_line + offset
        if not row.lstrip().startswith("|"):
            header = None if not row.strip() else header
            continue
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if header is None:
            low = [c.lower() for c in cells]
            if any("title" in c for c in low) and any("badge" in c for c in low):
                header = low
            continue
        if all(re.fullmatch(r":?-+:?", c) for c in cells if c):
            continue
        summary.records += 1
        row_map = dict(zip(header, cells, strict=False))
        title_cell = next((v for k, v in row_map.items() if "title" in k), "")
        badge_cell = next((v for k, v in row_map.items() if "badge" in k), "")
        where = next((v for k, v in row_map.items() if "available" in k), "")
        m = _MD_LINK_RE.search(title_cell)
        title = html.unescape(m.group(1) if m else title_cell).strip()
        paper_url = m.group(2) if m else ""
        spans = [html.unescape(s).strip() for s in _SPAN_RE.findall(badge_cell)]
        labels = spans or [b.strip() for b in re.split(r"<br\s*/?>", badge_cell) if b.strip()]
        urls = [u for _, u in _MD_LINK_RE.findall(where) if u]
        if not title:
            out.append(Record(venue, year, "", [], line, "rejected", extra={"raw": row}))
            continue
        out.append(
            Record(venue, year, title, labels, line, "results-page", urls=urls, paper_url=paper_url)
        )
    return out


# --------------------------------------------------------------------------- one artifact


def _paper_facts(g, paper: URIRef, venue: str, year: int, title: str) -> None:
    g.add((paper, RDF.type, SCHEMA.ScholarlyArticle))
    g.add((paper, SCHEMA.name, Literal(title)))
    g.add((paper, RK.conferenceName, Literal(venue)))
    g.add((paper, RK.publicationYear, Literal(year)))
    g.add((paper, RK.normalisedTitle, Literal(normalise_title(title))))


def _record_document(
    r: Record, key: str, name: str, source: bytes, summary: LoadSummary
) -> Document:
    g = new_graph()
    msgs: list[Message] = []
    line = r.line
    minted = minted_paper(r.venue, r.year, r.title)
    record = f"{r.venue} {r.year} {r.title!r}"
    page_doi = (
        read_doi(r.doi, field="doi", record=record, line=line, messages=msgs, summary=summary)
        if r.doi
        else None
    )
    doi_text = r.doi if page_doi is not None else paper_doi(r.paper_url)
    paper = page_doi or (doi_iri(doi_text) if doi_text else minted)
    _paper_facts(g, paper, r.venue, r.year, r.title)
    if doi_text:
        # the DOI as the source writes it (a paper_url link carries it in its path)
        g.add((paper, RK.doiAsWritten, Literal(doi_text)))
        summary.counts["papers with a DOI"] += 1
        if not r.doi:
            summary.normal("paper_url", "a link carrying a DOI", "the paper's DOI IRI")
        # the same venue, year and title minted: a candidate, never merged
        match = mint("candidate-match", stable_key(str(paper), str(minted)))
        g.add((match, RDF.type, RK.CandidateMatch))
        g.add((match, RK.candidate, paper))
        g.add((match, RK.candidate, minted))
        g.add(
            (
                match,
                RK.matchEvidence,
                Literal(
                    f"same venue ({r.venue}), year ({r.year}) and normalised title "
                    f"({normalise_title(r.title)!r}); the record gives the DOI, other "
                    "records of the venue and year may not"
                ),
            )
        )
    else:
        summary.counts["papers minted from venue, year and title"] += 1
    if r.paper_url and not doi_text:
        url = link(r.paper_url)
        if url is not None:
            g.add((paper, RK.articleURL, url))
        else:
            g.add((paper, RKX.paper_url, Literal(r.paper_url)))
            msgs.append(
                Message(
                    "Info",
                    "paper_url",
                    "paper_url is not an http(s) URL; kept as written",
                    None,
                    r.paper_url,
                    line,
                )  # fmt: skip
            )
    elif r.paper_url and doi_text and r.paper_url.startswith("http"):
        url = link(r.paper_url)
        if url is not None and url != paper:
            g.add((paper, RK.articleURL, url))

    # the artifact: its locations (URLs and the artifact DOI), appendix, award
    artifact = mint("artifact", stable_key("artifact-evaluation", key))
    g.add((artifact, RDF.type, RK.ResearchArtifact))
    g.add((paper, RK.hasArtifact, artifact))
    g.add((artifact, SCHEMA.name, Literal(f"artifact of {r.title!r} ({r.venue} {r.year})")))
    if r.artifact_doi:
        doi = read_doi(r.artifact_doi, field="doi", record=record, line=line, messages=msgs,
                       summary=summary)  # fmt: skip
        if doi is not None:
            g.add((artifact, RK.artifactLocation, doi))
        else:
            g.add((artifact, RKX.artifact_doi, Literal(r.artifact_doi)))
    for u in r.urls:
        iri = link(u)
        if iri is None:
            g.add((artifact, RKX.artifact_url, Literal(u)))
            msgs.append(
                Message(
                    "Info",
                    "artifact_urls",
                    "not an http(s) URL or a DOI; kept as written",
                    None,
                    u,
                    line,
                )  # fmt: skip
            )
            continue
        g.add((artifact, RK.artifactLocation, iri))
        if str(iri).startswith(RESOLVER + "swh:"):  # a Software Heritage permalink: its SWHID
            read_swhid(g, artifact, u, field="artifact_urls", record=record, line=line,
                       messages=msgs)  # fmt: skip
        if str(iri).startswith("https://doi.org/") and not u.startswith("https://doi.org/"):
            summary.normal("artifact location", "a DOI as written", "DOI IRI")
    if r.appendix_url:
        iri = link(r.appendix_url)
        if iri is not None:
            g.add((artifact, RK.artifactAppendix, iri))
        else:
            g.add((artifact, RKX.appendix_url, Literal(r.appendix_url)))
    if r.award:
        g.add((artifact, RK.artifactAward, Literal(r.award)))
    for k, v in r.extra.items():
        g.add((artifact, RKX[re.sub(r"[^A-Za-z0-9_-]+", "_", k)], Literal(v)))
        msgs.append(Message.kept_unknown("key", k, artifact, v, line))

    # the badges, normalised
    terms: list[URIRef] = []
    written: list[str] = []
    for label in r.badges:
        n = badges.normalise(label)
        written.append(label)
        g.add((artifact, RK.badgeAsWritten, Literal(label)))
        if n.empty:
            summary.normal("badges", label, "no badge (an empty list)")
            msgs.append(
                Message(
                    "Warning",
                    "badges",
                    f"badge label {label!r} names no badge; read as none",
                    None,
                    label,
                    line,
                )  # fmt: skip
            )
        for part, term in n.terms:
            summary.normal("badges", part, _short(term))
            if term not in terms:
                terms.append(term)
        for part in n.unknown:
            summary.normal("badges", part, "unknown (kept as written)")
            msgs.append(
                Message(
                    "Warning",
                    "badges",
                    f"badge {part!r} is not in the normalisation table "
                    "(docs/badge-normalisation.md); kept as written, not read as a badge",
                    None,
                    part,
                    line,
                )
            )
    for t in terms:
        g.add((paper, RK.badge, t))
        summary.counts[f"badge {_short(t)}"] += 1
    if not r.badges:
        summary.counts["artifacts without a badge"] += 1

    # the committee's assessment
    results = [t for t in terms if t in badges.RESULTS_BADGES]
    outcome = RK.OutcomeReproduced if results else RK.OutcomeNotAttempted
    kind = None
    if results:
        kind = (
            RK.Acm2020Reproducibility
            if any(t in badges.REPRODUCTION_BADGES for t in results)
            else RK.Acm2020Replicability
        )
    source_node = RK.ReproDB if r.origin == "reprodb" else RK.ArtifactResultsPages
    committee = agent(
        g, f"aec:{r.venue}:{r.year}", f"{r.venue} {r.year} artifact evaluation committee"
    )
    shown = ", ".join(written) if written else "no badge recorded"
    note = f"badges as written: {shown}; read as: " + (
        ", ".join(_short(t) for t in terms) or "none"
    )
    if not results:
        note += (
            "; no results badge, so the source states no judgement of the results"
            if terms
            else "; the source lists the artifact as evaluated without its badges"
        )
    node = mint("assessment", stable_key(INFO.kind, key))
    Assessment(
        node=node,
        outcome=outcome,
        method=RK.ArtifactEvaluationCommittee,
        assessor=committee,
        source=source_node,
        work=paper,
        kind=kind,
        date=typed_year(r.year),
        as_written=shown,
        note=note,
        claim="the paper's main results (results badge)" if results else None,
        evidence=list(terms),
        artifact=artifact,
        venue=r.venue,
        year=r.year,
    ).add_to(g)
    summary.outcomes["reproduced" if results else "not-attempted"] += 1
    return INFO.document(
        g,
        source_name=name,
        source_bytes=source,
        source_key=f"{INFO.kind}:{key}",
        messages=msgs,
        lines={"title": line} if line else {},
        subject=node,
    )


def _short(term: URIRef) -> str:
    return str(term).rsplit("#", 1)[-1]
