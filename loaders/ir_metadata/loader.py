"""ir_metadata (PRIMAD) run headers -> one RDF document per run.

Three input forms are read:

* a TREC run file annotated the way repro_eval writes it: ``# ir_metadata.start``,
  each YAML line prefixed by ``# ``, ``# ir_metadata.end``, then the run lines;
* the bare-marker form other producers write (``ir_metadata.start`` without ``#``);
* a standalone YAML file holding only the metadata.

Types come from the schema, not from YAML guessing: :func:`parse_yaml` keeps every
scalar's text, and only fields the schema types as ``!!int``/``!!bool``/numbers are
converted, so an unquoted commit ``1234567`` or version ``3.10`` keeps its text.
Where the schema's checklists and examples spell a key differently both are accepted
and normalised to one canonical spelling (:data:`ALIASES`); :func:`to_plain` gives the
normalised structure that :mod:`reprokg.loaders.ir_metadata.export` writes back.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from rdflib import Literal, URIRef
from rdflib.namespace import PROV, RDF, XSD

from reprokg.core.document import Document, Message
from reprokg.core.errors import IdentifierError, LoadError
from reprokg.core.hashing import content_hash, stable_key
from reprokg.core.identifiers import document_iri, doi_iri, mint, minter, orcid_iri
from reprokg.core.lazy_graph import LazyGraph
from reprokg.core.namespaces import DOAP, RK, RKX, SCHEMA
from reprokg.loaders.ir_metadata.spec import SCHEMA_SPEC, F, canonical
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.source import decode_text
from reprokg.loaders.reading.yaml_scalars import Scalar, parse_yaml
from reprokg.loaders.trec_files import RUN_LINE, Run, RunSummary, parse_run_text

INFO = LoaderInfo(
    kind="run",
    name="reprokg.loaders.ir_metadata",
    version="1.0.0",
    formats=("ir_metadata", "tirex"),
    reads="standalone ir_metadata YAML (what tirex-tracker writes), a file or a folder of them",
)

START, END = "ir_metadata.start", "ir_metadata.end"
_MARKER_RE = re.compile(r"^\s*(#\s*)?ir_metadata\.(start|end)\s*$")
_SNIFF_KEYS = ("research goal:", "schema-version:", "schema version:", "ir_metadata.start")

#: rdflib's RDF/XSD namespace attributes build a term per access; read once
_RDF_TYPE, _RDF_JSON = RDF.type, RDF.JSON
_XSD_ANYURI, _XSD_DECIMAL, _XSD_DOUBLE, _XSD_INTEGER = (
    XSD.anyURI,
    XSD.decimal,
    XSD.double,
    XSD.integer,
)

_TRUE = {"true", "yes", "on", "y"}
_FALSE = {"false", "no", "off", "n"}
_INT_RE = re.compile(r"^[-+]?\d+$")
_DEC_RE = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)$")
_FLOAT_RE = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_URL_RE = re.compile(r"^https?://[^\s<>\"{}|\\^`]+$", re.IGNORECASE)
#: programs that write ir_metadata and name themselves under ``platform.software``
#: (tirex-tracker writes ``tirex-tracker: 0.2.24`` there): recorded as the metadata's producer
PRODUCERS = ("tirex-tracker",)
#: a standalone metadata file named for what it holds (tirex-tracker's ``-o ir_metadata.yml``)
_NAME_RE = re.compile(r"ir[_-]metadata", re.IGNORECASE)
#: the layout tirex-tracker writes (keys sorted: the long ``implementation.python.packages``
#: list fills the head before ``platform`` or ``schema version`` appear)
_TIREX_HEAD_RE = re.compile(r"(?m)^implementation:\n  executable:\n(?:.*\n)*?  python:\n")
_GIT_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org")


@lru_cache(maxsize=16384, typed=True)
def _literal(value: str | int | bool) -> Literal:
    """``Literal(value)``, made once: values repeat across headers (versions, models,
    positions). Literals are immutable, so sharing them is safe, and equal ones are
    then one object, found by identity in every dictionary keyed by terms."""
    return Literal(value)


def ext_predicate(key: str) -> URIRef:
    """Where an unknown key is kept: ``rkx:<percent-encoded key>``."""
    return RKX[quote(str(key), safe="")]


def typed_literal(kind: str, value: Scalar) -> Literal:
    """A literal of the schema's type; text that does not fit stays an xsd:string.

    A wrongly typed value is not an error here: the shapes report it, with its path.
    """
    return _typed_literal(kind, str(value))


@lru_cache(maxsize=16384)
def _typed_literal(kind: str, text: str) -> Literal:
    low = text.strip().lower()
    if kind == "int" and _INT_RE.match(text.strip()):
        return Literal(int(text.strip()))
    if kind == "bool" and low in _TRUE | _FALSE:
        return Literal(low in _TRUE)
    if kind == "num":
        if _DEC_RE.match(text.strip()):
            return Literal(text.strip(), datatype=_XSD_DECIMAL)
        if _FLOAT_RE.match(text.strip()):
            return Literal(text.strip(), datatype=_XSD_DOUBLE)
    if kind == "uri":
        return Literal(text, datatype=_XSD_ANYURI)
    return Literal(text)


def parameter_literal(value: Scalar) -> Literal:
    """A retrieval parameter typed by how YAML would read it (int, float, bool, str)."""
    if isinstance(value, Scalar) and not value.quoted:
        v = value.implicit
        if isinstance(v, bool):
            return Literal(v)
        if isinstance(v, int):
            return Literal(str(value).strip(), datatype=_XSD_INTEGER)
        if isinstance(v, float):
            t = str(value).strip()
            return Literal(t, datatype=_XSD_DECIMAL if _DEC_RE.match(t) else _XSD_DOUBLE)
    return Literal(str(value))


def plain(value: Any) -> Any:
    """A parsed YAML value with Scalars as text (for JSON-keeping unknown structures)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return None if value is None or (isinstance(value, Scalar) and value.is_null) else str(value)


