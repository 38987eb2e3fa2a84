"""The ReScience C bibliography (``published.bib``) -> one document per article (``rescience``).

ReScience C publishes peer-reviewed replications and reproductions; its bibliography
(ReScience/rescience.github.io, ``_bibliography/published.bib``) has one BibTeX entry per
article with ``doi`` (the article's Zenodo DOI), ``url``, ``code_url``, ``code_doi``,
``code_swh``, ``data_url``, ``data_doi``, ``review_url``, ``type`` (Replication,
Reproduction, Editorial, Letter), ``domain``, ``language``, ``keywords``, ``year``,
``month``, ``volume``, ``number``. The outcome is in the title, as the journal's template
asks authors to write it: ``[Re]`` a successful replication, ``[¬Re]`` a failed one,
``[~Re]`` a partial one, and ``[Rp]`` / ``[¬Rp]`` for reproductions.

Each article is a ``rk:ReproductionReport`` (its DOI IRI, the same node the ML
Reproducibility Challenge ``metadata.yaml`` loader writes, so the original paper those
headers name through ``rk:reproduces`` joins in the graph), with one
``rk:ReproductionAssessment`` by journal review whose outcome is the label's
(``reproductionKind``: replication = ACM 2020 replicability, reproduction = ACM 2020
reproducibility). An article without a label (an editorial, a letter) is loaded as an
article without an assessment: no outcome is invented. BibTeX is parsed by bibtexparser;
an entry it cannot parse is a rejected document with a located Violation, and the
bibliography's other entries are stored. Authors stay one text (names never make person
nodes).
"""

from __future__ import annotations

import re
from typing import Any

from rdflib import RDF, Literal, URIRef
from rdflib.namespace import XSD

from reprokg.core.document import Document, Message
from reprokg.core.errors import LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint
from reprokg.core.namespaces import RK, RKX, SCHEMA, new_graph, rkx_term
from reprokg.loaders.evidence import (
    Assessment,
    agent,
    link,
    normalise_title,
    read_doi,
    read_swhid,
    rejected_record,
)
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.source import decode_text
from reprokg.loaders.reading.summary import LoadSummary

INFO = LoaderInfo(kind="rescience", name="reprokg.loaders.rescience", version="1")

#: title label -> (outcome, what kind of study, the label's meaning)
LABELS: dict[str, tuple[URIRef, URIRef, str]] = {
    "Re": (RK.OutcomeReproduced, RK.Acm2020Replicability, "successful replication"),
    "¬Re": (RK.OutcomeNotReproduced, RK.Acm2020Replicability, "failed replication"),
    "~Re": (RK.OutcomePartiallyReproduced, RK.Acm2020Replicability, "partial replication"),
    "Rp": (RK.OutcomeReproduced, RK.Acm2020Reproducibility, "successful reproduction"),
    "¬Rp": (RK.OutcomeNotReproduced, RK.Acm2020Reproducibility, "failed reproduction"),
    "~Rp": (RK.OutcomePartiallyReproduced, RK.Acm2020Reproducibility, "partial reproduction"),
}
_LABEL_RE = re.compile(r"\[\s*([¬~]?)\s*(Re|Rp)\s*\]")
KNOWN = {
    "author", "title", "journal", "year", "month", "volume", "number", "pages", "doi", "url",
    "code_url", "code_doi", "code_swh", "data_url", "data_doi", "review_url", "type",
    "language", "domain", "keywords", "note",
}  # fmt: skip


def sniff(name: str, head: str) -> bool:
    return name.endswith(".bib") and "@" in head and ("ReScience" in head or "code_url" in head)


def load(data: bytes, name: str) -> list[Document]:
    return load_with_summary(data, name)[0]


def _plain(v: Any) -> str:
    """A BibTeX value without its protecting braces and with spaces collapsed."""
    s = str(v or "").strip()
    while len(s) >= 2 and s[0] == "{" and s[-1] == "}":
        s = s[1:-1].strip()
    s = s.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", s).strip()


