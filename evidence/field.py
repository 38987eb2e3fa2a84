"""The field in one graph, reproducibly: every source the project loads, from a folder laid
out as the field's data (``DATA/``), in one fixed order, into one store — then a dump whose
bytes depend only on the sources and reprokg's version, a manifest, and the coverage the
read model counts (docs/evidence.md, The field build).

Why each step is what it is:

* **a fixed order** (:data:`FIELD_SOURCES`, folders walked in sorted path order): a later
  document with the source key of an earlier one revises it, so the order is part of the
  result;
* **a fixed date**: the ingest stamps (``prov:generatedAtTime``, the ingest activity minted
  from it) are the only thing the clock puts into a document; the build passes one date
  (:func:`source_date`) for all;
* **sources named relative to the folder**: the same folder copied elsewhere builds the
  same graphs;
* **the dump canonical**: blank nodes relabelled by RDFC-1.0 (the loaders' blank nodes get
  random labels), lines sorted, gzip with no name and ``mtime`` 0.

This module plans the walks (:func:`plan_field`) and counts what came of them
(:class:`FieldBuild`); the command that was asked (``cli/field.py``) stores each walk
through ingest, as only the adapters store (docs/architecture.md, Design decisions, Data
flow).
"""

from __future__ import annotations

import gzip
import hashlib
import io
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from reprokg.core.errors import UsageError
from reprokg.evidence.outcomes import WorkOutcome, work_outcomes
from reprokg.ingest import IngestResult
from reprokg.loaders.files import SourceWalk
from reprokg.loaders.reading.summary import LoadSummary
from reprokg.store.base import Store

#: the version of the dump's and the manifest's layout (a change of either moves it)
DUMP_FORMAT = 1


@dataclass(frozen=True)
class FieldSource:
    """One source of the field: a glob under the sources folder and the loaders asked."""

    name: str
    #: a glob relative to the sources folder (a folder matched is walked, sorted)
    pattern: str
    #: the document kinds whose loaders may claim its files
    kinds: tuple[str, ...]
    #: suffixes a folder walk reads although it skips them as documentation (``.md``)
    read_suffixes: tuple[str, ...] = ()


#: every source the project has a loader for, in the order they are loaded: the evidence
#: (assessments) first, then the records that name or review papers
FIELD_SOURCES: tuple[FieldSource, ...] = (
    # ReproDB's artifacts, papers and link checks, then the results pages it consolidates
    FieldSource(
        "artifact-evaluation",
        "artifact_evaluation",
        ("artifact-evaluation", "artifact-availability"),
        (".md",),
    ),
    FieldSource("rescience", "surveys/rescience/journal_bib", ("rescience",)),
    FieldSource("re-execution", "surveys/trisovic_dataverse_r/analysis/data", ("re-execution",)),
    FieldSource("mlrc", "surveys/rescience/mlrc_metadata", ("mlrc",)),
    FieldSource("grsi", "surveys/grsi_isenberg", ("grsi",)),
    FieldSource("gk2018", "surveys/gundersen_kjensmo_2018/data/evaluations.csv", ("gk2018",)),
    FieldSource(
        "pwc-checklist", "surveys/pwc_code_checklist_neurips2019/notebooks", ("pwc-checklist",)
    ),
    FieldSource("siggraph2020", "replicability_graphics/consolidatedData.json", ("survey",)),
    FieldSource("replicability-graphics", "replicability_graphics/per_paper", ("survey",)),
)


def source_date(given: str | None = None, epoch: int | None = None) -> tuple[datetime, str]:
    """The one date every document of a build is stamped with, and where it came from:
    ``given`` (``--date``: an ISO date or date-time), else ``epoch`` (``SOURCE_DATE_EPOCH``),
    else the epoch itself — stated as such, never the clock."""
    if given:
        try:
            when = (
                datetime.fromisoformat(given)
                if "T" in given or " " in given.strip()
                else datetime.combine(date.fromisoformat(given), datetime.min.time())
            )
        except ValueError:
            raise UsageError(
                f"--date {given!r}: expected an ISO date (2026-05-06) or date-time "
                "(2026-05-06T12:00:00Z)"
            ) from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return when.astimezone(UTC).replace(microsecond=0), "--date"
    if epoch is not None:
        return datetime.fromtimestamp(epoch, UTC), "SOURCE_DATE_EPOCH"
    return datetime.fromtimestamp(0, UTC), "default (SOURCE_DATE_EPOCH unset: 0)"


