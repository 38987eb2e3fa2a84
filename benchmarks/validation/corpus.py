"""Documents of every kind, as reprokg validates them: what ``reprokg serve --demo`` loads
and computes (every bundled example, the evaluations, comparison, stability analyses and
intrinsic-dimension estimate it derives), what a user computes next on the demo's data
(:func:`computed`: each published study whose data it holds, a seed comparison, candidate
matches), plus the real survey and ML Reproducibility Challenge records and ReproDB's link
checks (cut to 40) of the field's data.

Captured at ``reprokg.ingest``'s validation call, so each graph is exactly what the SHACL
engine sees. Shared by the engine benchmark and the compare property test.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reprokg.core.document import Document

_REPO = Path(__file__).resolve().parents[2]
SHARED = _REPO.parent / "shared" / "data"


def documents(shared: Path | None = SHARED) -> list[Document]:
    """Every document the demo validates and those :func:`computed` on its store, then the
    shared data's survey and MLRC records."""
    from reprokg.service.demo import load_demo
    from reprokg.store import open_store

    seen: list[Document] = []
    with tempfile.TemporaryDirectory() as d, open_store(d) as store:
        with _captured(seen):
            load_demo(store)
        computed(store, seen)
    if shared is not None and shared.is_dir():
        from reprokg.loaders.files import SourceWalk

        paths = [
            shared / "replicability_graphics" / "consolidatedData.json",
            shared / "surveys" / "rescience" / "mlrc_metadata",
        ]
        seen += list(SourceWalk([p for p in paths if p.exists()]).documents())
        checks = shared / "artifact_evaluation" / "reprodb" / "artifact_availability.json"
        if checks.exists():  # ReproDB's link checks, cut to their first 40 records
            from reprokg.loaders import load_source

            found = json.loads(checks.read_text("utf-8"))
            found["records"] = found["records"][:40]
            seen += load_source(checks.name, json.dumps(found).encode(), "artifact-availability")
    return seen


@contextmanager
def _captured(seen: list[Document]) -> Iterator[None]:
    """Every batch ``reprokg.ingest`` validates meanwhile, appended to ``seen``."""
    import reprokg.ingest as ingest_module

    original = ingest_module.validate_documents

    def capture(batch: list[Document]) -> list:
        seen.extend(batch)
        return original(batch)

    ingest_module.validate_documents = capture  # type: ignore[assignment]
    try:
        yield
    finally:
        ingest_module.validate_documents = original  # type: ignore[assignment]


def computed(store: Any, seen: list[Document]) -> None:
    """The results the demo does not compute, by the code of the commands that do, stored
    in the demo's ``store`` (their validated documents appended to ``seen``): ``reprokg
    study NAME --save`` of every published study whose data the demo holds, ``reprokg
    stability --compare A B --save`` of the first two experiments of the first study with
    two or more, and ``reprokg evidence match`` on a small store where a match exists."""
    from reprokg.evidence.candidate_matches import find
    from reprokg.ingest import write_result
    from reprokg.stability.observations import list_studies, observation_frame, resolve_study
    from reprokg.stability.seed_variance import seed_variance
    from reprokg.store import open_store
    from reprokg.studies.registry import REGISTRY

    with _captured(seen):
        for study in REGISTRY.values():
            inputs = study.read(store)
            if not study.impl().is_empty(inputs):
                answer = study.analyze(inputs)
                write_result(store, answer)
        for s in list_studies(store):
            experiments = sorted(
                set(observation_frame(store, resolve_study(store, s.iri))["experiment"])
            )
            if len(experiments) >= 2:
                _, found = seed_variance(store, s.iri, compare=(experiments[0], experiments[1]))
                write_result(store, found["compare"])
                break
    with tempfile.TemporaryDirectory() as d, open_store(d) as small:
        _two_records_of_one_paper(small, [x for x in seen if x.kind == "gk2018"][:2])
        with _captured(seen):
            write_result(small, find(small))


#: a DOI of the test prefix (10.5555: no real paper has it)
TEST_DOI = "10.5555/reprokg-corpus"


def _two_records_of_one_paper(store: Any, gk: list[Document]) -> None:
    """GK2018's records of two real papers and, in a second source, an artifact-evaluation
    record (ReproDB's format, written here: no artifact-evaluation source lists an IJCAI,
    AAAI, ICML or NeurIPS paper of GK2018) of each with its venue, year and title, the
    first naming a DOI, the second none: a DOI and GK2018's node minted from its link, and
    two minted nodes, each a candidate match across records (the field's data gives none:
    docs/evidence.md)."""
    from rdflib.namespace import RDF

    from reprokg.core.namespaces import RK, SCHEMA
    from reprokg.ingest import ingest
    from reprokg.loaders import artifact_evaluation

    records = []
    for i, doc in enumerate(gk):
        g = doc.graph
        paper = next(g.subjects(RDF.type, SCHEMA.ScholarlyArticle))
        records.append(
            {
                "conference": str(g.value(paper, RK.conferenceName)),
                "category": "ai",
                "year": int(g.value(paper, RK.publicationYear)),
                "title": str(g.value(paper, SCHEMA.name)),
                "badges": ["available"],
                "artifact_urls": [],
                "doi": "",
                "award": "",
                "appendix_url": "",
                "paper_url": f"https://doi.org/{TEST_DOI}" if i == 0 else "",
            }  # fmt: skip
        )
    docs = artifact_evaluation.load(json.dumps(records).encode(), "artifacts.json")
    ingest(store, [*gk, *docs])


def by_kind(docs: list[Document]) -> dict[str, list[Document]]:
    out: dict[str, list[Document]] = {}
    for d in docs:
        out.setdefault(d.kind, []).append(d)
    return dict(sorted(out.items()))