# --------------------------------------------------------------------------- cutting out the header


@dataclass
class Parts:
    """A source file split into its YAML header and its run lines."""

    yaml_text: str
    line_offset: int  # lines before the YAML's first line
    column_offset: int  # characters removed from the start of each YAML line
    run_text: str  # everything after the header (the whole file when it has none)
    run_first_line: int  # line number of the first line of ``run_text``
    form: str  # "commented", "bare", "yaml" or "none"


def split_source(text: str, name: str, *, assume_yaml: bool = False) -> Parts:
    """Find the header markers; everything after the end marker is run lines.

    Without markers the text is metadata YAML when it looks like it (or ``assume_yaml``),
    otherwise a plain run file without a header.
    """
    lines = text.split("\n")
    start = None
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        m = _MARKER_RE.match(line)
        if m and m.group(2) == "start":
            start = i
        break
    if start is None:
        first_line = next((ln for ln in lines if ln.strip()), "")
        if assume_yaml or (not RUN_LINE.match(first_line) and looks_like_yaml_metadata(text)):
            return Parts(text, 0, 0, "", 0, "yaml")
        # a plain run file without a header: no metadata, only run lines
        return Parts("", 0, 0, text, 1, "none")
    commented = lines[start].lstrip().startswith("#")
    end = None
    for j in range(start + 1, len(lines)):
        m = _MARKER_RE.match(lines[j])
        if m:
            if m.group(2) == "end":
                end = j
                break
            raise LoadError(
                f"second {START} before {END}; expected one header",
                source=name,
                line=j + 1,
                field="ir_metadata",
            )
    if end is None:
        raise LoadError(
            f"{START} has no matching {END}; expected the header to end with a line "
            f"'{'# ' if commented else ''}{END}'",
            source=name,
            line=start + 1,
            field="ir_metadata",
        )
    body = lines[start + 1 : end]
    col = 0
    if commented:
        stripped = []
        for k, line in enumerate(body):
            if not line.strip():
                stripped.append("")
                continue
            if not line.lstrip().startswith("#"):
                raise LoadError(
                    "header line does not start with '#'; expected every line between "
                    f"'# {START}' and '# {END}' to be a '# ' comment",
                    source=name,
                    line=start + 2 + k,
                    column=1,
                    field="ir_metadata",
                )
            stripped.append(line.lstrip()[1:])
        indents = [len(s) - len(s.lstrip(" ")) for s in stripped if s.strip()]
        cut = min(indents) if indents else 0
        body = [s[cut:] for s in stripped]
        col = 1 + cut
    return Parts(
        "\n".join(body) + "\n",
        start + 1,
        col,
        "\n".join(lines[end + 1 :]),
        end + 2,
        "commented" if commented else "bare",
    )