@dataclass
class SourceFile:
    """One file read: its content hash and what came of it."""

    path: str
    source: str
    kind: str
    sha256: str
    bytes: int
    records: int
    documents: int
    rejected: int = 0
    warned: int = 0
    warnings: int = 0
    skipped: int = 0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class FieldBuild:
    """What a build read and stored."""

    sources_dir: Path
    when: datetime
    date_from: str
    files: list[SourceFile] = field(default_factory=list)
    #: sources whose pattern matched nothing under the folder
    missing: list[str] = field(default_factory=list)
    result: IngestResult = field(default_factory=IngestResult)

    def record(self, walked: FieldWalk, result: IngestResult) -> None:
        """Add a source's files (their hashes and counts) once its walk is stored."""
        self.result.extend(result)
        self.files.extend(_files(self.sources_dir, walked.source.name, walked.summaries, result))

    def by_source(self) -> list[tuple[str, list[SourceFile]]]:
        """The files read, per source, in the build's order."""
        return [
            (s.name, [f for f in self.files if f.source == s.name])
            for s in FIELD_SOURCES
            if any(f.source == s.name for f in self.files)
        ]

    def to_json(self) -> dict[str, Any]:
        r = self.result
        return {
            "sources": [
                {
                    "name": s.name,
                    "pattern": s.pattern,
                    "kinds": list(s.kinds),
                    "files": [f.to_json() for f in self.files if f.source == s.name],
                    "missing": s.name in self.missing,
                }
                for s in FIELD_SOURCES
                if s.name in {f.source for f in self.files} or s.name in self.missing
            ],
            "stored": {s: r.count(s) for s in ("added", "unchanged", "revised", "rejected")},
            "warnings": r.warnings,
            "errors": sorted(str(e) for e in r.errors),
            "unclaimed": sorted(str(e) for e in r.unclaimed),
        }


def _matches(root: Path, pattern: str) -> list[Path]:
    return sorted(p for p in root.glob(pattern) if not p.name.startswith("."))


@dataclass
class FieldWalk:
    """One source's files to read, and the loaders' summaries as they are read."""

    source: FieldSource
    walk: SourceWalk
    summaries: list[LoadSummary]


@dataclass
class FieldPlan:
    """What a build will read: a walk per source found, in the order of
    :data:`FIELD_SOURCES`, and the sources the folder lacks."""

    root: Path
    walks: list[FieldWalk]
    missing: list[str]


def plan_field(sources_dir: str | Path, only: Collection[str] | None = None) -> FieldPlan:
    """The walks of every source of :data:`FIELD_SOURCES` (or those named in ``only``)
    found under ``sources_dir``, sources named relative to it; refused before any store is
    touched when the folder holds none."""
    root = Path(sources_dir).absolute()
    if not root.is_dir():
        raise UsageError(f"{sources_dir}: not a folder (expected one laid out as the field's data)")
    unknown = set(only or ()) - {s.name for s in FIELD_SOURCES}
    if unknown:
        raise UsageError(
            f"unknown field source(s) {', '.join(sorted(unknown))}: expected any of "
            + ", ".join(s.name for s in FIELD_SOURCES)
        )
    plan = FieldPlan(root, [], [])
    for src in FIELD_SOURCES:
        if only is not None and src.name not in only:
            continue
        paths = _matches(root, src.pattern)
        if not paths:
            plan.missing.append(src.name)
            continue
        summaries: list[LoadSummary] = []
        walk = SourceWalk(
            paths,
            kinds=src.kinds,
            names=(root, ""),
            read_suffixes=set(src.read_suffixes),
            summary=summaries.append,
        )
        plan.walks.append(FieldWalk(src, walk, summaries))
    if not plan.walks:
        raise UsageError(
            f"{sources_dir}: no source of the field found (expected e.g. "
            + ", ".join(s.pattern for s in FIELD_SOURCES[:3])
            + ")"
        )
    return plan


def _files(
    root: Path, source: str, summaries: Iterable[LoadSummary], result: IngestResult
) -> list[SourceFile]:
    """Each file's hash and counts: records and skips from its loader's summary, documents
    rejected and warned from ingest."""
    by_file: dict[str, Counter[str]] = {}
    for d in result.documents:
        c = by_file.setdefault(d.source, Counter())
        c["rejected"] += d.status == "rejected"
        warnings = d.report.count("Warning") if d.report is not None else 0
        c["warned"] += warnings > 0
        c["warnings"] += warnings
    out = []
    for s in summaries:
        data = (root / s.source).read_bytes()
        c = by_file.get(s.source, Counter())
        out.append(
            SourceFile(
                path=s.source,
                source=source,
                kind=s.kind,
                sha256=hashlib.sha256(data).hexdigest(),
                bytes=len(data),
                records=s.records,
                documents=s.documents,
                rejected=c["rejected"],
                warned=c["warned"],
                warnings=c["warnings"],
                skipped=len(s.skipped),
            )
        )
    return out


