"""Graphics Replicability Stamp list (GRSI): ``grsi_paper_data.json`` -> one document per stamp.

The list Isenberg collected for "The State of Reproducibility Stamps for Visualization
Research Papers" (BELIV 2024; tobiasisenberg/Visualization-Reproducibility,
``publication_data/grsi_paper_data.json``): a JSON array with one object per stamp granted
by replicabilitystamp.org — ``title``, ``doi``, ``journal``, ``authors`` (one text),
``repo_url``, ``repo_archive_url`` (Software Heritage: a permalink's SWHID is read as the
code it names, ``rk:softwareHeritageCode``; docs/evidence.md), ``grsi_url`` (the stamp's entry),
``image_url``, ``is_vis`` and, for some, ``type`` (why it counts as a visualization paper).

Each stamp is a ``rk:ReplicabilityStampGrant`` in ``rk:GraphicsReplicabilityStampList``
whose ``rk:stampedPaper`` is the paper's DOI IRI (``core.identifiers.doi_iri``: lower-cased
``https://doi.org/``, the DOI as written kept in ``rk:doiAsWritten``), so the stamp joins
every other source describing that DOI (the code-replicability reviews of seed 001). A
record without a usable DOI (``not_assigned_yet``, the list's placeholder DOIs such as
``10.vis2025/1440``) gets a paper IRI minted from its stamp entry and a Warning: it cannot
join other sources. Two records giving the same DOI are both kept (one paper node) and
reported. Authors stay one text (``rk:authorNamesAsWritten``): names alone never make
person nodes. Unknown keys are kept under ``rkx:`` (Info).
"""

from __future__ import annotations

import json
import re
from typing import Any

from rdflib import RDF, Literal, URIRef

from reprokg.core.document import Document, Message
from reprokg.core.errors import LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint
from reprokg.core.namespaces import RK, RKX, SCHEMA, new_graph, rkx_term
from reprokg.core.swhid import RESOLVER
from reprokg.loaders.evidence import read_doi, read_swhid
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.limits import check_records
from reprokg.loaders.reading.source import decode_text, parse_json

INFO = LoaderInfo(kind="grsi", name="reprokg.loaders.grsi", version="1")

REQUIRED = ("title", "doi", "grsi_url")
KNOWN: tuple[str, ...] = (
    *REQUIRED,
    "journal",
    "authors",
    "repo_url",
    "repo_archive_url",
    "image_url",
)
KNOWN += ("is_vis", "type")
_URL_RE = re.compile(r"^https?://[^\s<>\"{}|\\^`]+$")


def sniff(name: str, head: str) -> bool:
    return head.lstrip().startswith("[") and '"grsi_url"' in head


def _records(text: str, name: str) -> list[tuple[Any, int]]:
    """The array's elements with the line each starts on."""
    # nesting and escapes checked first, as every JSON source; the node limit per record
    parsed = parse_json(text, name, per_record=True)
    if not isinstance(parsed, list):
        raise LoadError("expected a JSON array of stamped papers", source=name, line=1)
    check_records(parsed, name, "record")
    decoder = json.JSONDecoder()
    out: list[tuple[Any, int]] = []
    pos = text.index("[") + 1
    line, counted = 1, 0
    for _ in parsed:
        while text[pos] in " \t\r\n,":
            pos += 1
        value, end = decoder.raw_decode(text, pos)
        line += text.count("\n", counted, pos)
        counted = pos
        out.append((value, line))
        pos = end
    return out


def load(data: bytes, name: str) -> list[Document]:
    text = decode_text(data, name)
    docs: list[Document] = []
    first_with_doi: dict[str, tuple[int, str]] = {}
    seen_entries: dict[str, int] = {}
    for rec, line in _records(text, name):
        if not isinstance(rec, dict):
            raise LoadError(
                f"expected a JSON object per stamped paper, got {type(rec).__name__}",
                source=name,
                line=line,
            )
        for key in REQUIRED:
            if not isinstance(rec.get(key), str) or not rec[key].strip():
                raise LoadError(
                    f"{key!r} is missing or not text; every stamp names its paper's title, "
                    "DOI and its entry on replicabilitystamp.org",
                    source=name,
                    line=line,
                    field=key,
                )
        entry = rec["grsi_url"].strip()
        if entry in seen_entries:
            raise LoadError(
                f"duplicate stamp entry {entry!r} (first at line {seen_entries[entry]})",
                source=name,
                line=line,
                field="grsi_url",
            )
        seen_entries[entry] = line
        doc, paper_iri = _record(rec, name, line)
        paper = str(paper_iri)
        if paper.startswith("https://doi.org/"):
            if paper in first_with_doi:
                other_line, other_title = first_with_doi[paper]
                doc.messages.append(
                    Message(
                        "Warning",
                        "doi",
                        f"doi {rec['doi']!r} is also given for {other_title!r} (line "
                        f"{other_line}): two papers claim one DOI; both are kept, each with its "
                        "own evidence",
                        paper,
                        rec["doi"],
                        line,
                    )
                )
            else:
                first_with_doi[paper] = (line, rec["title"])
        docs.append(doc)
    return docs


