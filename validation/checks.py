"""Checks SHACL cannot express (the ORCID check digit), reported as SHACL-form results."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from itertools import chain, compress, repeat
from operator import attrgetter, is_, is_not, itemgetter

from rdflib import Graph, Literal, URIRef

from reprokg.core.document import Document
from reprokg.core.errors import IdentifierError
from reprokg.core.identifiers import orcid_iri
from reprokg.core.lazy_graph import graph_triples, pending_triples
from reprokg.core.namespaces import RK
from reprokg.validation.report import Result

Check = Callable[[Graph, "Document | None"], list[Result]]
#: Checks SHACL cannot express; each gets the document graph (and the document, for
#: its source paths) and returns results.
PYTHON_CHECKS: list[Check] = []


def python_check(fn: Check) -> Check:
    PYTHON_CHECKS.append(fn)
    return fn


#: a batch screen: given each document's triples, the indexes of the documents for which
#: the check may report anything (the others are known to get nothing from it)
Screen = Callable[[Sequence[list[tuple]]], "Sequence[int]"]
_SCREENS: dict[Check, Screen] = {}


def batch_screen(check: Check) -> Callable[[Screen], Screen]:
    """Register ``screen`` as ``check``'s batch screen (:func:`run_checks`)."""

    def register(screen: Screen) -> Screen:
        _SCREENS[check] = screen
        return screen

    return register


def run_checks(
    docs: Sequence[Document], triples: Sequence[list[tuple]] | None = None
) -> list[list[Result]]:
    """Every :data:`PYTHON_CHECKS` result of each document, in the order running the checks
    on each document alone gives.

    A check with a batch screen runs only on the documents its screen flags: one pass in
    C over the whole batch's triples instead of a Python call per document (with small
    documents the per-call cost was most of a check's time), and none at all when a batch
    holds nothing to report (the usual case). ``triples``: each document's triples, when
    the caller has read them.
    """
    out: list[list[Result]] = [[] for _ in docs]
    lists = triples
    for check in PYTHON_CHECKS:
        screen = _SCREENS.get(check)
        if screen is None:
            flagged: Sequence[int] = range(len(docs))
        else:
            if lists is None:
                lists = [graph_triples(d.graph) for d in docs]
            flagged = screen(lists)
        for i in flagged:
            out[i].extend(check(docs[i].graph, docs[i]))
    return out


def _orcid_source_path(doc: Document | None) -> str:
    """The source path of the document's ORCID field, from its ``lines`` if unambiguous.

    Loaders record every ORCID key they read (``actor.orcid``, ``authors[2].orcid``);
    paths at the same line are one field under two names (the audit loader keeps an
    ``actor.orcid`` alias), and the most specific of them is the one a person edits.
    Several ORCID fields on different lines cannot be told apart by value here, so
    the generic ``orcid`` is used then.
    """
    if doc is None:
        return "orcid"
    found = [p for p in doc.lines if p.rsplit(".", 1)[-1].lower().endswith("orcid")]
    if found and len({doc.lines[p] for p in found}) == 1:
        return max(found, key=lambda p: (len(p), p))
    return "orcid"


@python_check
def check_orcids(graph: Graph, doc: Document | None = None) -> list[Result]:
    """ORCID iDs (as IRIs, or as written in ``rk:orcidAsWritten``) must pass MOD 11-2.

    A finding a loader already reported (same focus node and value, with its own path
    and line) is not repeated. One pass over the document's triples (no graph index
    lookups): validating a batch spent a sixth of its time here.
    """
    as_written = RK.orcidAsWritten
    triples = graph_triples(graph)
    written: dict[object, list[object]] = {}  # value -> subjects, in graph.subject_objects order
    # every subject and value tested by str's own startswith (rdflib's is a Python
    # function) mapped in C; no set of rdflib terms (it compares equal terms in Python)
    terms = [*map(_SUBJECT, triples), *map(_OBJECT, triples)]
    hits = compress(terms, map(str.startswith, terms, repeat("https://orcid.org/")))
    nodes = {str(t) for t in hits if isinstance(t, URIRef)}
    same = list(map(str.__eq__, map(_PREDICATE, triples), repeat(str(as_written))))  # in C
    if any(same):
        for s, p, o in compress(triples, same):
            if type(p) is type(as_written):
                written.setdefault(o, []).append(s)
    pairs: list[tuple[object, object]]
    if pending_triples(graph) is not None:  # the order the filled graph would give
        pairs = [(s, o) for o, subjects in written.items() for s in subjects]
    else:
        pairs = list(graph.subject_objects(RK.orcidAsWritten)) if written else []
    if not pairs and not nodes:
        return []
    reported = {(m.focus_node, m.value) for m in doc.messages} if doc is not None else set()
    found: list[tuple[str, str, str | None]] = []  # (message, focus node, value)
    for s, o in pairs:
        try:
            orcid_iri(str(o))
        except IdentifierError as exc:
            if (str(s), str(o)) not in reported:
                found.append((str(exc), str(s), str(o)))
    for iri in nodes:
        try:
            orcid_iri(iri)
        except IdentifierError as exc:
            if (iri, None) not in reported and (iri, iri) not in reported:
                found.append((str(exc), iri, None))
    if not found:
        return []
    path = _orcid_source_path(doc)
    return [Result("Violation", m, path=path, focus_node=f, value=v) for m, f, v in found]


