"""A comparison of original and reproduced runs from their inputs: PRIMAD, kind and measures.

:func:`compare_inputs` ties the pieces together for the CLI and the API: it pairs the runs
by their metadata, derives the PRIMAD signature and the study kind from the headers and
computes the measures (:func:`reprokg.measures.comparison.compare`). Its
:class:`RunComparison` is a computed result (:class:`reprokg.core.computed.ComputedResult`):
``to_json()`` is ``reprokg compare --format json``, ``document()`` the ``comparison``
document (``docs/comparisons.md``), built by :mod:`reprokg.measures.comparison_document`
only when asked for, so that ``reprokg compare`` without ``--save`` never imports rdflib.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from reprokg.core.errors import ReprokgError
from reprokg.loaders.ir_datasets import display_name
from reprokg.measures.comparison import Comparison, ComparisonJSON, Side, compare
from reprokg.measures.inputs import QrelsInput, RunInput, judging_qrels
from reprokg.measures.registry import CROSS, SAME, Options
from reprokg.measures.reported import Scores, evaluate_reported

if TYPE_CHECKING:
    from rdflib import Graph, URIRef

    from reprokg.core.document import Document
    from reprokg.core.forked import Later
    from reprokg.measures.primad import PrimadComparison

ROLES = ("orig_base", "orig_adv", "rep_base", "rep_adv")


class ComparisonError(ReprokgError):
    """The inputs do not make a comparison (e.g. cross-collection without its qrels)."""


@dataclass
class RunComparison:
    """Original vs reproduced runs compared: the measures, the inputs, PRIMAD, the runs'
    reported scores evaluated."""

    KIND: ClassVar[str] = "comparison"

    comparison: Comparison
    inputs: dict[str, RunInput]
    qrels: QrelsInput
    qrels_rpl: QrelsInput | None
    primad: PrimadComparison | None = None
    #: per role: reported measure name as written -> (ir-measures name, mean score)
    reported: dict[str, Scores] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """What the comparison is called: its runs and collection
        (``bm25+rm3 vs bm25+rm3-rerun on nyt``), the name a page, the CLI and the stored
        document's ``rdfs:label`` give it (never its PRIMAD signature)."""
        sides = []
        for side in ("orig", "rep"):
            names = [run_name(inp) for role, inp in self.inputs.items() if role.startswith(side)]
            sides.append((", ".join(names), ", ".join(self.collections(side))))
        return comparison_title(*sides)

    def collections(self, side: str) -> list[str]:
        """The collection(s) one side's runs (``orig`` or ``rep``) are judged on, by name:
        the ir_datasets ids their headers name, else their qrels' collection (the one
        naming the title and the summary both read)."""
        qrels = self.qrels if side == "orig" else self.qrels_rpl or self.qrels
        inputs = [inp for role, inp in self.inputs.items() if role.startswith(side)]
        named = {c for inp in inputs for c in header_collections(inp)}
        where = sorted(named) if named else [qrels.collection] if qrels.collection else []
        return [display_name(c) for c in where]

    def to_json(self) -> ComparisonJSON:
        return self.comparison.to_json()

    def source_documents(self) -> list[Document]:
        """The qrels and run documents read from files, stored with the comparison
        (``ingest.write_result(..., inputs=...)``)."""
        docs = [q.source for q in (self.qrels, self.qrels_rpl) if q is not None and q.source]
        return docs + [inp.source for inp in self.inputs.values() if inp.source is not None]

    def to_graph(self) -> Graph:
        return self.document().graph

    def document(self) -> Document:
        from reprokg.measures.comparison_document import comparison_document  # rdflib

        return comparison_document(self)


def comparison_title(original: tuple[str, str], reproduced: tuple[str, str]) -> str:
    """``A vs B on C`` from (runs, collection) per side; ``A on C vs B on D`` when the
    sides name different collections (a cross-collection study)."""
    (orig, c1), (rep, c2) = original, reproduced
    if c1 == c2:
        return f"{orig} vs {rep}" + (f" on {c1}" if c1 else "")
    return f"{orig}{' on ' + c1 if c1 else ''} vs {rep}{' on ' + c2 if c2 else ''}"


def run_name(inp: RunInput) -> str:
    """A run by its header's tag, else its run lines' tag, else its file name."""
    if inp.has_header and (described := inp.described()) is not None:
        from reprokg.measures.primad import run_tag

        if tag := run_tag(*described):
            return tag
    return inp.run.tag or inp.name.rsplit("/", 1)[-1] or "run"