def load_with_summary(data: bytes, name: str) -> tuple[list[Document], LoadSummary]:
    import bibtexparser

    text = decode_text(data, name)
    summary = LoadSummary(name, INFO.kind)
    try:
        library = bibtexparser.parse_string(text)
    except Exception as exc:
        raise LoadError(f"cannot parse the BibTeX: {exc}", source=name, line=1) from exc
    if not library.entries and not library.failed_blocks:
        raise LoadError("no BibTeX entry found; expected the ReScience C bibliography", source=name)
    docs: list[Document] = []
    for block in library.failed_blocks:
        line = (block.start_line or 0) + 1
        summary.records += 1
        raw = getattr(block, "raw", "") or ""
        why = str(getattr(block, "error", "") or type(block).__name__)
        summary.skip(line, "BibTeX entry", f"cannot be parsed ({why})")
        docs.append(
            rejected_record(
                INFO,
                name=name,
                source=raw.encode("utf-8"),
                key=f"{INFO.kind}:rejected:{stable_key(name, line, raw)}",
                path="entry",
                message=f"entry: this BibTeX entry cannot be parsed ({why}); it is skipped and "
                "the other entries are loaded",
                line=line,
            )
        )
    for entry in library.entries:
        summary.records += 1
        docs.append(_entry(entry, name, summary))
    summary.documents = len(docs)
    return docs, summary