def _record(rec: dict[str, Any], name: str, line: int) -> tuple[Document, URIRef]:
    """The stamp's document and its paper node."""
    g = new_graph()
    msgs: list[Message] = []
    entry = rec["grsi_url"].strip()
    node = mint("replicability-stamp", stable_key("grsi", entry))
    repaired = read_doi(rec["doi"], field="doi", record=f"stamp {entry}", line=line,
                        messages=msgs)  # fmt: skip
    if repaired is not None:
        paper = repaired
    else:
        paper = mint("publication", stable_key("grsi-paper", entry))
    g.add((paper, RK.doiAsWritten, Literal(str(rec["doi"]))))
    g.add((node, RDF.type, RK.ReplicabilityStampGrant))
    g.add((node, RK.inSurvey, RK.GraphicsReplicabilityStampList))
    g.add((node, RK.stampedPaper, paper))
    g.add((paper, RDF.type, SCHEMA.ScholarlyArticle))
    g.add((paper, SCHEMA.name, Literal(rec["title"].strip())))
    if _URL_RE.match(entry):
        g.add((node, RK.stampPage, URIRef(entry)))
    else:
        g.add((node, RKX["grsi_url"], Literal(entry)))
        msgs.append(Message("Warning", "grsi_url", "grsi_url is not a URL", str(node), entry, line))
    for key, prop in (("repo_url", RK.stampedCode), ("repo_archive_url", RK.stampedCodeArchive)):
        v = rec.get(key)
        if isinstance(v, str) and _URL_RE.match(v.strip()):
            g.add((node, prop, URIRef(v.strip())))
            if key == "repo_url":
                g.add((URIRef(v.strip()), RDF.type, SCHEMA.SoftwareSourceCode))
            elif v.strip().startswith(RESOLVER + "swh:"):  # a permalink (not a browse URL)
                read_swhid(g, node, v, field=key, record=f"stamp {entry}", line=line,
                           messages=msgs)  # fmt: skip
        elif v not in (None, ""):
            g.add((node, RKX[key], Literal(str(v))))
            msgs.append(
                Message("Warning", key, f"{key} is not a URL; kept as written", str(node), v, line)
            )
    if isinstance(rec.get("journal"), str) and rec["journal"].strip():
        g.add((paper, RK.journalName, Literal(rec["journal"].strip())))
    if isinstance(rec.get("authors"), str) and rec["authors"].strip():
        g.add((paper, RK.authorNamesAsWritten, Literal(rec["authors"].strip())))
    if isinstance(rec.get("is_vis"), bool):
        g.add((node, RK.visualizationPaper, Literal(rec["is_vis"])))
    elif "is_vis" in rec:
        g.add((node, RKX["is_vis"], Literal(str(rec["is_vis"]))))
        msgs.append(
            Message("Warning", "is_vis", "is_vis is not true/false", str(node), rec["is_vis"], line)
        )
    if isinstance(rec.get("type"), str) and rec["type"].strip():
        g.add((node, RK.visualizationVenueRule, Literal(rec["type"].strip())))
    for key, value in rec.items():
        if key not in KNOWN:
            g.add((node, rkx_term(key), Literal(str(value))))
            msgs.append(Message.kept_unknown("key", key, node))
    source = json.dumps(rec, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return INFO.document(
        g,
        source_name=name,
        source_bytes=source,
        source_key=f"grsi:{entry}",
        messages=msgs,
        lines={k: line for k in rec},
        subject=node,
    ), paper
