"""ML Reproducibility Challenge report headers (ReScience C ``metadata.yaml``) -> one document each.

A report (``rk:ReproductionReport``, its Zenodo DOI IRI) reproduces an original paper
(``rk:reproduces``: the DOI IRI when one is given, else a node minted from its URL or
citation). Authors with an ORCID are ``https://orcid.org/`` IRIs, so one person meets
across reports; a malformed ORCID is kept as ``rk:orcidAsWritten`` on a minted person
and reported. The ReScience template stores most sections as lists of one-key maps
(``code: [{url: …}, {doi: …}]``); they are flattened first. Scalars keep their YAML
text (:func:`parse_yaml`), so ``1,*`` or a date is never guessed into another type.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import PurePath
from typing import Any

from rdflib import RDF, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import PROV

from reprokg.core.document import Document, Message
from reprokg.core.errors import IdentifierError, LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import doi_iri, mint, orcid_iri
from reprokg.core.namespaces import CITO, RK, RKX, SCHEMA, new_graph
from reprokg.loaders.contract import LoaderInfo
from reprokg.loaders.source import decode_text
from reprokg.loaders.yaml_scalars import Scalar, parse_yaml

INFO = LoaderInfo(kind="mlrc", name="reprokg.loaders.mlrc", version="1")

KNOWN = {
    "title", "authors", "affiliations", "keywords", "code", "data", "replication", "abstract",
    "bibliography", "type", "domain", "language", "review", "contributors", "dates", "article",
    "journal",
}  # fmt: skip


#: the title label's mark -> how the report cites the original (CiTO)
CITO_BY_LABEL = {"": CITO.confirms, "¬": CITO.disputes, "~": CITO.qualifies}


def sniff(name: str, head: str) -> bool:
    return (
        PurePath(name).name in ("metadata.yaml", "metadata.yml") or "replication:" in head
    ) and ("authors:" in head and ("journal:" in head or "replication:" in head))


def _text(v: Any) -> str | None:
    """A scalar's text, ``None`` for YAML null / empty / non-scalars."""
    if v is None or isinstance(v, dict | list):
        return None
    if isinstance(v, Scalar) and v.is_null:
        return None
    s = str(v).strip()
    return s or None


def _flat(section: Any) -> dict[str, Any]:
    """``[{url: a}, {doi: b}]`` -> ``{url: a, doi: b}`` (also accepts a plain map)."""
    if isinstance(section, dict):
        return dict(section)
    out: dict[str, Any] = {}
    if isinstance(section, list):
        for item in section:
            if isinstance(item, dict):
                out.update(item)
    return out


def _line(v: Any) -> int | None:
    return v.line if isinstance(v, Scalar) else None


def _date(v: Any) -> Literal | None:
    s = _text(v)
    if s is None:
        return None
    for fmt in ("%B %d, %Y", "%b %d, %Y", "%Y-%m-%d", "%d %B %Y"):
        try:
            return Literal(datetime.strptime(re.sub(r"\s+", " ", s), fmt).date())
        except ValueError:
            continue
    return None