_ORCID_PREFIX = "https://orcid.org/"


@batch_screen(check_orcids)
def _orcid_screen(lists: Sequence[list[tuple]]) -> list[int]:
    """The documents with a term starting with the ORCID prefix or equal to
    ``rk:orcidAsWritten``: :func:`check_orcids` finds nothing in the others.

    One C search of the batch's terms joined by NULs (a term starts with the prefix
    where NUL + prefix occurs); a NUL inside a literal can only flag a document too
    many, never miss one. Each document is searched alone only when the batch has a hit.
    """
    if not _orcid_hit(chain.from_iterable(lists)):
        return []
    return [i for i, triples in enumerate(lists) if _orcid_hit(triples)]


def _orcid_hit(triples: Iterable[tuple]) -> bool:
    """A literal value never matters to :func:`check_orcids` (only IRIs and the
    ``rk:orcidAsWritten`` triples do), and long ones made most of the joined text."""
    found = list(triples)
    objects = list(map(_OBJECT, found))
    values = compress(objects, map(is_not, map(type, objects), repeat(Literal)))
    terms = chain(map(_SUBJECT, found), map(_PREDICATE, found), values)
    text = "\x00" + "\x00".join(terms) + "\x00"
    return "\x00" + _ORCID_PREFIX in text or f"\x00{RK.orcidAsWritten}\x00" in text


#: predicates whose object is a link a page shows (http(s) only: a ``javascript:`` IRI
#: stored in one would run in the reader's browser)
LINK_PREDICATES = frozenset(
    {
        str(RK.evidenceLink),
        "http://schema.org/codeRepository",
        "http://schema.org/url",
        "http://www.w3.org/2000/01/rdf-schema#seeAlso",
    }
)


def _source_line(doc: Document | None, value: str) -> int | None:
    """The line of the source where ``value`` (or its start, up to a character a JSON or
    YAML escape may have written differently) first appears."""
    if doc is None or not value:
        return None
    text = doc.source_bytes.decode("utf-8", errors="replace")
    probe = value
    for bad in ('"', "\\", "\x00", "\n"):
        probe = probe.split(bad, 1)[0]
    pos = text.find(probe) if len(probe) >= 8 else -1
    return text.count("\n", 0, pos) + 1 if pos >= 0 else None


def iri_refusal(iri: str) -> str | None:
    """Why the store (pyoxigraph's IRI parser, RFC 3987) refuses ``iri``, or ``None``:
    the one IRI check, so that what validation and the SPARQL protocol accept, the store
    takes."""
    import pyoxigraph as ox

    try:
        ox.NamedNode(iri)
    except (ValueError, UnicodeEncodeError) as exc:
        return str(exc) or type(exc).__name__
    return None


_SUBJECT, _PREDICATE, _OBJECT = itemgetter(0), itemgetter(1), itemgetter(2)

#: IRIs (as str) the store is known to take: predicates recur in every document
#: (bounded: cleared when full)
_TAKEN: set[str] = set()
#: datatype IRIs (as str) the store is known to take
_TAKEN_DATATYPES: set[str] = set()
#: rdflib's slot (its ``datatype`` property is a Python call per literal)
_DATATYPE, _NOT_NONE = attrgetter("_datatype"), partial(is_not, None)
_TAKEN_LIMIT = 50_000