def looks_like_yaml_metadata(head: str) -> bool:
    low = head.lower()
    if any(k in low for k in _SNIFF_KEYS):
        return True
    keys = {"platform:", "method:", "actor:", "data:", "implementation:", "tag:"}
    return sum(1 for k in keys if re.search(rf"(?m)^{re.escape(k)}", low)) >= 3


def sniff(name: str, head: str) -> bool:
    """A first line ``ir_metadata.start`` (the header must open the file, as repro_eval
    requires), or a YAML file with ir_metadata's top-level keys."""
    first = next((ln for ln in head.lstrip("\ufeff").split("\n") if ln.strip()), "")
    if _MARKER_RE.match(first) and first.strip().endswith("start"):
        return True
    if PurePath(name).suffix.lower() in (".yaml", ".yml"):
        return (
            looks_like_yaml_metadata(head)
            or _NAME_RE.search(PurePath(name).stem) is not None
            or _TIREX_HEAD_RE.search(head) is not None
        )
    return False


# --------------------------------------------------------------------------- YAML -> RDF


class _Triples(list):
    """The builder's triples: ``add`` appends (duplicates are dropped by :class:`LazyGraph`).

    Appending instead of ``Graph.add`` (three indexes, contexts, events per triple) and
    binding prefixes once per graph instead of per document was most of the loader's time.
    """

    add = list.append


