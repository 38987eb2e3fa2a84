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
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from typing import Any

from rdflib import RDF, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import PROV
from rdflib.term import Node

from reprokg.core.document import Document, Message
from reprokg.core.errors import IdentifierError, LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import doi_iri, mint, orcid_iri
from reprokg.core.namespaces import CITO, RK, RKX, SCHEMA, new_graph
from reprokg.loaders.evidence import read_doi, read_swhid
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.source import decode_text
from reprokg.loaders.reading.yaml_scalars import Scalar, parse_yaml

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


@dataclass
class _Report:
    """What the steps of :func:`load` write: one report's graph, messages and lines."""

    name: str
    key: str
    node: URIRef
    g: Graph = field(default_factory=new_graph)
    msgs: list[Message] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)

    def note(self, path: str, v: Any) -> None:
        """The line ``path``'s value is on, when the YAML gave one."""
        ln = _line(v)
        if ln is not None:
            self.lines.setdefault(path, ln)

    def add(self, s: Any, p: Any, o: Any) -> None:
        self.g.add((s, p, o))

    def message(self, severity: str, path: str, text: str, node: Any, value: Any, v: Any) -> None:
        self.msgs.append(
            Message(severity, path, text, None if node is None else str(node), value, _line(v))
        )


def load(data: bytes, name: str) -> list[Document]:
    head = _read(data, name)
    r = _report(head, name)
    kind = (_text(head.get("type")) or "").lower()
    label = _describe(r, head)
    _authors(r, head)
    _original(r, head, replication=kind == "replication", label=label)
    _links(r, head)
    _dates(r, head)
    _contributors(r, head)
    _unknown_keys(r, head)
    return [
        INFO.document(
            r.g,
            source_name=name,
            source_bytes=data,
            source_key=f"mlrc:{r.key}",
            messages=r.msgs,
            lines=r.lines,
            subject=r.node,
        )
    ]


def _read(data: bytes, name: str) -> dict[str, Any]:
    """The header as a mapping with a title and authors."""
    head = parse_yaml(decode_text(data, name), name)
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
    return head


def _report(head: dict[str, Any], name: str) -> _Report:
    """The report node: its article DOI's IRI (the key), else minted from the report's
    folder (``…/<folder>/journal/metadata.yaml``) or its title."""
    article = _flat(head.get("article"))
    art_doi = _text(article.get("doi"))
    title = _text(head.get("title")) or ""
    node: URIRef | None = None
    msgs: list[Message] = []
    if art_doi:
        node = read_doi(art_doi, field="article.doi", record=f"report {name}",
                        line=_line(article.get("doi")), messages=msgs)  # fmt: skip
    folder = PurePath(name).parent.parent.name if PurePath(name).parent.name == "journal" else ""
    key = str(node).removeprefix("https://doi.org/") if node is not None else (folder or title)
    r = _Report(name, key, node if node is not None else mint("report", stable_key("mlrc", key)))
    r.msgs.extend(msgs)
    if art_doi:
        r.note("article.doi", article.get("doi"))
        if node is not None:
            r.add(node, RK.doiAsWritten, Literal(art_doi))
    return r


def _describe(r: _Report, head: dict[str, Any]) -> str:
    """Types, title, abstract, domain, language, keywords; the outcome label the title
    starts with (``Re`` of ``[Re]``, ``¬Re``, ``~Re``, ``Rp``; empty without one)."""
    report, title, kind = r.node, _text(head.get("title")) or "", _text(head.get("type")) or ""
    label = ""
    r.add(report, RDF.type, SCHEMA.ScholarlyArticle)
    if kind.lower() == "replication":
        r.add(report, RDF.type, RK.ReproductionReport)
    if kind:
        r.add(report, SCHEMA.additionalType, Literal(kind))
    r.add(report, RK.inSurvey, RK.MLReproducibilityChallenge)
    if title:
        r.note("title", head["title"])
        r.add(report, SCHEMA.name, Literal(title))
        m = re.match(r"^\s*\[([¬~]?R[ep])\]", title)
        if m:
            label = m.group(1)
            r.add(report, RK.reproductionOutcome, Literal(f"[{label}]"))
    for k, prop in (("abstract", SCHEMA.abstract), ("domain", RK.conferenceName)):
        s = _text(head.get(k))
        if s:
            r.note(k, head[k])
            r.add(report, prop, Literal(s))
    lang = _text(head.get("language"))
    if lang:
        r.note("language", head["language"])
        r.add(report, SCHEMA.programmingLanguage, Literal(lang))
    kw = _text(head.get("keywords"))
    if kw:
        for k in (x.strip() for x in kw.split(",")):
            if k:
                r.add(report, SCHEMA.keywords, Literal(k))
    return label


