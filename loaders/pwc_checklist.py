"""ML Code Completeness Checklist (Papers with Code, NeurIPS 2019): the CSV -> one document
per repository.

``code_checklist-neurips2019.csv`` of paperswithcode/releasing-research-code has one row
per official NeurIPS 2019 repository of a random 25% sample: ``url``, GitHub ``stars``,
``python`` (1 when the code is mainly Python) and the five checklist items ``training``,
``evaluation``, ``pretrained_model``, ``results``, ``dependencies`` as 1/0. The repository
is a ``schema:SoftwareSourceCode`` node whose IRI is its URL as written; the row becomes a
``rk:CodeChecklistAssessment`` of it in ``rk:PapersWithCodeChecklist2019`` with the stars
and flags as typed literals. A cell that is not 0/1 (or stars that are not a count) is
kept as written under ``rkx:`` and reported as a Warning.
"""

from __future__ import annotations

import re

from rdflib import RDF, Literal, URIRef

from reprokg.core.document import Document, Message
from reprokg.core.errors import LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint
from reprokg.core.namespaces import RK, RKX, SCHEMA, new_graph, rkx_term
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.source import csv_record, csv_rows

INFO = LoaderInfo(kind="pwc-checklist", name="reprokg.loaders.pwc_checklist", version="1")

#: CSV column -> property of the assessment, in the CSV's order
ITEMS: dict[str, URIRef] = {
    "training": RK.checklistTrainingCode,
    "evaluation": RK.checklistEvaluationCode,
    "pretrained_model": RK.checklistPretrainedModels,
    "results": RK.checklistResults,
    "dependencies": RK.checklistDependencies,
}
REQUIRED = ("url", "stars", "python", *ITEMS)
_URL_RE = re.compile(r"^https?://[^\s<>\"{}|\\^`]+$")


def sniff(name: str, head: str) -> bool:
    first = [c.strip() for c in head.split("\n", 1)[0].split(",")]
    return all(c in first for c in REQUIRED)


def load(data: bytes, name: str) -> list[Document]:
    header, rows = csv_rows(
        data,
        name,
        required=REQUIRED,
        expected="url, stars, python and the five checklist items (code_checklist-neurips2019.csv)",
        strip=True,
    )
    docs: list[Document] = []
    seen: dict[str, int] = {}
    for line, rec in rows:
        url = rec["url"]
        if not _URL_RE.match(url):
            raise LoadError(
                f"url {url!r} is not an http(s) URL; every row names its repository",
                source=name,
                line=line,
                field="url",
            )
        if url in seen:
            raise LoadError(
                f"duplicate repository {url!r} (first at line {seen[url]})",
                source=name,
                line=line,
                field="url",
            )
        seen[url] = line
        docs.append(_record(rec, header, name, line))
    return docs


def _record(rec: dict[str, str], header: list[str], name: str, line: int) -> Document:
    g = new_graph()
    msgs: list[Message] = []
    repo = URIRef(rec["url"])
    node = mint("checklist-assessment", stable_key("pwc-checklist-2019", rec["url"]))
    g.add((node, RDF.type, RK.CodeChecklistAssessment))
    g.add((node, RK.inSurvey, RK.PapersWithCodeChecklist2019))
    g.add((node, RK.assessedRepository, repo))
    g.add((repo, RDF.type, SCHEMA.SoftwareSourceCode))

    def keep(col: str, expected: str) -> None:
        g.add((node, RKX[col], Literal(rec[col])))
        msgs.append(
            Message(
                "Warning",
                col,
                f"{col} is {rec[col]!r}; expected {expected}; kept as written",
                str(node),
                rec[col],
                line,
            )
        )

    stars = rec["stars"]
    if stars.isdigit():
        g.add((node, RK.githubStars, Literal(int(stars))))
    elif stars:
        keep("stars", "a count of stars")
    flags = {"python": RK.pythonRepository, **ITEMS}
    for col, prop in flags.items():
        v = rec[col]
        if v in ("0", "1"):
            g.add((node, prop, Literal(v == "1")))
        elif v:
            keep(col, "1 or 0")
    for col in header:
        if col not in REQUIRED and rec[col]:
            g.add((node, rkx_term(col), Literal(rec[col])))
            msgs.append(Message.kept_unknown("column", col, node, rec[col], line))
    source = csv_record(header, rec)
    return INFO.document(
        g,
        source_name=name,
        source_bytes=source,
        source_key=f"pwc-checklist-2019:{rec['url']}",
        messages=msgs,
        lines={c: line for c in header},
        subject=node,
    )
