"""The Dataverse R re-execution study's logs -> one document per log file (kind ``re-execution``).

Trisovic, Lau, Pasquier & Crosas (Scientific Data 2022; atrisovic/dataverse-r-study) ran
every R file of 2,000+ Harvard Dataverse replication packages under R 3.2, 3.6 and 4.0,
with and without automatic code cleaning. ``analysis/data/run_log_rXY_(no_)env.csv`` has
one line per R file, tab-separated without a header: the package DOI (``doi:10.7910/…``),
the file name and the result (``success``, ``time limit exceeded`` or the error message);
``run_log_rXY_(no_)env_download.csv`` has the download status of each package's files
(``ok`` or the error). ``env`` is the configuration *with* code cleaning. The R version and
the cleaning are read from the file name.

A run log is one document: the configuration (``rk:ReExecutionRun``), per file a
``rk:FileExecutionResult`` (status ``success``, ``error`` or ``time-limit``, the line as
written) and per package a ``rk:ReproductionAssessment`` by automated re-execution of the
package (its DOI IRI, a ``rk:ReplicationPackage``): *reproduced* when every file ran
without error, *partially reproduced* when some did, *inconclusive* when none did and some
hit the time limit, *not reproduced* when every file failed with an error (the study's
own per-package rule counts a package a success when any file ran: the study,
``reprokg study trisovic2022``, recomputes that from the file results). A download log is
one document of ``rk:DownloadCheck`` s, one per package. A malformed line is skipped with
a located Warning (the file is one document: a Violation would reject all its lines).

Not assessed is not a failure: a package whose download failed in a configuration (a line
of that configuration's download log not ``ok``: the study's files are partly missing or
corrupt) has outcome *not assessed* (``rk:OutcomeNotAttempted``) in that configuration,
never *not reproduced*, with the download status as written (``rk:downloadStatus``) and
the reason in words (``rk:evidenceNote``: "download failed: …", and "excluded by the
study" for the packages the study drops, a download error in all six configurations, nb01
cells 9-11). A run log does not carry its download log, and a loader reads one file, so
the study's download errors ship with the loader (:data:`DOWNLOAD_ERRORS`, written from
the six published download logs by ``python -m reprokg.loaders.re_execution DIR``;
tests/loaders/test_evidence_loaders.py checks it against the raw logs).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from functools import cache
from importlib import resources
from pathlib import Path, PurePath

from rdflib import RDF, RDFS, Literal, URIRef
from rdflib.namespace import PROV, XSD

from reprokg.core.document import Document, Message
from reprokg.core.errors import IdentifierError, LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import doi_iri, minter
from reprokg.core.namespaces import RK, SCHEMA, new_graph
from reprokg.loaders.evidence import Assessment, agent
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.source import decode_text
from reprokg.loaders.reading.summary import LoadSummary

INFO = LoaderInfo(kind="re-execution", name="reprokg.loaders.re_execution", version="1")

_NAME_RE = re.compile(
    r"^run_log_r(?P<major>\d)(?P<minor>\d)_(?P<env>no_env|env)(?P<dl>_download)?\.csv$"
)
STUDY = "trisovic2022"
#: the logs carry no run dates; the study's replication data were released on this day
#: (CITATION.cff of atrisovic/dataverse-r-study: doi:10.7910/DVN/UZLXSZ)
RELEASED = Literal("2021-03-23", datatype=XSD.date)
SUCCESS, ERROR, TIME_LIMIT = "success", "error", "time-limit"
#: the study's download errors: (R version, cleaning, DOI IRI) -> (first status not
#: ok, lines not ok, lines), from the six published ``run_log_rXY_(no_)env_download.csv``
DOWNLOAD_ERRORS = "trisovic2022_download_errors.tsv"
#: how many configurations the study ran (3 R versions, with and without cleaning)
CONFIGURATIONS = 6


@cache
def download_errors() -> dict[tuple[str, bool, str], tuple[str, int, int]]:
    """The packaged table of the study's download errors (:data:`DOWNLOAD_ERRORS`)."""
    text = resources.files("reprokg.loaders").joinpath("data", DOWNLOAD_ERRORS).read_text("utf-8")
    out: dict[tuple[str, bool, str], tuple[str, int, int]] = {}
    for line in text.splitlines()[1:]:
        version, cleaning, doi, st, failed, lines = line.split("\t")
        out[(version, cleaning == "env", str(doi_iri(doi)))] = (st, int(failed), int(lines))
    return out


@cache
def excluded_by_study() -> frozenset[str]:
    """The DOI IRIs the study excludes: a download error in all six configurations."""
    per: Counter[str] = Counter(doi for _v, _c, doi in download_errors())
    return frozenset(d for d, n in per.items() if n == CONFIGURATIONS)