def _authors(r: _Report, head: dict[str, Any]) -> None:
    """The authors in order (an RDF list), their e-mail, affiliations by code and the
    contact author (``*``)."""
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
            source=r.name,
            line=_line(authors) or 1,
            field="authors",
        )
    people: list[Node] = []
    for i, a in enumerate(authors, 1):
        if not isinstance(a, dict):
            r.message(
                "Violation",
                f"authors[{i}]",
                "expected a map with name, orcid, email, affiliations",
                r.node,
                str(a),
                a,
            )
            continue
        person = _person(r.g, r.msgs, a, f"authors[{i}]", r.key, i, r.lines)
        people.append(person)
        r.add(r.node, SCHEMA.author, person)
        email = _text(a.get("email"))
        if email:
            r.add(person, SCHEMA.email, Literal(email))
        codes = [c.strip() for c in (_text(a.get("affiliations")) or "").split(",") if c.strip()]
        for c in codes:
            if c == "*":
                r.add(r.node, RK.contactAuthor, person)
            elif c in affs:
                r.add(person, RK.affiliationName, Literal(affs[c]))
            else:
                r.message(
                    "Warning",
                    f"authors[{i}].affiliations",
                    f"affiliation code {c!r} is not listed under 'affiliations'",
                    person,
                    c,
                    a.get("affiliations"),
                )
    if people:
        head_node = mint("authorlist", stable_key("mlrc", r.key))
        Collection(r.g, head_node, people)
        r.add(r.node, RK.authorList, head_node)


def _original(r: _Report, head: dict[str, Any], *, replication: bool, label: str) -> None:
    """The paper the report reproduces: its DOI's IRI, else minted from its URL or
    citation (an Info: it joins no other source by DOI); cited as the outcome ``label``
    says (:data:`CITO_BY_LABEL`)."""
    rep = _flat(head.get("replication"))
    rdoi, rurl, rcite = _text(rep.get("doi")), _text(rep.get("url")), _text(rep.get("cite"))
    original: URIRef | None = None
    if rdoi:
        r.note("replication.doi", rep.get("doi"))
        original = read_doi(rdoi, field="replication.doi", record=f"report {r.name}",
                            line=_line(rep.get("doi")), messages=r.msgs)  # fmt: skip
        if original is not None:
            r.add(original, RK.doiAsWritten, Literal(rdoi))
    if original is None and (rurl or rcite):
        original = mint(
            "publication", stable_key("url", rurl) if rurl else stable_key("cite", rcite)
        )
        if not rdoi:
            r.message(
                "Info",
                "replication.doi",
                "no DOI for the original paper: it cannot join other sources by DOI",
                original,
                None,
                rep.get("url") if _line(rep.get("url")) is not None else rep.get("cite"),
            )
    if original is not None:
        r.add(original, RDF.type, SCHEMA.ScholarlyArticle)
        r.add(r.node, RK.reproduces, original)
        # CiTO, from the report to the original: its outcome label as a citation type
        if label:
            r.add(r.node, CITO_BY_LABEL[label[0] if label[0] in "¬~" else ""], original)
        if rurl:
            if _is_url(rurl):
                r.add(original, RK.articleURL, URIRef(rurl))
            else:
                r.add(original, RKX.replication_url, Literal(rurl))
        if rcite:
            r.add(original, RK.citationText, Literal(rcite))
    elif replication:
        r.message(
            "Warning",
            "replication",
            "a replication report should name the original paper (doi, url or cite)",
            r.node,
            None,
            head.get("replication"),
        )