def load(data: bytes, name: str) -> list[Document]:
    text = decode_text(data, name)
    head = parse_yaml(text, name)
    if not isinstance(head, dict):
        raise LoadError(
            "expected a YAML mapping (the ReScience metadata.yaml)", source=name, line=1
        )
    if "title" not in head or "authors" not in head:
        missing = "title" if "title" not in head else "authors"
        raise LoadError(
            f"missing key {missing!r}; expected a ReScience C metadata.yaml header",
            source=name,
            line=1,
            field=missing,
        )
    g = new_graph()
    msgs: list[Message] = []
    lines: dict[str, int] = {}

    def note(path: str, v: Any) -> None:
        ln = _line(v)
        if ln is not None:
            lines.setdefault(path, ln)

    article = _flat(head.get("article"))
    art_doi = _text(article.get("doi"))
    title = _text(head.get("title")) or ""
    label = ""
    report: URIRef | None = None
    if art_doi:
        note("article.doi", article.get("doi"))
        try:
            report = doi_iri(art_doi)
            g.add((report, RK.doiAsWritten, Literal(art_doi)))
        except IdentifierError as exc:
            msgs.append(
                Message(
                    "Warning", "article.doi", str(exc), None, art_doi, _line(article.get("doi"))
                )
            )
    folder = PurePath(name).parent.parent.name if PurePath(name).parent.name == "journal" else ""
    key = art_doi.lower() if report is not None and art_doi else (folder or title)
    if report is None:
        report = mint("report", stable_key("mlrc", key))
    source_key = f"mlrc:{key}"
    kind = _text(head.get("type")) or ""
    g.add((report, RDF.type, SCHEMA.ScholarlyArticle))
    if kind.lower() == "replication":
        g.add((report, RDF.type, RK.ReproductionReport))
    if kind:
        g.add((report, SCHEMA.additionalType, Literal(kind)))
    g.add((report, RK.inSurvey, RK.MLReproducibilityChallenge))
    if title:
        note("title", head["title"])
        g.add((report, SCHEMA.name, Literal(title)))
        m = re.match(r"^\s*\[([¬~]?R[ep])\]", title)
        if m:
            label = m.group(1)
            g.add((report, RK.reproductionOutcome, Literal(f"[{label}]")))
    for k, prop in (("abstract", SCHEMA.abstract), ("domain", RK.conferenceName)):
        s = _text(head.get(k))
        if s:
            note(k, head[k])
            g.add((report, prop, Literal(s)))
    lang = _text(head.get("language"))
    if lang:
        note("language", head["language"])
        g.add((report, SCHEMA.programmingLanguage, Literal(lang)))
    kw = _text(head.get("keywords"))
    if kw:
        for k in (x.strip() for x in kw.split(",")):
            if k:
                g.add((report, SCHEMA.keywords, Literal(k)))

    # affiliations, then authors (ordered)
    affs: dict[str, str] = {}
    raw_affs = head.get("affiliations")
    for a in raw_affs if isinstance(raw_affs, list) else []:  # not a list: nothing to read
        if isinstance(a, dict) and _text(a.get("code")):
            name_ = ", ".join(x for x in (_text(a.get("name")), _text(a.get("address"))) if x)
            affs[_text(a.get("code")) or ""] = name_
    authors = head.get("authors")
    if not isinstance(authors, list):
        raise LoadError(
            "'authors' must be a list of persons",
            source=name,
            line=_line(authors) or 1,
            field="authors",
        )
    people = []
    for i, a in enumerate(authors, 1):
        if not isinstance(a, dict):
            msgs.append(
                Message(
                    "Violation",
                    f"authors[{i}]",
                    "expected a map with name, orcid, email, affiliations",
                    str(report),
                    str(a),
                    _line(a),
                )
            )
            continue
        person = _person(g, msgs, a, f"authors[{i}]", key, i, lines)
        people.append(person)
        g.add((report, SCHEMA.author, person))
        email = _text(a.get("email"))
        if email:
            g.add((person, SCHEMA.email, Literal(email)))
        codes = [c.strip() for c in (_text(a.get("affiliations")) or "").split(",") if c.strip()]
        for c in codes:
            if c == "*":
                g.add((report, RK.contactAuthor, person))
            elif c in affs:
                g.add((person, RK.affiliationName, Literal(affs[c])))
            else:
                msgs.append(
                    Message(
                        "Warning",
                        f"authors[{i}].affiliations",
                        f"affiliation code {c!r} is not listed under 'affiliations'",
                        str(person),
                        c,
                        _line(a.get("affiliations")),
                    )
                )
    if people:
        head_node = mint("authorlist", stable_key("mlrc", key))
        Collection(g, head_node, people)
        g.add((report, RK.authorList, head_node))

    # original article
    rep = _flat(head.get("replication"))
    rdoi, rurl, rcite = _text(rep.get("doi")), _text(rep.get("url")), _text(rep.get("cite"))
    original: URIRef | None = None
    if rdoi:
        note("replication.doi", rep.get("doi"))
        try:
            original = doi_iri(rdoi)
            g.add((original, RK.doiAsWritten, Literal(rdoi)))
        except IdentifierError as exc:
            msgs.append(
                Message(
                    "Warning",
                    "replication.doi",
                    f"{exc}; the original paper gets a minted IRI",
                    None,
                    rdoi,
                    _line(rep.get("doi")),
                )
            )
    if original is None and (rurl or rcite):
        original = mint(
            "publication", stable_key("url", rurl) if rurl else stable_key("cite", rcite)
        )
        if not rdoi:
            msgs.append(
                Message(
                    "Info",
                    "replication.doi",
                    "no DOI for the original paper: it cannot join other sources by DOI",
                    str(original),
                    None,
                    _line(rep.get("url")) or _line(rep.get("cite")),
                )
            )
    if original is not None:
        g.add((original, RDF.type, SCHEMA.ScholarlyArticle))
        g.add((report, RK.reproduces, original))
        # CiTO, from the report to the original: its outcome label as a citation type
        if label:
            g.add((report, CITO_BY_LABEL[label[0] if label[0] in "¬~" else ""], original))
        if rurl:
            g.add(
                (original, RK.articleURL, URIRef(rurl))
                if _is_url(rurl)
                else (original, RKX.replication_url, Literal(rurl))
            )
        if rcite:
            g.add((original, RK.citationText, Literal(rcite)))
    elif kind.lower() == "replication":
        msgs.append(
            Message(
                "Warning",
                "replication",
                "a replication report should name the original paper (doi, url or cite)",
                str(report),
                None,
                _line(head.get("replication")),
            )
        )

    # code, data, review, article, journal, dates
    code = _flat(head.get("code"))
    for k, v in code.items():
        s = _text(v)
        if not s:
            continue
        note(f"code.{k}", v)
        if k == "url":
            fixed = re.sub(r"^(https?):/(?!/)", r"\1://", s)
            g.add(
                (report, SCHEMA.codeRepository, URIRef(fixed))
                if _is_url(fixed)
                else (report, RKX.code_url, Literal(s))
            )
        elif k == "doi":
            try:
                g.add((report, RK.codeDOI, doi_iri(s)))
            except IdentifierError as exc:
                g.add((report, RKX.code_doi, Literal(s)))
                msgs.append(Message("Warning", "code.doi", str(exc), str(report), s, _line(v)))
        elif k == "swh":
            g.add(
                (report, RK.softwareHeritageId, Literal(s if s.startswith("swh:") else "swh:" + s))
            )
    data_ = _flat(head.get("data"))
    for k in ("url", "doi"):
        s = _text(data_.get(k))
        if s:
            try:
                g.add((report, RK.dataURL, doi_iri(s) if k == "doi" else URIRef(s)))
            except IdentifierError:
                g.add((report, RKX["data_" + k], Literal(s)))
    rv = _text(_flat(head.get("review")).get("url"))
    if rv:
        g.add(
            (report, RK.reviewURL, URIRef(rv))
            if _is_url(rv)
            else (report, RKX.review_url, Literal(rv))
        )
    num = _text(article.get("number"))
    if num:
        g.add((report, RK.articleNumber, Literal(num)))
    aurl = _text(article.get("url"))
    if aurl and _is_url(aurl):
        g.add((report, RK.articleURL, URIRef(aurl)))
    journal = _flat(head.get("journal"))
    for k, prop in (
        ("name", RK.journalName),
        ("issn", RK.journalISSN),
        ("volume", RK.journalVolume),
        ("issue", RK.journalIssue),
    ):
        s = _text(journal.get(k))
        if s:
            g.add((report, prop, Literal(s)))
    dates = _flat(head.get("dates"))
    for k, prop in (
        ("received", RK.dateReceived),
        ("accepted", RK.dateAccepted),
        ("published", RK.datePublished),
    ):
        v = dates.get(k)
        if _text(v) is None:
            continue
        note(f"dates.{k}", v)
        d = _date(v)
        if d is not None:
            g.add((report, prop, d))
        else:
            g.add((report, RKX["date_" + k], Literal(_text(v))))
            msgs.append(
                Message(
                    "Warning",
                    f"dates.{k}",
                    f"cannot read {_text(v)!r} as a date (expected e.g. 'May 27, 2021'); "
                    "kept as written",
                    str(report),
                    _text(v),
                    _line(v),
                )
            )

    # contributors: editors and named reviewers
    raw_contributors = head.get("contributors")
    for j, c in enumerate(raw_contributors if isinstance(raw_contributors, list) else [], 1):
        if not isinstance(c, dict):
            continue
        role = (_text(c.get("role")) or "").lower()
        raw = _text(c.get("name"))
        if not raw or raw.lower().startswith("anonymous"):
            continue
        for n, part in enumerate(
            x.strip() for x in re.split(r",\s*\\*\s*", raw.replace("\\\\", ","))
        ):
            if not part:
                continue
            person = _person(
                g,
                msgs,
                {"name": part, "orcid": c.get("orcid") if n == 0 else None},
                f"contributors[{j}]",
                key,
                1000 + j * 10 + n,
                lines,
            )
            g.add((report, RK.editor if role == "editor" else SCHEMA.contributor, person))

    for k, v in head.items():
        if str(k) not in KNOWN:
            s = _text(v)
            if s:
                g.add((report, RKX[re.sub(r"[^A-Za-z0-9_-]+", "_", str(k))], Literal(s)))
            msgs.append(Message.kept_unknown("key", str(k), report, s, _line(k)))
    return [
        INFO.document(
            g,
            source_name=name,
            source_bytes=data,
            source_key=source_key,
            messages=msgs,
            lines=lines,
            subject=report,
        )
    ]


def _is_url(s: str) -> bool:
    return bool(re.match(r"^https?://\S+$", s))


def _person(g, msgs, a: dict, path: str, key: str, pos: int, lines: dict[str, int]) -> URIRef:
    """ORCID IRI when valid; otherwise minted (by report and position, never by name)."""
    name = _text(a.get("name")) or ""
    raw = a.get("orcid")
    orcid = _text(raw)
    person: URIRef | None = None
    if orcid:
        ln = _line(raw)
        if ln is not None:
            lines.setdefault(f"{path}.orcid", ln)
        try:
            person = orcid_iri(orcid)
        except IdentifierError as exc:
            person = mint("person", stable_key("mlrc-author", key, pos, name))
            msgs.append(Message("Violation", f"{path}.orcid", str(exc), str(person), orcid, ln))
        g.add((person, RK.orcidAsWritten, Literal(orcid)))
    if person is None:
        person = mint("person", stable_key("mlrc-author", key, pos, name))
    g.add((person, RDF.type, SCHEMA.Person))
    g.add((person, RDF.type, PROV.Agent))
    if name:
        g.add((person, SCHEMA.name, Literal(name)))
    return person