def status(result: str) -> str:
    """A log's result line as ``success``, ``time-limit`` or ``error``."""
    r = result.strip()
    if r == "success":
        return SUCCESS
    if r == "time limit exceeded":
        return TIME_LIMIT
    return ERROR


def configuration(name: str) -> tuple[str, bool, bool]:
    """(R version, code cleaning, is a download log) from a log's file name."""
    m = _NAME_RE.match(PurePath(name).name)
    if not m:
        raise LoadError(
            "cannot tell the R version and the code cleaning from the file name; expected "
            "run_log_rXY_env.csv or run_log_rXY_no_env.csv (with _download for a download log)",
            source=name,
            line=1,
        )
    return f"{m['major']}.{m['minor']}", m["env"] == "env", bool(m["dl"])


def run_node(version: str, cleaning: bool) -> URIRef:
    """The configuration's node (the same in its run log and its download log)."""
    return minter("re-execution-run")(stable_key(STUDY, version, cleaning))


def sniff(name: str, head: str) -> bool:
    if not _NAME_RE.match(PurePath(name).name):
        return False
    first = head.split("\n", 1)[0]
    return first.startswith("doi:") and first.count("\t") == 2


def load(data: bytes, name: str) -> list[Document]:
    return load_with_summary(data, name)[0]


def load_with_summary(data: bytes, name: str) -> tuple[list[Document], LoadSummary]:
    version, cleaning, download = configuration(name)
    text = decode_text(data, name)
    summary = LoadSummary(name, INFO.kind)
    g = new_graph()
    msgs: list[Message] = []
    run = run_node(version, cleaning)
    label = f"R {version}, {'with' if cleaning else 'without'} code cleaning"
    g.add((run, RDF.type, RK.ReExecutionRun))
    g.add((run, RDF.type, PROV.Activity))
    g.add((run, RDFS.label, Literal(f"Dataverse R re-execution study: {label}")))
    g.add((run, RK.runtimeVersion, Literal(f"R {version}")))
    g.add((run, RK.codeCleaning, Literal(cleaning)))
    g.add((run, PROV.wasAssociatedWith, _study_agent(g)))
    rows: dict[str, list[tuple[int, str, str]]] = {}
    seen: set[tuple[str, str]] = set()
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        summary.records += 1
        cols = line.split("\t")
        if len(cols) != 3:
            _skip(msgs, summary, n, "line", f"expected 3 tab-separated columns (doi, file, "
                  f"result), found {len(cols)}", line)  # fmt: skip
            continue
        doi_text, file_, result = (c.strip() for c in cols)
        if not doi_text.lower().startswith("doi:") and not doi_text.startswith("10."):
            _skip(msgs, summary, n, "doi", "expected the package's DOI (doi:10.7910/…)", doi_text)
            continue
        try:
            doi_iri(doi_text)
        except IdentifierError as exc:
            _skip(msgs, summary, n, "doi", str(exc), doi_text)
            continue
        if not file_ or not result:
            _skip(msgs, summary, n, "file" if not file_ else "result", "empty", line)
            continue
        if (doi_text, file_) in seen:
            _skip(msgs, summary, n, "file", f"{file_!r} of {doi_text} is listed twice; the "
                  "first line is kept", file_)  # fmt: skip
            continue
        seen.add((doi_text, file_))
        rows.setdefault(doi_text, []).append((n, file_, result))
    if download:
        _download_checks(g, run, rows, summary)
        key = f"{INFO.kind}:{STUDY}:r{version}:{'env' if cleaning else 'no_env'}:download"
    else:
        _results(g, run, rows, version, cleaning, label, summary)
        key = f"{INFO.kind}:{STUDY}:r{version}:{'env' if cleaning else 'no_env'}"
    summary.documents = 1
    doc = INFO.document(
        g,
        source_name=name,
        source_bytes=data,
        source_key=key,
        messages=msgs,
        subject=run,
    )
    return [doc], summary


def _skip(
    msgs: list[Message], summary: LoadSummary, n: int, path: str, why: str, value: str
) -> None:
    summary.skip(n, path, why)
    msgs.append(Message("Warning", path, f"line skipped: {why}", None, value[:200], n))


def _study_agent(g) -> URIRef:
    return agent(
        g,
        "trisovic2022-re-execution",
        "Dataverse R re-execution pipeline (Trisovic et al. 2022)",
        organisation=False,
    )


def _package(g, doi_text: str) -> URIRef:
    package = doi_iri(doi_text)
    g.add((package, RDF.type, RK.ReplicationPackage))
    g.add((package, RDF.type, SCHEMA.Dataset))
    g.add((package, RK.doiAsWritten, Literal(doi_text)))
    return package