# --------------------------------------------------------------------------- the dump


@dataclass(frozen=True)
class Dump:
    """A written dump: the file's hash, and the hash of its N-Quads (the same whatever the
    zlib that compressed them)."""

    path: Path
    sha256: str
    nquads_sha256: str
    quads: int
    bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.path.name,
            "format": "application/n-quads+gzip",
            "sha256": self.sha256,
            "nquads_sha256": self.nquads_sha256,
            "quads": self.quads,
            "bytes": self.bytes,
        }


def dump_name(suffix: str = ".nq.gz") -> str:
    """The dump's file name (the manifest's with ``.manifest.json``): versioned, since a
    new reprokg may write other graphs from the same sources."""
    from reprokg import __version__

    return f"reprokg-field-{__version__}{suffix}"


def canonical_nquads(store: Store) -> bytes:
    """Every document quad of the store as canonical N-Quads: blank nodes labelled by
    RDFC-1.0, one line per quad, lines sorted (bytewise), each once."""
    import pyoxigraph as ox

    raw = io.BytesIO()
    store.dump(raw, "nquads")
    dataset = ox.Dataset(ox.parse(raw.getvalue(), ox.RdfFormat.N_QUADS))
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    text = ox.serialize(dataset, format=ox.RdfFormat.N_QUADS)
    assert text is not None
    lines = sorted(set(text.splitlines(keepends=True)))
    return b"".join(lines)


def write_dump(store: Store, path: str | Path) -> Dump:
    """The store's canonical N-Quads, gzipped with no file name and ``mtime`` 0 (a gzip
    header otherwise holds both), to ``path``."""
    path = Path(path)
    nquads = canonical_nquads(store)
    packed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=packed, mtime=0, compresslevel=9) as gz:
        gz.write(nquads)
    data = packed.getvalue()
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_bytes(path, data)
    return Dump(
        path,
        hashlib.sha256(data).hexdigest(),
        hashlib.sha256(nquads).hexdigest(),
        nquads.count(b"\n"),
        len(data),
    )


def _write_bytes(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)


# --------------------------------------------------------------------------- coverage


@dataclass(frozen=True)
class Coverage:
    """What the field's evidence covers, as the one read model counts it: assessed works,
    works by number of evidence sources and of kinds of evidence, decisions per kind."""

    works: int
    by_sources: Mapping[int, int]
    by_kinds: Mapping[int, int]
    #: kinds counted without "not assessed" decisions (a badge of availability only)
    by_assessed_kinds: Mapping[int, int]
    #: kind -> outcome -> decisions in force
    decisions: Mapping[str, Mapping[str, int]]

    def to_json(self) -> dict[str, Any]:
        return {
            "works": self.works,
            "works_by_sources": {str(k): v for k, v in sorted(self.by_sources.items())},
            "works_by_kinds": {str(k): v for k, v in sorted(self.by_kinds.items())},
            "works_by_assessed_kinds": {
                str(k): v for k, v in sorted(self.by_assessed_kinds.items())
            },
            "decisions": {k: dict(sorted(v.items())) for k, v in sorted(self.decisions.items())},
        }

    def to_text(self) -> str:
        out = [f"assessed works: {self.works:,}"]
        for label, table in (
            ("works by number of sources", self.by_sources),
            ("works by number of kinds of evidence", self.by_kinds),
            ("works by number of kinds, 'not assessed' left out", self.by_assessed_kinds),
        ):
            out.append(f"{label}: " + ", ".join(f"{k}: {v:,}" for k, v in sorted(table.items())))
        out.append("decisions in force per kind of evidence:")
        for kind, outcomes in sorted(self.decisions.items()):
            total = sum(outcomes.values())
            parts = ", ".join(f"{o} {n:,}" for o, n in sorted(outcomes.items()))
            out.append(f"  {kind}: {total:,} ({parts})")
        return "\n".join(out)


def _tally(works: Iterable[tuple[Collection[str], Iterable[tuple[str, str]]]]) -> Coverage:
    """Coverage of works given as (their sources, their decisions (kind, outcome))."""
    n = 0
    by_sources: Counter[int] = Counter()
    by_kinds: Counter[int] = Counter()
    by_assessed: Counter[int] = Counter()
    decisions: dict[str, Counter[str]] = {}
    for sources, decided in works:
        decided = list(decided)
        n += 1
        by_sources[len(set(sources))] += 1
        by_kinds[len({k for k, _ in decided})] += 1
        by_assessed[len({k for k, o in decided if o != "not-attempted"})] += 1
        for kind, outcome in decided:
            decisions.setdefault(kind, Counter())[outcome] += 1
    return Coverage(n, dict(by_sources), dict(by_kinds), dict(by_assessed), decisions)