class _Builder:
    """Walks the parsed header along :data:`SCHEMA_SPEC`, adding triples and line numbers."""

    def __init__(self, name: str, run: URIRef, run_key: str, col_offset: int) -> None:
        self.name = name
        self.g = _Triples()
        self.run = run
        self.key = run_key
        self._mint = minter(f"run/{run_key}")
        self.col = col_offset
        self.messages: list[Message] = []
        self.lines: dict[str, int] = {}
        self.ambiguous: set[str] = set()

    def node(self, suffix: str) -> URIRef:
        return self._mint(suffix)

    def note_line(self, path: str, generic: str, value: Any) -> None:
        line = getattr(value, "line", None)
        if line is None:
            return
        self.lines.setdefault(path, line)
        if generic != path:
            # a generic path (list index dropped) names a line only while it is unambiguous
            if self.lines.get(generic, line) != line:
                self.ambiguous.add(generic)
            self.lines.setdefault(generic, line)

    def final_lines(self) -> dict[str, int]:
        return {p: n for p, n in self.lines.items() if p not in self.ambiguous}

    def error(self, msg: str, value: Any, path: str) -> LoadError:
        return LoadError(
            msg,
            source=self.name,
            line=getattr(value, "line", None),
            column=(getattr(value, "column", 0) + self.col) if hasattr(value, "column") else None,
            field=path,
        )

    def unknown(self, subject: URIRef, key: Any, value: Any, path: str) -> None:
        if isinstance(value, dict | list):
            lit = Literal(json.dumps(plain(value), ensure_ascii=False), datatype=_RDF_JSON)
        elif value is None or (isinstance(value, Scalar) and value.is_null):
            return
        else:
            lit = Literal(str(value))
        self.g.add((subject, ext_predicate(str(key)), lit))
        self.messages.append(
            Message(
                "Info",
                path,
                f"unknown key {path!r} is not in the ir_metadata schema; kept as "
                f"{ext_predicate(str(key)).n3()}",
                focus_node=str(subject),
                line=getattr(key, "line", None),
            )
        )

    # -- generic walk
    def mapping(
        self,
        subject: URIRef,
        value: Any,
        spec: dict[str, F],
        path: str,
        gpath: str,
        suffix: str,
        extra: Callable[[str, Any, str], bool] | None = None,
    ) -> None:
        if not isinstance(value, dict):
            raise self.error(f"expected a mapping at {path or 'top level'}", value, path)
        seen: dict[str, Any] = {}
        for k, v in value.items():
            ck = canonical(k)
            p = f"{path}.{ck}" if path else ck
            gp = f"{gpath}.{ck}" if gpath else ck
            if ck in seen:
                raise self.error(f"key {p!r} given twice (as {seen[ck]!r} and {str(k)!r})", k, p)
            seen[ck] = str(k)
            self.note_line(p, gp, k)
            if v is None or (isinstance(v, Scalar) and v.is_null):
                continue
            f = spec.get(ck)
            try:
                if f is None:
                    if extra is None or not extra(ck, v, p):
                        self.unknown(subject, k, v, p)
                    continue
                self.field(subject, f, v, p, gp, f"{suffix}-{f.node}" if suffix else f.node)
            except LoadError as exc:
                if exc.line is None:  # a mapping or sequence value: point at its key
                    exc.line = getattr(k, "line", None)
                    exc.column = (getattr(k, "column", 0) + self.col) if exc.line else None
                raise

    def scalar(self, v: Any, path: str) -> Scalar:
        if isinstance(v, dict | list):
            raise self.error(
                f"expected a single value at {path}, not a "
                f"{'mapping' if isinstance(v, dict) else 'sequence'}",
                v,
                path,
            )
        return v

    def strlist(self, v: Any, path: str) -> list[Scalar]:
        items = v if isinstance(v, list) else [v]
        out = []
        for item in items:
            if item is None or (isinstance(item, Scalar) and item.is_null):
                continue
            out.append(self.scalar(item, path))
        return out

    def field(self, s: URIRef, f: F, v: Any, path: str, gpath: str, suffix: str) -> None:
        g = self.g
        k = f.kind
        if k in ("str", "int", "bool", "num", "uri"):
            if f.pred == RK.command and isinstance(v, list):
                v = self.command_line(v, path)
            g.add((s, f.pred, typed_literal(k, self.scalar(v, path))))
        elif k == "strlist":
            items = [str(item) for item in self.strlist(v, path)]
            for item in items:
                g.add((s, f.pred, _literal(item)))
            if len(items) > 1:  # RDF values are a set: keep the written order alongside
                order = {"property": str(f.pred), "items": items}
                g.add((s, RK.sequenceOrder, Literal(json.dumps(order), datatype=_RDF_JSON)))
        elif k == "map":
            n = self.node(suffix)
            g.add((s, f.pred, n))
            g.add((n, _RDF_TYPE, f.cls))
            self.mapping(n, v, f.spec or {}, path, gpath, suffix)
        elif k == "maplist":
            items = v if isinstance(v, list) else [v]
            for i, item in enumerate(items):
                n = self.node(f"{suffix}-{i}")
                g.add((s, f.pred, n))
                g.add((n, _RDF_TYPE, f.cls))
                g.add((n, RK.position, _literal(i)))
                self.mapping(n, item, f.spec or {}, f"{path}[{i}]", gpath, f"{suffix}-{i}")
        elif k == "libraries":
            self.libraries(s, f, v, path, gpath, suffix)
        elif k == "toolkits":
            for i, item in enumerate(self.strlist(v, path)):
                self.package(s, f, item, None, i, f"{suffix}-{i}")
        elif k == "publication":
            self.publication(s, f, v, path, gpath)
        elif k == "repository":
            text = str(self.scalar(v, path))
            g.add((s, f.pred, Literal(text, datatype=_XSD_ANYURI)))
            if _URL_RE.match(text.strip()):
                repo = URIRef(text.strip())
                g.add((s, RK.codeRepository, repo))
                g.add((repo, _RDF_TYPE, DOAP.Repository))
                host = text.split("/")[2].lower() if text.count("/") >= 2 else ""
                if host in _GIT_HOSTS or text.strip().endswith(".git"):
                    g.add((repo, _RDF_TYPE, DOAP.GitRepository))
        elif k == "stages":
            self.stages(s, f, v, path, gpath, suffix)
        elif k == "params":
            self.parameters(s, f, v, path, gpath, suffix)
        elif k == "actor":
            self.actor(s, f, v, path, gpath, suffix)
        else:  # pragma: no cover - the spec is fixed
            raise AssertionError(k)

    # -- specials
    def command_line(self, v: list, path: str) -> str:
        """A command given as its argument list (tirex-tracker writes ``cmd: [python3,
        script.py]``) as one shell-quoted line; ``shlex.split`` gives the list back."""
        words = [str(w) for w in self.strlist(v, path)]
        self.messages.append(
            Message(
                "Info",
                path,
                f"{path}: the command was given as a list of {len(words)} arguments; kept "
                "as one shell-quoted line",
                line=getattr(v[0], "line", None) if v else None,
            )
        )
        return shlex.join(words)

    def package(
        self, s: URIRef, f: F, item: Scalar, lang: str | None, pos: int, suffix: str
    ) -> None:
        n = self.node(suffix)
        self.g.add((s, f.pred, n))
        self.g.add((n, _RDF_TYPE, f.cls))
        text = str(item)
        self.g.add((n, RK.packageAsWritten, _literal(text)))
        self.g.add((n, RK.position, _literal(pos)))
        name, sep, version = text.partition("==")
        self.g.add((n, SCHEMA.name, _literal(name.strip())))
        if sep:
            self.g.add((n, RK.packageVersion, _literal(version.strip())))
        if lang is not None:
            self.g.add((n, RK.packageLanguage, _literal(lang)))

    def libraries(self, s: URIRef, f: F, v: Any, path: str, gpath: str, suffix: str) -> None:
        if isinstance(v, dict):  # per language; positions run across languages
            pos = 0
            for lang, items in v.items():
                self.note_line(f"{path}.{lang}", f"{gpath}.<language>", lang)
                if items is None:
                    continue
                for i, item in enumerate(self.strlist(items, f"{path}.{lang}")):
                    self.package(s, f, item, str(lang), pos, f"{suffix}-{quote(str(lang))}-{i}")
                    pos += 1
        else:  # a flat list
            for i, item in enumerate(self.strlist(v, path)):
                self.package(s, f, item, None, i, f"{suffix}-{i}")

    def publication(self, s: URIRef, f: F, v: Any, path: str, gpath: str) -> None:
        if not isinstance(v, dict):
            raise self.error(f"expected a mapping at {path}", v, path)
        doi = next((val for k, val in v.items() if canonical(k) == "doi"), None)
        node: URIRef | None = None
        if doi is not None and not isinstance(doi, dict | list) and not doi.is_null:
            try:
                node = doi_iri(str(doi))
            except IdentifierError:
                node = None  # kept as written; the shapes report the malformed DOI
        if node is None:
            node = self.node("publication")
        self.g.add((s, f.pred, node))
        self.g.add((node, _RDF_TYPE, SCHEMA.ScholarlyArticle))
        spec = dict(f.spec or {})
        spec["doi"] = F("str", RK.doiAsWritten)
        self.mapping(node, v, spec, path, gpath, "publication")

    def stages(self, s: URIRef, f: F, v: Any, path: str, gpath: str, suffix: str) -> None:
        items = v if isinstance(v, list) else [v]
        by_name: dict[str, URIRef] = {}
        refs: list[tuple[URIRef, str]] = []
        for i, item in enumerate(items):
            n = self.node(f"{suffix}-{i}")
            p = f"{path}[{i}]"
            self.g.add((s, f.pred, n))
            self.g.add((n, _RDF_TYPE, f.cls))
            self.g.add((n, RK.position, _literal(i)))
            params: list[tuple[Any, Any, str]] = []

            def extra(key: str, val: Any, kp: str, params: list = params) -> bool:
                if key == "params" and isinstance(val, dict):
                    for pk, pv in val.items():
                        self.note_line(f"{kp}.{pk}", f"{gpath}.params.{pk}", pk)
                        params.append((pk, pv, f"{kp}.{pk}"))
                    return True
                if isinstance(val, dict | list):
                    return False  # not a parameter: kept as an unknown key
                params.append((key, val, kp))
                return True

            self.mapping(n, item, f.spec or {}, p, gpath, f"{suffix}-{i}", extra)
            if isinstance(item, dict):
                nm = next((val for k, val in item.items() if canonical(k) == "name"), None)
                if nm is not None and not isinstance(nm, dict | list):
                    by_name.setdefault(str(nm), n)
                for k, val in item.items():
                    if canonical(k) in ("reranks", "interpolates", "ensembles") and val is not None:
                        for ref in val if isinstance(val, list) else [val]:
                            refs.append((n, str(ref)))
            for pk, pv, _kp in params:
                if pv is None or (isinstance(pv, Scalar) and pv.is_null):
                    continue
                pn = self.node(f"{suffix}-{i}-param-{quote(str(pk), safe='')}")
                self.g.add((n, RK.parameterSetting, pn))
                self.g.add((pn, _RDF_TYPE, RK.ParameterSetting))
                self.g.add((pn, RK.parameterName, Literal(str(pk))))
                self.g.add((pn, RK.parameterValue, parameter_literal(pv)))
        for n, ref in refs:
            target = by_name.get(ref)
            if target is not None:
                self.g.add((n, RK.inputStage, target))

    def parameters(self, s: URIRef, f: F, v: Any, path: str, gpath: str, suffix: str) -> None:
        if not isinstance(v, dict):
            raise self.error(f"expected a mapping name -> value at {path}", v, path)
        for pk, pv in v.items():
            kp = f"{path}.{pk}"
            self.note_line(kp, f"{gpath}.<parameter>", pk)
            if pv is None or (isinstance(pv, Scalar) and pv.is_null):
                continue
            pn = self.node(f"{suffix}-{quote(str(pk), safe='')}")
            self.g.add((s, f.pred, pn))
            self.g.add((pn, _RDF_TYPE, f.cls))
            self.g.add((pn, RK.parameterName, Literal(str(pk))))
            self.g.add((pn, RK.parameterValue, parameter_literal(self.scalar(pv, kp))))

    def actor(self, s: URIRef, f: F, v: Any, path: str, gpath: str, suffix: str) -> None:
        if not isinstance(v, dict):
            raise self.error(f"expected a mapping at {path}", v, path)
        n = self.node(suffix)
        self.g.add((s, f.pred, n))
        self.g.add((n, _RDF_TYPE, RK.Actor))
        vals = {canonical(k): val for k, val in v.items()}
        name, orcid = vals.get("name"), vals.get("orcid")
        person: URIRef | None = None
        if orcid is not None and not isinstance(orcid, dict | list) and not orcid.is_null:
            try:
                person = orcid_iri(str(orcid))
            except IdentifierError:
                person = None  # validation reports the malformed iD from rk:orcidAsWritten
        if person is None:
            person = mint("person", stable_key(self.key, "actor", name, orcid))
        g = self.g
        g.add((n, RK.person, person))
        g.add((person, _RDF_TYPE, SCHEMA.Person))
        g.add((person, _RDF_TYPE, PROV.Agent))
        g.add((self.run, PROV.wasAssociatedWith, person))
        if name is not None and not isinstance(name, dict | list) and not name.is_null:
            g.add((person, SCHEMA.name, _literal(str(name))))
        if orcid is not None and not isinstance(orcid, dict | list) and not orcid.is_null:
            g.add((person, RK.orcidAsWritten, Literal(str(orcid))))
        role = vals.get("role")
        if isinstance(role, Scalar) and str(role).strip() in ("experimenter", "reproducer"):
            r = RK.ExperimenterRole if str(role).strip() == "experimenter" else RK.ReproducerRole
            g.add((n, PROV.hadRole, r))
        spec = {k: fld for k, fld in (f.spec or {}).items() if fld.kind != "person"}

        def extra(key: str, val: Any, kp: str) -> bool:
            if key in ("name", "orcid"):
                self.scalar(val, kp)
                return True
            return False

        self.mapping(n, v, spec, path, gpath, suffix, extra)


