"""``reprokg evaluate``: runs' reported measures, evaluated on qrels, onto the leaderboards.

A run header says which measures the run reports; with the qrels of its test collection
that is enough to compute them and rank the run against others on the same collection.
This is the part of a comparison (:mod:`reprokg.measures.run_comparison`) that does not
need a reproduction: the same functions (:mod:`reprokg.measures.reported`) evaluate and
write the scores, so a run evaluated here and compared later has one score per measure.

The result (:class:`Evaluation`, a :class:`reprokg.core.computed.ComputedResult`) is a
document of kind ``evaluation``: a ``prov:Activity`` that used the qrels, the run files
and the software, and each run's ``rk:reportedScore`` values on their
``rk:Leaderboard``. Its source key names the qrels and the run files, so evaluating the
same runs again is *unchanged*, and a new qrels file makes another evaluation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import ClassVar

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS

from reprokg.core.computed import Computation, result_document, software_versions
from reprokg.core.document import Document
from reprokg.core.errors import UsageError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint
from reprokg.core.namespaces import RK, new_graph
from reprokg.measures.inputs import QrelsInput, RunInput
from reprokg.measures.leaderboard import add_reported_scores, score_collection
from reprokg.measures.reported import Scores, evaluate_reported

KIND = "evaluation"
PRODUCER = "reprokg.measures.evaluation"


@dataclass
class RunScores:
    run: RunInput
    scores: Scores
    collection: URIRef | None = None

    @property
    def subject(self) -> URIRef:
        return self.run.subject or mint("run", stable_key("run-lines", self.run.sha256))


@dataclass
class Evaluation:
    """Runs' reported measures evaluated on one qrels file."""

    KIND: ClassVar[str] = KIND

    qrels: QrelsInput
    runs: list[RunScores]
    warnings: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        basis = {"qrels": self.qrels.sha256, "runs": sorted(r.run.content_key for r in self.runs)}
        return stable_key("evaluation", json.dumps(basis, sort_keys=True))

    def to_json(self) -> dict:
        return {
            "qrels": self.qrels.name,
            "runs": [
                {
                    "run": str(r.subject),
                    "tag": _tag(r.run),
                    "file": r.run.source.source_name if r.run.source else None,
                    "scores": {
                        name: {"ir_measures": im, "value": v}
                        for name, (im, v) in sorted(r.scores.items())
                    },
                    "leaderboard_collection": str(r.collection) if r.collection else None,
                }
                for r in self.runs
            ],
            "warnings": self.warnings,
        }

    def source_documents(self) -> list[Document]:
        """The qrels and run documents read from files, stored with the evaluation
        (``ingest.write_result(..., inputs=...)``)."""
        docs = [self.qrels.source] if self.qrels.source is not None else []
        return docs + [r.run.source for r in self.runs if r.run.source is not None]

    def to_graph(self) -> Graph:
        return self.document().graph

    def document(self) -> Document:
        """The evaluation as a document of kind ``evaluation`` (see docs/comparisons.md):
        the activity that computed the scores is the document's subject."""
        key = self.key
        computation = Computation(
            label="reported measures evaluated (reprokg evaluate)",
            key=key,
            used=[self.qrels.subject, *(mint("runfile", r.run.sha256) for r in self.runs)],
            software=software_versions(),
        )
        activity = computation.activity
        g = new_graph()
        g.add((self.qrels.subject, RK.sha256, Literal(self.qrels.sha256)))
        for r in self.runs:
            run = r.subject
            g.add((run, RDF.type, RK.Run))
            runfile = mint("runfile", r.run.sha256)
            g.add((run, RK.runFile, runfile))
            g.add((runfile, RK.sha256, Literal(r.run.sha256)))
            add_reported_scores(g, run, r.run, self.qrels, r.scores, activity)
        for w in self.warnings:
            g.add((activity, RDFS.comment, Literal(w)))
        return result_document(
            kind=KIND,
            subject=activity,
            graph=g,
            computation=computation,
            source=json.dumps(self.to_json(), sort_keys=True).encode(),
            source_key=f"evaluation:{key}",
            source_name=f"evaluation-{key}.json",
            producer=PRODUCER,
        )


def _tag(inp: RunInput) -> str | None:
    if inp.graph is None or inp.subject is None:
        return None
    tag = inp.graph.value(inp.subject, RK.runTag)
    return str(tag) if tag is not None else None


def evaluate_runs(qrels: QrelsInput, runs: list[RunInput]) -> Evaluation:
    """Each run's reported measures on ``qrels``; a run without a header (so without
    reported measures) is refused: there is nothing to put on a leaderboard."""
    if not runs:
        raise UsageError("give at least one run")
    out = Evaluation(qrels, [])
    for i, inp in enumerate(runs, 1):
        label = _tag(inp) or (inp.source.source_name if inp.source else f"run {i}")
        if not inp.has_header:
            raise UsageError(
                f"{label}: no ir_metadata header, so no reported measures to evaluate "
                "(annotate it with `reprokg annotate`)"
            )
        scores, notes = evaluate_reported(inp, qrels.qrels, label)
        out.warnings.extend(notes)
        if not scores:
            out.warnings.append(f"{label}: its header reports no measure ir-measures knows")
        out.runs.append(RunScores(inp, scores, score_collection(inp, qrels)))
    return out