def _all_taken(triples: Sequence[tuple]) -> bool:
    """True when the store takes every term of ``triples`` and every link is http(s):
    nothing for :func:`check_terms_the_store_takes` to report (the usual case).

    Set-wise rather than triple by triple, every step mapped in C: each distinct IRI
    parsed by pyoxigraph once, the literals' text tested by ``str`` methods. The sets
    hold plain ``str`` copies, not rdflib terms: rdflib's ``__eq__`` is a Python call,
    paid by every repeated term a set of terms meets. The predicates seen before are
    known to be taken.
    """
    import pyoxigraph as ox

    taken = _TAKEN
    if len(taken) > _TAKEN_LIMIT:
        taken.clear()
        _TAKEN_DATATYPES.clear()
    terms = [*map(_SUBJECT, triples), *map(_PREDICATE, triples), *map(_OBJECT, triples)]
    kinds = list(map(type, terms))
    n = len(triples)
    objects, object_kinds = terms[2 * n :], kinds[2 * n :]
    uriref = repeat(URIRef)
    predicates = set(map(str, compress(terms[n : 2 * n], map(is_, kinds[n : 2 * n], uriref))))
    iris = set(map(str, compress(terms, map(is_, kinds, uriref))))
    for iri in iris - taken:
        try:
            ox.NamedNode(iri)
        except (ValueError, UnicodeEncodeError):
            return False
    literals = list(compress(objects, map(is_, object_kinds, repeat(Literal))))
    if not all(map(str.isascii, literals)):
        for o in literals:
            if not o.isascii():
                try:
                    o.encode("utf-8")
                except UnicodeEncodeError:
                    return False
    datatypes = filter(_NOT_NONE, map(_DATATYPE, literals))
    for dt in set(map(str, datatypes)) - _TAKEN_DATATYPES:
        if iri_refusal(dt) is not None:
            return False
        _TAKEN_DATATYPES.add(dt)
    if not LINK_PREDICATES.isdisjoint(predicates):
        for p, o in zip(map(_PREDICATE, triples), objects, strict=True):
            is_link = type(o) is URIRef and type(p) is URIRef and str(p) in LINK_PREDICATES
            if is_link and o.partition(":")[0].lower() not in ("http", "https"):
                return False
    # predicates recur in every document; subjects and values mostly in this one
    taken.update(predicates)
    return True


def _refused_term(term: object) -> bool:
    """A term the store cannot hold (the SHACL engine, on pyoxigraph, cannot either)."""
    text = str(term)
    if isinstance(term, URIRef):
        return iri_refusal(text) is not None
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return True
    datatype = getattr(term, "datatype", None)
    return datatype is not None and iri_refusal(str(datatype)) is not None


def for_shacl(graph: Graph) -> Graph:
    """``graph`` without the triples whose terms the store refuses (``graph`` itself when
    there are none, the usual case). The SHACL engine loads a document into pyoxigraph,
    which refuses them as the store does (a 500 on /validate); the rest is validated,
    and :func:`check_terms_the_store_takes` reports these."""
    bad = [t for t in graph_triples(graph) if any(_refused_term(x) for x in t)]
    if not bad:
        return graph
    refused = set(bad)
    clean = Graph()
    for t in graph_triples(graph):
        if t not in refused:
            clean.add(t)
    for prefix, ns in graph.namespaces():
        clean.bind(prefix, ns, override=False)
    return clean


@python_check
def check_terms_the_store_takes(graph: Graph, doc: Document | None = None) -> list[Result]:
    """Every IRI and literal that validation accepts, the store accepts (audit
    links holding ``" < > { } | \\ ^``, a NUL in a survey's code URL and a lone surrogate
    passed validation and then failed the store with a 500). Each IRI is parsed by the
    store's own IRI parser (pyoxigraph: RFC 3987), each literal must be UTF-8 (no lone
    surrogate); and a link (:data:`LINK_PREDICATES`) must be ``http(s)``."""
    if _all_taken(graph_triples(graph)):
        return []
    seen: set[tuple[type, str]] = set()
    found: list[Result] = []

    def report(message: str, focus: object, value: str) -> None:
        line = _source_line(doc, value)
        # the source path a person edits: the most specific one read at that line
        paths = [p for p, n in doc.lines.items() if n == line] if doc and line else []
        path = max(paths, key=lambda p: (len(p), p)) if paths else None
        found.append(
            Result(
                "Violation",
                f"{path}: {message}" if path else message,
                path=path,
                focus_node=str(focus),
                value=value,
                line=line,
            )
        )

    for s, p, o in graph_triples(graph):
        datatype = getattr(o, "datatype", None)
        for term in (s, p, o, datatype) if datatype is not None else (s, p, o):
            text = str(term)
            key = (type(term), text)
            if key in seen:
                continue
            seen.add(key)
            if isinstance(term, URIRef):
                why = iri_refusal(text)
                if why:
                    why = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in why)
                    report(f"{text!r} is not an IRI (RFC 3987): {why}", s, text)
            elif not text.isascii():
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError as exc:
                    report(
                        f"text with a lone surrogate (U+{ord(text[exc.start]):04X}) at "
                        f"character {exc.start + 1}: not a Unicode character",
                        s,
                        text.encode("utf-8", "backslashreplace").decode(),
                    )
        if isinstance(o, URIRef) and str(p) in LINK_PREDICATES:
            scheme = str(o).partition(":")[0].lower()
            if scheme not in ("http", "https"):
                report(f"a link must be an http(s) URL, got {str(o)!r}", s, str(o))
    return found


@batch_screen(check_terms_the_store_takes)
def _terms_screen(lists: Sequence[list[tuple]]) -> list[int]:
    """The documents for which :func:`check_terms_the_store_takes` may report: none when the
    store takes every term of the whole batch (one set-wise pass, the usual case), else
    those whose own terms are not all taken."""
    if _all_taken(list(chain.from_iterable(lists))):
        return []
    return [i for i, triples in enumerate(lists) if not _all_taken(triples)]
