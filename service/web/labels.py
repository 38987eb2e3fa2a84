"""What a person reads in place of an IRI: the labels of the IRIs a page shows.

Every view hands its rows to :func:`~reprokg.service.web.render.page`, which looks up the
IRIs they hold here, once per page, and the ``short`` filter shows the label with the IRI
kept as the link and its title. Labels come from the store (``rdfs:label``,
``skos:prefLabel``, ``schema:name``, ``schema:headline``; a test collection's name for its
ir_datasets id and its shared node; a data set's name), then from the package's ontology,
then from what a node *is* when it has no name (a finding, a measure value, a run by its
tag, a metric, a document by its file, a review by its paper, a part of a run header by
its part and run). A DOI or ORCID nobody named reads as ``doi:…`` / ``ORCID …``, never
as a URL.

Runs share tags (three ``bm25+rm3`` runs in the demo): labels that two IRIs of one page
share get their source file's name, so the rows can be told apart.
"""

from __future__ import annotations

from collections.abc import Iterable

from rdflib import Literal, URIRef

from reprokg.ontology import labels as vocabulary
from reprokg.service.web.view_queries import view_query
from reprokg.store.base import SelectResult, Store

#: at most this many IRIs are looked up for one page
MAX_LABELLED = 500
DOI = "https://doi.org/"
ORCID = "https://orcid.org/"
IR_DATASETS = "https://ir-datasets.com/"


def _clip(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def identifier_label(iri: str) -> str | None:
    """A DOI, ORCID or ir_datasets IRI written as people write the identifier."""
    if iri.startswith(DOI):
        return "doi:" + iri[len(DOI) :]
    if iri.startswith(ORCID):
        return "ORCID " + iri[len(ORCID) :]
    if iri.startswith(IR_DATASETS):
        return iri[len(IR_DATASETS) :]
    return None


def _collection_node(ir_datasets_id: str) -> str:
    from reprokg.loaders.qrels import collection_iri

    return str(collection_iri(ir_datasets_id))


def labels(store: Store, iris: Iterable[str], base: str) -> dict[str, str]:
    """A display label for each IRI of ``iris`` that has one (at most MAX_LABELLED)."""
    chosen = sorted({i for i in iris if i.startswith(("http://", "https://"))})[:MAX_LABELLED]
    out: dict[str, str] = {}
    if not chosen:
        return out
    # an ir_datasets id names a collection by the shared node minted from it
    minted = {_collection_node(t): t for t in chosen if t.startswith(IR_DATASETS)}
    res = store.query(view_query("labels").bind({"s": [*chosen, *minted]}))
    assert isinstance(res, SelectResult)
    for row in res.dicts():
        s, lab = row.get("s"), row.get("l")
        if not isinstance(s, URIRef) or not isinstance(lab, Literal):
            continue
        for key in {str(s), minted.get(str(s), str(s))}:
            # a label without a language or in English wins over another language's
            if key not in out or lab.language in (None, "en"):
                out[key] = str(lab)
    for t in chosen:
        if t not in out and (known := vocabulary.label(t)):
            out[t] = known
    files = _describe(store, [t for t in chosen if t not in out], out)
    _parts(chosen, out, base)
    for t in chosen:
        if t not in out and (ident := identifier_label(t)):
            out[t] = ident
    _tell_apart(out, files)
    return out


def _describe(store: Store, rest: list[str], out: dict[str, str]) -> dict[str, str]:
    """Name what has no label by what it is; the source file of each run and document."""
    files: dict[str, str] = {}
    if not rest:
        return files
    res = store.query(view_query("describe").bind({"s": rest}))
    assert isinstance(res, SelectResult)
    for row in res.dicts():
        s = str(row["s"])
        if "file" in row:
            files.setdefault(s, str(row["file"]))
        if s in out:
            continue
        if "attribute" in row:
            attr = str(row["attribute"])
            name = vocabulary.label(attr) or attr.rsplit("#", 1)[-1]
            evidence = f": {_clip(str(row['evidence']))}" if "evidence" in row else ""
            out[s] = f"finding {name}{evidence}"
        elif "measure" in row:
            parts = [str(row["measure"])]
            parts += [str(row["effectiveness"])] if "effectiveness" in row else []
            value = f" = {float(row['value']):.4g}" if "value" in row else ""
            out[s] = " ".join(parts) + value
        elif "tag" in row:
            out[s] = f"run {row['tag']}"
        elif "metric" in row:
            data = f" on {row['dataSet']}" if "dataSet" in row else ""
            out[s] = f"{row['metric']}{data}"
        elif "kind" in row and "file" in row:
            out[s] = f"{row['kind']} document {row['file']}"
        elif "paper" in row:
            out[s] = f"review of {_clip(str(row.get('reviewed') or row['paper']), 70)}"
        elif "proportion" in row:
            method = f"{row['method']}, " if "method" in row else ""
            out[s] = f"{method}{float(row['proportion']):.0%} of the features discarded"
        elif "lines" in row:
            topics = f", {row['topics']} topics" if "topics" in row else ""
            out[s] = f"run lines ({row['lines']} lines{topics})"
    return files


def _parts(chosen: list[str], out: dict[str, str], base: str) -> None:
    """A part of a run header (``…/run/KEY/goal``) reads as its part and the run."""
    for t in chosen:
        if t in out or not t.startswith(base):
            continue
        parent, _, part = t.rpartition("/")
        if parent in out and parent.startswith(base + "run/"):
            out[t] = f"{part.replace('-', ' ')} of {out[parent]}"


def _tell_apart(out: dict[str, str], files: dict[str, str]) -> None:
    """Labels two IRIs share get each one's source file (when the files differ)."""
    by_label: dict[str, list[str]] = {}
    for iri, label in out.items():
        by_label.setdefault(label, []).append(iri)
    for label, iris in by_label.items():
        if len(iris) > 1 and len({files.get(i) for i in iris}) == len(iris):
            for i in iris:
                if files.get(i):
                    out[i] = f"{label} · {files[i]}"