def _normalise_tree(tree: Any) -> Any:
    """Move ``implementation.{lang,repository,commit}`` (repro_eval's ``complete_metadata``
    writes them without ``source``) under ``implementation.source``."""
    if not isinstance(tree, dict):
        return tree
    impl_key = next((k for k in tree if canonical(k) == "implementation"), None)
    impl = tree.get(impl_key) if impl_key is not None else None
    if isinstance(impl, dict):
        moved = {k: v for k, v in impl.items() if canonical(k) in ("lang", "repository", "commit")}
        if moved:
            src_key = next((k for k in impl if canonical(k) == "source"), None)
            src = impl.get(src_key) if src_key is not None else None
            if src is None or isinstance(src, dict):
                src = dict(src or {})
                for k, v in moved.items():
                    if k not in src:
                        src[k] = v
                new_impl = {k: v for k, v in impl.items() if k not in moved and k != src_key}
                new_impl[src_key if src_key is not None else "source"] = src
                tree = dict(tree)
                tree[impl_key] = new_impl
    return tree


# --------------------------------------------------------------------------- public API


def parse_header(data: bytes, name: str, *, assume_yaml: bool = False) -> tuple[Any, Parts]:
    """The header's YAML tree (Scalar leaves, lines counted in the whole file) and the parts."""
    text = decode_text(data, name)
    parts = split_source(text, name, assume_yaml=assume_yaml)
    if parts.form == "none":
        return None, parts
    try:
        tree = parse_yaml(parts.yaml_text, name, line_offset=parts.line_offset)
    except LoadError as exc:
        if exc.column is not None and exc.line is not None:
            exc.column += parts.column_offset
            exc.args = (str(exc),)
        raise
    if tree is None:
        tree = {}
    if not isinstance(tree, dict):
        raise LoadError(
            "the ir_metadata header is not a YAML mapping; expected keys such as tag, "
            "platform, research goal, implementation, method, actor, data",
            source=name,
            line=parts.line_offset + 1,
        )
    return _normalise_tree(tree), parts