def _links(r: _Report, head: dict[str, Any]) -> None:
    """Code (repository, DOI, Software Heritage id), data, review, the article's number
    and URL, the journal."""
    report = r.node
    for k, v in _flat(head.get("code")).items():
        s = _text(v)
        if not s:
            continue
        r.note(f"code.{k}", v)
        if k == "url":
            fixed = re.sub(r"^(https?):/(?!/)", r"\1://", s)
            if _is_url(fixed):
                r.add(report, SCHEMA.codeRepository, URIRef(fixed))
            else:
                r.add(report, RKX.code_url, Literal(s))
        elif k == "doi":
            iri = read_doi(s, field="code.doi", record=f"report {r.name}", line=_line(v),
                           messages=r.msgs, node=str(report))  # fmt: skip
            if iri is not None:
                r.add(report, RK.codeDOI, iri)
            else:
                r.add(report, RKX.code_doi, Literal(s))
        elif k == "swh":
            read = read_swhid(r.g, report, s, field="code.swh", record=f"report {r.name}",
                              line=_line(v), messages=r.msgs)  # fmt: skip
            written = s if s.startswith("swh:") else "swh:" + s
            r.add(report, RK.softwareHeritageId, Literal(written if read is None else str(read)))
    data_ = _flat(head.get("data"))
    for k in ("url", "doi"):
        s = _text(data_.get(k))
        if s:
            try:
                r.add(report, RK.dataURL, doi_iri(s) if k == "doi" else URIRef(s))
            except IdentifierError:
                r.add(report, RKX["data_" + k], Literal(s))
    rv = _text(_flat(head.get("review")).get("url"))
    if rv:
        if _is_url(rv):
            r.add(report, RK.reviewURL, URIRef(rv))
        else:
            r.add(report, RKX.review_url, Literal(rv))
    article = _flat(head.get("article"))
    num = _text(article.get("number"))
    if num:
        r.add(report, RK.articleNumber, Literal(num))
    aurl = _text(article.get("url"))
    if aurl and _is_url(aurl):
        r.add(report, RK.articleURL, URIRef(aurl))
    journal = _flat(head.get("journal"))
    for k, prop in (
        ("name", RK.journalName),
        ("issn", RK.journalISSN),
        ("volume", RK.journalVolume),
        ("issue", RK.journalIssue),
    ):
        s = _text(journal.get(k))
        if s:
            r.add(report, prop, Literal(s))


def _dates(r: _Report, head: dict[str, Any]) -> None:
    """Received, accepted, published; a date we cannot read is kept as written."""
    dates = _flat(head.get("dates"))
    for k, prop in (
        ("received", RK.dateReceived),
        ("accepted", RK.dateAccepted),
        ("published", RK.datePublished),
    ):
        v = dates.get(k)
        if _text(v) is None:
            continue
        r.note(f"dates.{k}", v)
        d = _date(v)
        if d is not None:
            r.add(r.node, prop, d)
        else:
            r.add(r.node, RKX["date_" + k], Literal(_text(v)))
            r.message(
                "Warning",
                f"dates.{k}",
                f"cannot read {_text(v)!r} as a date (expected e.g. 'May 27, 2021'); "
                "kept as written",
                r.node,
                _text(v),
                v,
            )


def _contributors(r: _Report, head: dict[str, Any]) -> None:
    """Editors and named reviewers (anonymous ones are left out)."""
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
                r.g,
                r.msgs,
                {"name": part, "orcid": c.get("orcid") if n == 0 else None},
                f"contributors[{j}]",
                r.key,
                1000 + j * 10 + n,
                r.lines,
            )
            r.add(r.node, RK.editor if role == "editor" else SCHEMA.contributor, person)


def _unknown_keys(r: _Report, head: dict[str, Any]) -> None:
    """Keys the template does not have, kept under ``rkx:`` (open world)."""
    for k, v in head.items():
        if str(k) not in KNOWN:
            s = _text(v)
            if s:
                r.add(r.node, RKX[re.sub(r"[^A-Za-z0-9_-]+", "_", str(k))], Literal(s))
            r.msgs.append(Message.kept_unknown("key", str(k), r.node, s, _line(k)))


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
