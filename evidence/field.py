"""The field in one graph, reproducibly: every source the project loads, from a folder laid
out as the field's data (``DATA/``) or holding checkouts of the sources' upstream
repositories (:class:`Upstream`: each file named by its path in ``DATA/``, so either
layout builds the same dump), in one fixed order, into one store — then a dump whose
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
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from reprokg.core.errors import UsageError
from reprokg.evidence.outcomes import WorkOutcome
from reprokg.ingest import IngestResult
from reprokg.loaders.files import SourceWalk
from reprokg.loaders.reading.summary import LoadSummary
from reprokg.store.base import Store

#: the version of the dump's and the manifest's layout (a change of either moves it)
DUMP_FORMAT = 1


@dataclass(frozen=True)
class Upstream:
    """A repository a source's files come from, as cloned: the paths that tell a checkout
    of it, and where each file it holds lies in the data layout (so a file is named, and
    builds, the same whichever layout it came in)."""

    #: the repository (``owner/name``), for the manifest and the docs
    repo: str
    #: globs relative to the checkout, each of which must match for it to be recognised
    markers: tuple[str, ...]
    #: (glob in the checkout, the same file's path under the data folder): each ``*`` of
    #: the second stands for what the ``*`` of the first in the same place matched
    files: tuple[tuple[str, str], ...]


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
    #: the upstream repositories whose checkouts hold this source's files
    upstream: tuple[Upstream, ...] = ()


#: every source the project has a loader for, in the order they are loaded: the evidence
#: (assessments) first, then the records that name or review papers
FIELD_SOURCES: tuple[FieldSource, ...] = (
    # ReproDB's artifacts, papers and link checks, then the results pages it consolidates
    FieldSource(
        "artifact-evaluation",
        "artifact_evaluation",
        ("artifact-evaluation", "artifact-availability"),
        (".md",),
        (
            Upstream(
                "ReproDB/reprodb.github.io",
                ("src/assets/data/artifact*.json",),
                tuple(
                    (f"src/assets/data/{n}.json", f"artifact_evaluation/reprodb/{n}.json")
                    for n in ("artifact_availability", "artifacts", "papers")
                ),
            ),
            Upstream(
                "sysartifacts/sysartifacts.github.io",
                ("_conferences/eurosys.md",),
                (("_conferences/*/results.md", "artifact_evaluation/sysartifacts/*-results.md"),),
            ),
            Upstream(
                "secartifacts/secartifacts.github.io",
                ("_conferences/ndss.md",),
                (("_conferences/*/results.md", "artifact_evaluation/secartifacts/*-results.md"),),
            ),
        ),
    ),
    FieldSource(
        "rescience",
        "surveys/rescience/journal_bib",
        ("rescience",),
        upstream=(
            Upstream(
                "ReScience/rescience.github.io",
                ("_bibliography/published.bib", "_bibliography/under-review.bib"),
                (("_bibliography/*.bib", "surveys/rescience/journal_bib/_bibliography/*.bib"),),
            ),
        ),
    ),
    FieldSource(
        "re-execution",
        "surveys/trisovic_dataverse_r/analysis/data",
        ("re-execution",),
        upstream=(
            Upstream(
                "atrisovic/dataverse-r-study",
                ("analysis/data/run_log_*.csv",),
                (
                    (
                        "analysis/data/run_log_*.csv",
                        "surveys/trisovic_dataverse_r/analysis/data/run_log_*.csv",
                    ),
                ),
            ),
        ),
    ),
    FieldSource(
        "mlrc",
        "surveys/rescience/mlrc_metadata",
        ("mlrc",),
        upstream=(
            Upstream(
                "ReScience/MLRC",
                ("20*/accepted.bib", "20*/*/journal/metadata.yaml"),
                (
                    (
                        "*/*/journal/metadata.yaml",
                        "surveys/rescience/mlrc_metadata/*/*/journal/metadata.yaml",
                    ),
                ),
            ),
        ),
    ),
    FieldSource(
        "grsi",
        "surveys/grsi_isenberg",
        ("grsi",),
        upstream=(
            Upstream(
                "tobiasisenberg/Visualization-Reproducibility",
                ("publication_data/grsi_paper_data.json", "publication_data/grsi_metadata.json"),
                (
                    (
                        "publication_data/grsi_paper_data.json",
                        "surveys/grsi_isenberg/publication_data/grsi_paper_data.json",
                    ),
                ),
            ),
        ),
    ),
    FieldSource(
        "gk2018",
        "surveys/gundersen_kjensmo_2018/data/evaluations.csv",
        ("gk2018",),
        upstream=(
            Upstream(
                "aaai2018-paperid-62/aaai2018-paperid-62",
                ("data/evaluations.csv", "data/sampled_aaai-14"),
                (("data/evaluations.csv", "surveys/gundersen_kjensmo_2018/data/evaluations.csv"),),
            ),
        ),
    ),
    FieldSource(
        "pwc-checklist",
        "surveys/pwc_code_checklist_neurips2019/notebooks",
        ("pwc-checklist",),
        upstream=(
            Upstream(
                "paperswithcode/releasing-research-code",
                ("notebooks/code_checklist-neurips2019.csv",),
                (
                    (
                        "notebooks/code_checklist-neurips2019.csv",
                        "surveys/pwc_code_checklist_neurips2019/notebooks/"
                        "code_checklist-neurips2019.csv",
                    ),
                ),
            ),
        ),
    ),
    FieldSource(
        "siggraph2020",
        "replicability_graphics/consolidatedData.json",
        ("survey",),
        upstream=(
            Upstream(
                "GraphicsReplicability/sig20-paper-supplementary-materials",
                ("website/consolidatedData.json", "scripts/generateStatistics.m"),
                (
                    (
                        "website/consolidatedData.json",
                        "replicability_graphics/consolidatedData.json",
                    ),
                ),
            ),
        ),
    ),
    FieldSource(
        "replicability-graphics",
        "replicability_graphics/per_paper",
        ("survey",),
        upstream=(
            Upstream(
                "GraphicsReplicability/replicability.graphics",
                ("data/*-20*/10.*.json",),
                (("data/*/*.json", "replicability_graphics/per_paper/*/*.json"),),
            ),
        ),
    ),
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
    #: folders of a folder of checkouts that are no checkout (listed with ``unclaimed``)
    unrecognised: list[str] = field(default_factory=list)
    #: per source read from checkouts: (folder, repository) of each
    checkouts: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    result: IngestResult = field(default_factory=IngestResult)

    def record(self, walked: FieldWalk, result: IngestResult) -> None:
        """Add a source's files (their hashes and counts) once its walk is stored."""
        self.result.extend(result)
        self.files.extend(
            _files(self.sources_dir, walked.source.name, walked.summaries, result, walked.located)
        )
        if walked.checkouts:
            self.checkouts[walked.source.name] = walked.checkouts

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
                    **(
                        {"checkouts": [{"folder": f, "repo": r} for f, r in self.checkouts[s.name]]}
                        if s.name in self.checkouts
                        else {}
                    ),
                    "files": [f.to_json() for f in self.files if f.source == s.name],
                    "missing": s.name in self.missing,
                }
                for s in FIELD_SOURCES
                if s.name in {f.source for f in self.files} or s.name in self.missing
            ],
            "stored": {s: r.count(s) for s in ("added", "unchanged", "revised", "rejected")},
            "warnings": r.warnings,
            "errors": sorted(str(e) for e in r.errors),
            "unclaimed": sorted([str(e) for e in r.unclaimed] + self.unrecognised),
        }