def run_key(tag: str | None, data: bytes) -> str:
    """Stable: the tag plus the sha256 of the whole (normalised) source file.

    The same file always gives the same run IRI; two files that share their run lines
    but differ in their headers (another producer's copy, a corrected header) describe
    the run differently and get different IRIs, so their statements never merge (their
    rk:RunFile, keyed by the run lines' sha256, is shared).
    """
    return stable_key("run", tag or "", content_hash(data))


def _link_collections(g: list[tuple]) -> None:
    """Link each test collection with an ir_datasets id to the node shared by its runs.

    The per-run node keeps what this header wrote; ``rk:collection`` points at the IRI
    minted from the id (the node qrels documents describe), so a query can start from
    one selective IRI instead of joining on a literal shared by every run of a collection.
    """
    from reprokg.loaders.qrels import collection_iri

    has_collection, has_id, collection = RK.testCollection, RK.irDatasetsId, RK.collection
    # one pass comparing the predicates' text (every predicate here is a URIRef): rdflib's
    # ``==`` is a Python call, and two passes of it were a tenth of loading a header
    same = str.__eq__
    collections = set()
    id_triples = []
    for t in g:
        p = t[1]
        if same(p, has_collection):
            collections.add(t[2])
        elif same(p, has_id):
            id_triples.append(t)
    ids = [(s, o) for s, _p, o in id_triples if s in collections]
    for tc, ident in ids:
        if str(ident).strip():
            g.append((tc, collection, collection_iri(str(ident))))