def header_collections(inp: RunInput) -> list[str]:
    """The ir_datasets ids a run's header names (``data.test collection.ir_datasets``)."""
    described = inp.described() if inp.has_header else None
    if described is None:
        return []
    from reprokg.core.namespaces import RK

    g, run = described
    return sorted(
        str(ident)
        for data in g.objects(run, RK.data)
        for tc in g.objects(data, RK.testCollection)
        for ident in g.objects(tc, RK.irDatasetsId)
        if str(ident).strip()
    )


def _header(inp: RunInput) -> tuple[Graph, URIRef]:
    """The graph and run node of a run read with its ir_metadata header (the run loader
    builds both for every header it reads)."""
    described = inp.described()
    if described is None:
        raise ValueError(f"{inp.name}: a run with a header but no run graph")
    return described


def compare_inputs(
    qrels: QrelsInput,
    orig_base: RunInput,
    rep_base: RunInput,
    orig_adv: RunInput | None = None,
    rep_adv: RunInput | None = None,
    qrels_rpl: QrelsInput | None = None,
    options: Options | None = None,
    advanced: Later[Side] | None = None,
) -> RunComparison:
    """PRIMAD + measures for original vs reproduced runs (``advanced``: the advanced side
    computed elsewhere, see :func:`~reprokg.measures.comparison.compare`)."""
    warnings: list[str] = []
    inputs = {
        k: v
        for k, v in zip(ROLES, (orig_base, orig_adv, rep_base, rep_adv), strict=True)
        if v is not None
    }
    # baseline/advanced pairing by metadata: an advanced run names its baseline's tag
    for side, base, adv in (("original", orig_base, orig_adv), ("reproduced", rep_base, rep_adv)):
        if adv is None or not (adv.has_header or adv.document is not None):
            continue  # a run file without a header names no baseline
        adv_described, base_described = adv.described(), base.described()
        if adv_described is None or base_described is None:
            continue
        from reprokg.measures import primad  # rdflib: only for runs with metadata

        named = primad.baseline_tags(*adv_described)
        tag = primad.run_tag(*base_described)
        if named and tag not in named:
            warnings.append(
                f"{side} advanced run names baseline(s) {', '.join(named)} but the {side} "
                f"baseline's tag is {tag!r}"
            )
    # PRIMAD: which components changed between the original and the reproduced baseline
    pc = None
    if orig_base.has_header and rep_base.has_header:
        from reprokg.measures import primad

        pc = primad.compare_runs(*_header(orig_base), *_header(rep_base))
        warnings.extend(pc.warnings)
        if orig_adv and rep_adv and orig_adv.has_header and rep_adv.has_header:
            pa = primad.compare_runs(*_header(orig_adv), *_header(rep_adv))
            if pa.signature != pc.signature:
                warnings.append(
                    f"PRIMAD: the advanced runs differ as {pa.signature}, the baselines as "
                    f"{pc.signature}; the baselines' signature is reported"
                )
    else:
        warnings.append("PRIMAD: a baseline run has no ir_metadata header; no signature")
    # study kind: from the headers' test collections when they say, else from the qrels
    header_kind = pc.collection_kind if pc is not None else None
    rpl_differs = qrels_rpl is not None and qrels_rpl.sha256 != qrels.sha256
    if header_kind == CROSS and not rpl_differs:
        raise ComparisonError(
            "the headers name different test collections (cross-collection study): give the "
            "reproduced runs' qrels with --qrels-rpl"
        )
    if header_kind == SAME and rpl_differs:
        warnings.append(
            "the headers name the same test collection; --qrels-rpl is ignored and every "
            "run is judged by --qrels"
        )
    kind = header_kind or (CROSS if rpl_differs else SAME)
    comparison = compare(
        qrels.qrels,
        orig_base.run,
        rep_base.run,
        orig_adv.run if orig_adv else None,
        rep_adv.run if rep_adv else None,
        qrels_rpl=qrels_rpl.qrels if kind == CROSS and qrels_rpl else None,
        options=options,
        primad=pc.signature if pc else None,
        kind=kind,
        advanced=advanced,
    )
    comparison.warnings[:0] = warnings
    # the runs' reported measures, evaluated, so *find baselines* ranks real scores
    reported: dict[str, Scores] = {}
    for role, inp in inputs.items():
        judged = judging_qrels(role, kind, qrels, qrels_rpl)
        scores, notes = evaluate_reported(inp, judged.qrels, role.replace("_", " "))
        comparison.warnings.extend(notes)
        if scores:
            reported[role] = scores
    return RunComparison(
        comparison, inputs, qrels, qrels_rpl if kind == CROSS else None, pc, reported
    )