def _entry(entry: Any, name: str, summary: LoadSummary) -> Document:
    line = (entry.start_line or 0) + 1
    fields = {f.key.lower(): _plain(f.value) for f in entry.fields}
    raw = (getattr(entry, "raw", None) or repr(sorted(fields.items()))).encode("utf-8")
    title, doi_text = fields.get("title", ""), fields.get("doi", "")
    g = new_graph()
    msgs: list[Message] = []
    report: URIRef | None = None
    if doi_text:
        record = f"entry {entry.key}"
        report = read_doi(
            doi_text, field="doi", record=record, line=line, messages=msgs, summary=summary
        )
        if report is not None:
            g.add((report, RK.doiAsWritten, Literal(doi_text)))
    if not title:
        summary.skip(line, f"entry {entry.key}", "no title")
        return rejected_record(
            INFO,
            name=name,
            source=raw,
            key=f"{INFO.kind}:rejected:{stable_key(name, entry.key)}",
            path="title",
            message="title: every ReScience article has a title (it carries the outcome label)",
            line=line,
        )
    key = str(report).removeprefix("https://doi.org/") if report is not None else entry.key
    if report is None:
        report = mint("report", stable_key("rescience", entry.key))
        msgs.append(
            Message(
                "Warning",
                "doi",
                "no DOI: the article gets a minted IRI and cannot join the "
                "ML Reproducibility Challenge headers",
                None,
                None,
                line,
            )  # fmt: skip
        )
    kind = fields.get("type", "")
    g.add((report, RDF.type, SCHEMA.ScholarlyArticle))
    g.add((report, SCHEMA.name, Literal(title)))
    if kind:
        g.add((report, SCHEMA.additionalType, Literal(kind)))
    labels = _LABEL_RE.findall(title)
    if kind.lower() in ("replication", "reproduction") or labels:
        g.add((report, RDF.type, RK.ReproductionReport))
    journal = fields.get("journal", "")
    if journal:
        g.add((report, RK.journalName, Literal(journal)))
    year = fields.get("year", "")
    if year.isdigit():
        g.add((report, RK.publicationYear, Literal(int(year))))
    elif year:
        g.add((report, RKX.year, Literal(year)))
        msgs.append(Message("Warning", "year", "year is not a number", None, year, line))
    for k, prop in (
        ("volume", RK.journalVolume),
        ("number", RK.journalIssue),
        ("pages", RK.articleNumber),
        ("author", RK.authorNamesAsWritten),
        ("language", SCHEMA.programmingLanguage),
        ("domain", RK.researchField),
    ):
        if fields.get(k):
            g.add((report, prop, Literal(fields[k])))
    for kw in (x.strip() for x in fields.get("keywords", "").split(",")):
        if kw:
            g.add((report, SCHEMA.keywords, Literal(kw)))
    for k, prop in (
        ("url", RK.articleURL),
        ("code_url", SCHEMA.codeRepository),
        ("review_url", RK.reviewURL),
        ("data_url", RK.dataURL),
    ):
        v = fields.get(k, "")
        if not v:
            continue
        iri = link(v)
        if iri is not None:
            g.add((report, prop, iri))
        else:
            g.add((report, rkx_term(k), Literal(v)))
            msgs.append(Message("Info", k, "not an http(s) URL; kept as written", None, v, line))
    for k, prop in (("code_doi", RK.codeDOI), ("data_doi", RK.dataURL)):
        v = fields.get(k, "")
        if v:
            iri = read_doi(
                v, field=k, record=f"entry {entry.key}", line=line, messages=msgs,
                summary=summary,
            )  # fmt: skip
            if iri is not None:
                g.add((report, prop, iri))
            else:
                g.add((report, rkx_term(k), Literal(v)))
    swh = fields.get("code_swh", "")
    if swh:
        read = read_swhid(g, report, swh, field="code_swh", record=f"entry {entry.key}",
                          line=line, messages=msgs)  # fmt: skip
        written = swh if swh.startswith("swh:") else "swh:" + swh
        g.add((report, RK.softwareHeritageId, Literal(written if read is None else str(read))))
    for k, v in fields.items():
        if k not in KNOWN and v:
            g.add((report, rkx_term(k), Literal(v)))
            msgs.append(Message.kept_unknown("field", k, report, v, line))

    # the outcome label (an article still under review has none yet)
    if labels and journal.lower() == "under review":
        summary.skip(line, f"outcome of {title!r}", "the article is still under review")
        msgs.append(
            Message("Info", "journal", "under review: its label is the authors' claim, not a "
                    "reviewed outcome; no assessment is made", str(report), journal, line)
        )  # fmt: skip
        labels = []
    elif not labels:
        summary.counts[f"articles without an outcome label ({kind or 'no type'})"] += 1
        if kind.lower() in ("replication", "reproduction"):
            msgs.append(
                Message(
                    "Warning",
                    "title",
                    f"a {kind.lower()} whose title carries no outcome label ([Re], [¬Re], "
                    "[~Re], [Rp], [¬Rp]): no assessment is made",
                    str(report),
                    title,
                    line,
                )
            )
            summary.skip(line, f"outcome of {title!r}", "no outcome label in the title")
        else:
            summary.skip(line, f"outcome of {title!r}", f"not a replication (type {kind!r})")
    else:
        mark, letters = labels[0]
        label = f"{mark}{letters}"
        outcome, study_kind, meaning = LABELS[label]
        written = f"[{label}]"
        if not re.match(r"^\s*\[", title):
            summary.normal("title", f"{written} inside the title", label)
            msgs.append(
                Message(
                    "Info",
                    "title",
                    f"the outcome label {written} is inside the title, not "
                    "before it; read as the article's label",
                    str(report),
                    title,
                    line,
                )  # fmt: skip
            )
        if len(set(labels)) > 1:
            msgs.append(
                Message(
                    "Warning",
                    "title",
                    "the title carries several outcome labels; the first is read",
                    str(report),
                    title,
                    line,
                )  # fmt: skip
            )
        declared = {"replication": "Re", "reproduction": "Rp"}.get(kind.lower())
        if declared != letters:
            msgs.append(
                Message(
                    "Info",
                    "type",
                    f"type {kind!r} but the title label is {written}; the label decides the kind",
                    str(report),
                    kind,
                    line,
                )  # fmt: skip
            )
        summary.normal("title label", written, SLUG_OF[outcome])
        summary.outcomes[SLUG_OF[outcome]] += 1
        summary.counts[f"label {written}"] += 1
        _original(g, report, title, line, msgs, summary)
        review = link(fields.get("review_url", ""))
        date = _date(year, fields.get("month", ""))
        Assessment(
            node=mint("assessment", stable_key(INFO.kind, key)),
            outcome=outcome,
            method=RK.JournalReview,
            assessor=agent(g, "rescience-c", "ReScience C (replication authors and reviewers)"),
            source=RK.ReScienceC,
            report=report,
            kind=study_kind,
            date=date,
            as_written=written,
            note=f"title label {written}: {meaning} (ReScience C's convention)",
            evidence=[x for x in (report, review) if x is not None],
            venue="ReScience C",
            year=int(year) if year.isdigit() else None,
        ).add_to(g)
    return INFO.document(
        g,
        source_name=name,
        source_bytes=raw,
        source_key=f"{INFO.kind}:{key}",
        messages=msgs,
        lines={"title": line, "doi": line},
        subject=report,
    )