def load(data: bytes, name: str, *, assume_yaml: bool = False) -> list[Document]:
    """One document for one annotated run file or standalone metadata YAML
    (``assume_yaml``: a file without markers is metadata, not run lines)."""
    return [load_run_file(data, name, assume_yaml=assume_yaml)[0]]


def load_run_file(
    data: bytes, name: str, *, assume_yaml: bool = False, source: bytes | None = None
) -> tuple[Document, Run | None]:
    """The document of a run file and its rankings, the run lines read once (``reprokg
    compare`` needs both; ``None`` rankings when the file holds no run lines).

    ``source``: the bytes the document is named by when ``data`` was generated from them
    (an importer's record, :func:`reprokg.loaders.ir_metadata.tree.run_document`)."""
    source = data if source is None else source
    tree, parts = parse_header(data, name, assume_yaml=assume_yaml)
    parsed = (
        parse_run_text(parts.run_text, name, parts.run_first_line)
        if parts.run_text.strip()
        else None
    )
    summary = parsed.summary if parsed is not None else None
    if summary is not None and summary.lines == 0:
        summary = parsed = None
    tag_value = None
    if isinstance(tree, dict):
        tag_value = next((v for k, v in tree.items() if canonical(k) == "tag"), None)
        if isinstance(tag_value, dict | list):
            raise LoadError(
                "tag must be a single value",
                source=name,
                line=getattr(tag_value, "line", None),
                field="tag",
            )
    tag = str(tag_value) if tag_value is not None and not tag_value.is_null else None
    if tag is None and summary is not None and len(summary.tags) == 1:
        tag = summary.tags[0]
    key = run_key(tag, source)
    run = mint("run", key)
    b = _Builder(name, run, key, parts.column_offset)
    g = b.g
    g.add((run, _RDF_TYPE, RK.Run))
    if tree is not None:
        b.mapping(run, tree, SCHEMA_SPEC, "", "", "")
        _link_collections(g)
    else:
        b.messages.append(
            Message(
                "Warning",
                "ir_metadata",
                "the run file has no ir_metadata header; only its run lines are described",
                focus_node=str(run),
                line=1,
            )
        )
    for producer, version, line in producers(tree):
        _add_producer(g, document_iri(content_hash(source)), producer, version)
        if line:
            b.lines.setdefault(f"platform.software.{producer}", line)
    attachments: dict[str, bytes] = {}
    if summary is not None:
        _add_summary(g, run, summary)
        b.lines.setdefault("run lines", summary.first_line)
        attachments[summary.sha256] = summary.data
        if tag is not None and summary.tags != [tag]:
            others = [t for t in summary.tags if t != tag]
            b.messages.append(
                Message(
                    "Warning",
                    "tag",
                    f"header tag {tag!r} differs from the run lines' tag(s) "
                    f"{', '.join(repr(t) for t in others)} (first at line "
                    f"{summary.tag_lines[others[0]]})",
                    focus_node=str(run),
                    value=tag,
                    line=b.lines.get("tag"),
                )
            )
    doc = INFO.document(
        LazyGraph(g),
        source_name=name,
        source_bytes=source,
        source_key=f"run:{tag or ''}:{PurePath(name).name}",
        messages=b.messages,
        lines=b.final_lines(),
        attachments=attachments,
        subject=run,
    )
    return doc, parsed.run if parsed is not None else None