def _matches(root: Path, pattern: str) -> list[Path]:
    return sorted(p for p in root.glob(pattern) if not p.name.startswith("."))


@dataclass
class FieldWalk:
    """One source's files to read, and the loaders' summaries as they are read."""

    source: FieldSource
    walk: SourceWalk
    summaries: list[LoadSummary]
    #: a checkout's files by the name they are read under (their path in the data layout)
    located: dict[str, Path] = field(default_factory=dict)
    #: the checkouts they came from: (folder relative to the sources folder, repository)
    checkouts: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class FieldPlan:
    """What a build will read: a walk per source found, in the order of
    :data:`FIELD_SOURCES`, the sources the folder lacks, and (a folder of checkouts) the
    folders recognised as no checkout."""

    root: Path
    walks: list[FieldWalk]
    missing: list[str]
    unrecognised: list[str] = field(default_factory=list)


def plan_field(sources_dir: str | Path, only: Collection[str] | None = None) -> FieldPlan:
    """The walks of every source of :data:`FIELD_SOURCES` (or those named in ``only``)
    found under ``sources_dir``, sources named relative to it; refused before any store is
    touched when the folder holds none.

    A folder where any source's pattern matches is read in the data layout; otherwise as
    checkouts of the upstream repositories (:func:`find_checkouts`), each file named by
    its path in the data layout, so the same files build the same dump in either."""
    root = Path(sources_dir).absolute()
    if not root.is_dir():
        raise UsageError(f"{sources_dir}: not a folder (expected one laid out as the field's data)")
    unknown = set(only or ()) - {s.name for s in FIELD_SOURCES}
    if unknown:
        raise UsageError(
            f"unknown field source(s) {', '.join(sorted(unknown))}: expected any of "
            + ", ".join(s.name for s in FIELD_SOURCES)
        )
    layout = any(_matches(root, s.pattern) for s in FIELD_SOURCES)
    found: dict[str, list[tuple[str, Path, str, str]]] = {}
    plan = FieldPlan(root, [], [])
    if not layout:
        found, plan.unrecognised = find_checkouts(root)
    for src in FIELD_SOURCES:
        if only is not None and src.name not in only:
            continue
        summaries: list[LoadSummary] = []
        if layout:
            paths = _matches(root, src.pattern)
            names: tuple[Path, str] | dict[Path, str] = (root, "")
            located: dict[str, Path] = {}
        else:
            files = found.get(src.name, [])
            paths = [path for _, path, _, _ in files]
            names = {path: name for name, path, _, _ in files}
            located = {name: path for name, path, _, _ in files}
        if not paths:
            plan.missing.append(src.name)
            continue
        walk = SourceWalk(
            paths,
            kinds=src.kinds,
            names=names,
            read_suffixes=set(src.read_suffixes),
            summary=summaries.append,
        )
        checkouts = sorted({(f, r) for _, _, f, r in found.get(src.name, [])})
        plan.walks.append(FieldWalk(src, walk, summaries, located, checkouts))
    if not plan.walks:
        raise UsageError(
            f"{sources_dir}: no source of the field found (expected a folder laid out as the "
            "data, e.g. " + ", ".join(s.pattern for s in FIELD_SOURCES[:3]) + ", or checkouts "
            "of its repositories, e.g. "
            + ", ".join(u.repo for s in FIELD_SOURCES[:2] for u in s.upstream)
            + ")"
        )
    return plan