#: how a replication's title introduces its original, after the label ("[Re] Reproducing
#: 'X'", "[¬Re] Reproducibility Study of 'X'"); ReScience C's template otherwise asks for
#: "[Re] <the original's title>"
_INTRO_RE = re.compile(
    r"^(?:a\s+)?(?:reproducibility\s+(?:case\s+)?study\s+(?:of|on)|reproducibility\s+of|"
    r"reproducing|replicating|replication\s+of|reproduction\s+of|re-?implementation\s+of|"
    r"on\s+the\s+reproducibility\s+of)\s*:?\s*",
    re.IGNORECASE,
)
_QUOTED_RE = re.compile(r"[\'‘\"“](.{8,}?)[\'’\"”](?=\W|$)")


def original_title(title: str) -> str | None:
    """The original's title as a replication's title gives it: the quoted title when there
    is one, else the title after the label and an introduction ("Reproducing …"); none when
    the label is not in front (a pun such as "[~Re]visited" names no original)."""
    if not _LABEL_RE.match(title.lstrip()):
        return None
    rest = _LABEL_RE.sub(" ", title).strip(" :-–—")
    quoted = _QUOTED_RE.search(rest)
    if quoted:
        return quoted.group(1).strip()
    rest = _INTRO_RE.sub("", rest).strip(" :-–—")
    return rest if len(rest.split()) >= 2 else None


def _original(
    g: Any, report: URIRef, title: str, line: int, msgs: list[Message], summary: LoadSummary
) -> None:
    """The work the article replicates, minted from the title its own title gives (the
    bibliography names originals no other way): linked with ``rk:reproduces``, its title
    kept as the evidence a candidate match rests on; never merged with a paper of another
    source (``reprokg evidence match`` proposes that)."""
    cited = original_title(title)
    if cited is None:
        summary.counts["replications whose title names no original"] += 1
        return
    norm = normalise_title(cited)
    original = mint("publication", stable_key("cited-title", norm))
    g.add((original, RDF.type, SCHEMA.ScholarlyArticle))
    g.add((original, SCHEMA.name, Literal(cited)))
    g.add((original, RK.normalisedTitle, Literal(norm)))
    g.add((original, RK.citationText, Literal(title)))
    g.add((report, RK.reproduces, original))
    summary.counts["originals named by the title"] += 1
    msgs.append(
        Message(
            "Info",
            "title",
            f"the original is named only by its title ({cited!r}): a work minted from that "
            "title, with no DOI to join other sources (candidate matches may)",
            str(original),
            title,
            line,
        )  # fmt: skip
    )


SLUG_OF = {
    RK.OutcomeReproduced: "reproduced",
    RK.OutcomeNotReproduced: "not-reproduced",
    RK.OutcomePartiallyReproduced: "partially-reproduced",
}


def _date(year: str, month: str) -> Literal | None:
    if not year.isdigit():
        return None
    if month.isdigit() and 1 <= int(month) <= 12:
        return Literal(f"{int(year):04d}-{int(month):02d}", datatype=XSD.gYearMonth)
    return Literal(f"{int(year):04d}", datatype=XSD.gYear)