def producers(tree: Any) -> list[tuple[str, str, int | None]]:
    """(program, version, line) of each program in :data:`PRODUCERS` the metadata names
    under ``platform.software`` (tirex-tracker: ``platform.software.tirex-tracker: 0.2.24``)."""
    if not isinstance(tree, dict):
        return []
    platform = next((v for k, v in tree.items() if canonical(k) == "platform"), None)
    if not isinstance(platform, dict):
        return []
    software = next((v for k, v in platform.items() if canonical(k) == "software"), None)
    if not isinstance(software, dict):
        return []
    out = []
    for k, v in software.items():
        if str(k).strip() in PRODUCERS and isinstance(v, Scalar) and not v.is_null:
            out.append((str(k).strip(), str(v).strip(), getattr(k, "line", None)))
    return out


def _add_producer(g: _Triples, document: URIRef, name: str, version: str) -> None:
    """The program that wrote the metadata, as the software agent the document (the
    metadata record) is attributed to: ``prov:wasAttributedTo`` a ``prov:SoftwareAgent``
    that is the ``schema:SoftwareApplication`` of that name and version."""
    sw = mint("software", f"{name}-{version}")
    g.add((document, PROV.wasAttributedTo, sw))
    g.add((sw, _RDF_TYPE, PROV.SoftwareAgent))
    g.add((sw, _RDF_TYPE, SCHEMA.SoftwareApplication))
    g.add((sw, SCHEMA.name, _literal(name)))
    g.add((sw, SCHEMA.softwareVersion, _literal(version)))


def _add_summary(g: _Triples, run: URIRef, s: RunSummary) -> None:
    f = mint("runfile", s.sha256)
    g.add((run, RK.runFile, f))
    g.add((f, _RDF_TYPE, RK.RunFile))
    g.add((f, PROV.wasGeneratedBy, run))
    g.add((f, RK.sha256, Literal(s.sha256)))
    g.add((f, RK.numberOfRunLines, Literal(s.lines)))
    g.add((f, RK.numberOfTopics, Literal(s.topics)))
    g.add((f, RK.minDocumentsPerTopic, Literal(s.min_docs)))
    g.add((f, RK.maxDocumentsPerTopic, Literal(s.max_docs)))
    g.add((f, RK.meanDocumentsPerTopic, Literal(f"{s.mean_docs:.4f}", datatype=_XSD_DECIMAL)))
    for t in s.tags:
        g.add((f, RK.runFileTag, Literal(t)))