def _results(g, run, rows, version: str, cleaning: bool, label: str, summary: LoadSummary) -> None:
    result_node = minter("file-execution-result")
    assessment_node = minter("assessment")
    pipeline = _study_agent(g)
    for doi_text, files in rows.items():
        package = _package(g, doi_text)
        counts: Counter[str] = Counter()
        results = []
        for _n, file_, result in files:
            st = status(result)
            counts[st] += 1
            summary.counts[f"files {st}"] += 1
            node = result_node(stable_key(STUDY, version, cleaning, doi_text, file_))
            results.append(node)
            g.add((node, RDF.type, RK.FileExecutionResult))
            g.add((node, RK.inReExecutionRun, run))
            g.add((node, RK.executedFile, Literal(file_)))
            g.add((node, RK.executionStatus, Literal(st)))
            g.add((node, RK.executionMessage, Literal(result)))
            g.add((node, PROV.wasDerivedFrom, package))
        n = sum(counts.values())
        ran = (
            f"{counts[SUCCESS]} of {n} R file(s) ran without error, "
            f"{counts[ERROR]} failed with an error, {counts[TIME_LIMIT]} hit the time limit "
            f"({label})"
        )
        failed_download = download_errors().get((version, cleaning, str(package)))
        download_status = None
        if failed_download is not None:
            download_status, bad, lines = failed_download
            outcome, slug = RK.OutcomeNotAttempted, "not-attempted"
            note = (
                f"download failed: {download_status} ({bad} of {lines} line(s) of the "
                f"package's download log not ok); "
                + (
                    "excluded by the study (a download error in all six configurations); "
                    if str(package) in excluded_by_study()
                    else "the study keeps the package (its download succeeded in another "
                    "configuration); "
                )
                + f"not assessed, whatever the run gave: {ran}"
            )
            summary.counts["packages not assessed (download failed)"] += 1
        elif counts[SUCCESS] == n:
            outcome, slug = RK.OutcomeReproduced, "reproduced"
        elif counts[SUCCESS]:
            outcome, slug = RK.OutcomePartiallyReproduced, "partially-reproduced"
        elif counts[TIME_LIMIT]:
            outcome, slug = RK.OutcomeInconclusive, "inconclusive"
        else:
            outcome, slug = RK.OutcomeNotReproduced, "not-reproduced"
        if failed_download is None:
            note = ran
        summary.outcomes[slug] += 1
        node = assessment_node(stable_key(INFO.kind, STUDY, version, cleaning, doi_text))
        Assessment(
            node=node,
            outcome=outcome,
            method=RK.AutomatedReExecution,
            assessor=pipeline,
            source=RK.DataverseReExecutionStudy,
            work=package,
            kind=RK.TermReExecution,
            claim=f"the package's R files run without error ({label})",
            note=note,
            as_written=", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
            venue="Harvard Dataverse",
            date=RELEASED,
        ).add_to(g)
        g.add((node, RK.inReExecutionRun, run))
        if download_status is not None:
            g.add((node, RK.downloadStatus, Literal(download_status)))
        for r in results:
            g.add((node, RK.fileResult, r))


def _download_checks(g, run, rows, summary: LoadSummary) -> None:
    check_node = minter("download-check")
    for doi_text, files in rows.items():
        package = _package(g, doi_text)
        failed = [(fid, st) for _n, fid, st in files if st != "ok"]
        node = check_node(stable_key(STUDY, str(run), doi_text))
        g.add((node, RDF.type, RK.DownloadCheck))
        g.add((node, RK.inReExecutionRun, run))
        g.add((node, RK.filesChecked, Literal(len(files))))
        g.add((node, RK.filesFailed, Literal(len(failed))))
        g.add((node, RK.downloadStatus, Literal(failed[0][1] if failed else "ok")))
        g.add((package, RK.downloadCheck, node))
        summary.counts[
            "packages downloaded" if not failed else "packages with a download error"
        ] += 1
        summary.counts["lines ok"] += len(files) - len(failed)
        summary.counts["lines not ok"] += len(failed)


def download_errors_table(folder: Path) -> str:
    """:data:`DOWNLOAD_ERRORS` written from the study's six download logs in ``folder``."""
    rows = ["version\tcleaning\tdoi\tstatus\tfailed\tlines"]
    for f in sorted(folder.glob("run_log_r*_download.csv")):
        version, cleaning, _ = configuration(f.name)
        per: dict[str, list[str]] = {}
        for line in f.read_text("utf-8").split("\n"):
            cols = [c.strip() for c in line.split("\t")]
            if len(cols) == 3:
                per.setdefault(cols[0], []).append(cols[2])
        for doi, statuses in sorted(per.items()):
            bad = [st for st in statuses if st != "ok"]
            if bad:
                env = "env" if cleaning else "no_env"
                rows.append(f"{version}\t{env}\t{doi}\t{bad[0]}\t{len(bad)}\t{len(statuses)}")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.stdout.write(download_errors_table(Path(sys.argv[1])))