def _glob_re(glob: str) -> re.Pattern[str]:
    """A checkout glob as a regular expression, each ``*`` a group (one path part)."""
    return re.compile("".join("([^/]*)" if c == "*" else re.escape(c) for c in glob))


def _data_name(glob: str, data: str, rel: str) -> str:
    """The data-layout name of a checkout file ``rel`` that ``glob`` matched."""
    m = _glob_re(glob).fullmatch(rel)
    assert m is not None and data.count("*") == glob.count("*"), (glob, data, rel)
    parts = iter(m.groups())
    return "".join(next(parts) if c == "*" else c for c in data)


def recognised(folder: Path) -> list[tuple[FieldSource, Upstream]]:
    """The upstream repositories ``folder`` is a checkout of (every marker matches)."""
    return [
        (src, up)
        for src in FIELD_SOURCES
        for up in src.upstream
        if all(_matches(folder, m) for m in up.markers)
    ]


def find_checkouts(
    root: Path,
) -> tuple[dict[str, list[tuple[str, Path, str, str]]], list[str]]:
    """Per source, its files in the checkouts under ``root`` (the folder itself, if it is
    one, else each folder in it) as (data-layout name, path, checkout folder, repository),
    sorted by name as a folder walk of the data layout reads them; and the folders that
    are no checkout. Two checkouts giving one name are refused: which one is meant?"""
    if recognised(root):
        folders = [root]
        unrecognised: list[str] = []
    else:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
        unrecognised = [
            f"{p.name}/: not a checkout of a repository the field build reads (expected "
            "the marker paths of one, docs/evidence.md, The field build)"
            for p in folders
            if not recognised(p)
        ]
    found: dict[str, list[tuple[str, Path, str, str]]] = {}
    seen: dict[str, Path] = {}
    for folder in folders:
        label = "." if folder == root else folder.name
        for src, up in recognised(folder):
            for glob, data in up.files:
                for path in _matches(folder, glob):
                    if not path.is_file():
                        continue
                    name = _data_name(glob, data, path.relative_to(folder).as_posix())
                    if name in seen:
                        raise UsageError(
                            f"{seen[name]} and {path}: two checkouts hold {name}; expected "
                            "one (keep one copy of each repository in the folder)"
                        )
                    seen[name] = path
                    found.setdefault(src.name, []).append((name, path, label, up.repo))
    for files in found.values():
        files.sort(key=lambda f: PurePosixPath(f[0]))
    return found, unrecognised


def _files(
    root: Path,
    source: str,
    summaries: Iterable[LoadSummary],
    result: IngestResult,
    located: Mapping[str, Path] | None = None,
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
        data = ((located or {}).get(s.source) or root / s.source).read_bytes()
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