def coverage_of(works: Iterable[WorkOutcome]) -> Coverage:
    """The coverage of the works the read model answers for."""
    return _tally((w.summary.sources, w.decisions) for w in works)


def coverage(store: Store) -> Coverage:
    """The store's coverage, read through :func:`~reprokg.evidence.outcomes.work_outcomes`."""
    return coverage_of(work_outcomes(store).values())


# --------------------------------------------------------------------------- after linking


@dataclass(frozen=True)
class LinkedCoverage:
    """The coverage once the accepted links across records are followed: works a chain of
    accepted links joins count as one work, holding the sources and the decisions of all."""

    #: accepted links followed (pairs of paper nodes)
    links: int
    #: assessed works an accepted link reaches (to any node, assessed or not)
    linked: int
    #: assessed works that links joined to another assessed work (before: each counted)
    joined: int
    coverage: Coverage

    def to_json(self) -> dict[str, Any]:
        return {
            "accepted_links": self.links,
            "works_linked": self.linked,
            "works_joined": self.joined,
            **self.coverage.to_json(),
        }

    def to_text(self) -> str:
        head = (
            f"after following {self.links:,} accepted link(s) across records "
            f"({self.linked:,} assessed works linked, {self.joined:,} joined to another "
            "assessed work):"
        )
        return head + "\n" + "\n".join("  " + line for line in self.coverage.to_text().splitlines())


def linked_coverage_of(
    works: Mapping[str, WorkOutcome], links: Iterable[tuple[str, str]]
) -> LinkedCoverage:
    """The coverage of ``works`` (by work IRI) with every accepted link's two nodes as one
    work (union-find; a chain through a node that holds no assessment joins too). A joined
    work's sources are its members' (a source counted once), its decisions all of theirs: a
    link joins works, it adds or removes no decision, so the decisions per kind are those
    before linking."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    followed = 0
    for a, b in links:
        followed += 1
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    size = Counter(root(x) for x in list(parent))
    groups: dict[str, list[WorkOutcome]] = {}
    for iri in sorted(works):
        groups.setdefault(root(iri), []).append(works[iri])
    linked = sum(len(g) for r, g in groups.items() if size[r] > 1)
    joined = sum(len(g) for g in groups.values() if len(g) > 1)
    merged = (
        ({s for w in g for s in w.summary.sources}, [d for w in g for d in w.decisions])
        for g in groups.values()
    )
    return LinkedCoverage(followed, linked, joined, _tally(merged))


#: the loaders' candidate matches (within one record) and whether each is accepted
CROSS_LINKS_QUERY = "evidence/sparql/cross-links.rq"


def accepted_links(store: Store) -> list[tuple[str, str]]:
    """Every accepted link between two paper nodes: those a loader recorded within a record
    (accepted unless stated otherwise) and those the pass across records accepts
    (:func:`reprokg.evidence.candidate_matches.find`, computed here, not stored: the build's
    dump holds the sources' documents only)."""
    from reprokg.evidence.candidate_matches import find
    from reprokg.sparql.named import package_query
    from reprokg.sparql.rows import select_rows

    pairs = {
        (str(r["a"]), str(r["b"]))
        for r in select_rows(store, package_query(CROSS_LINKS_QUERY).bind({}))
        if str(r.get("accepted", "true")).lower() not in ("false", "0")
    }
    # sorted() of two str gives list[str], a pair to the reader, not to mypy
    pairs |= {tuple(sorted((m.a, m.b))) for m in find(store).matches if m.accepted}  # type: ignore[misc]
    return sorted(pairs)


def linked_coverage(store: Store) -> LinkedCoverage:
    """The store's coverage after its accepted links (:func:`accepted_links`)."""
    return linked_coverage_of(work_outcomes(store), accepted_links(store))


# --------------------------------------------------------------------------- the manifest


def manifest(
    build: FieldBuild, dump: Dump, cover: Coverage, linked: LinkedCoverage | None = None
) -> dict[str, Any]:
    """The build's manifest: every source file with its hash and counts, the version, the
    date the documents carry (and where it came from), the dump's hashes and the coverage,
    before and after following the accepted links.
    It holds no clock time or path of this machine, so two builds give the same bytes."""
    from reprokg import __version__

    return {
        "format": DUMP_FORMAT,
        "reprokg_version": __version__,
        "build_date": build.when.isoformat().replace("+00:00", "Z"),
        "build_date_from": build.date_from,
        **build.to_json(),
        "dump": dump.to_json(),
        "coverage": cover.to_json(),
        **({"coverage_after_linking": linked.to_json()} if linked is not None else {}),
    }
