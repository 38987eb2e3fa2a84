"""Gundersen & Kjensmo (AAAI 2018) documentation survey: ``evaluations.csv`` -> one document per paper.

Each row says, for one IJCAI/AAAI paper, which method, data and experiment factors
it documents (``1``/``0``; empty = not applicable, e.g. for theoretical papers).
Every variable becomes an ``xsd:boolean`` property of a ``rk:DocumentationAssessment``;
empty cells give no triple, anything else than 0/1/empty is kept as written and
reported. Papers have no DOI in this data: the paper node is minted from its link.
"""

# ruff: noqa: E501
from __future__ import annotations

import re

from rdflib import RDF, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import PROV
from rdflib.term import Node

from reprokg.core.document import Document, Message
from reprokg.core.errors import LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import mint
from reprokg.core.namespaces import RK, RKX, SCHEMA, new_graph, rkx_term
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.source import csv_record, csv_rows

INFO = LoaderInfo(kind="gk2018", name="reprokg.loaders.gundersen_kjensmo", version="1")

#: CSV column -> (property local name, group super-property, label, definition)
VARIABLES: dict[str, tuple[str, str, str, str]] = {
    "problem_description": (
        "documentsProblem",
        "methodVariable",
        "documents problem",
        "The paper explicitly describes the problem it solves.",
    ),
    "goal/objective": (
        "documentsObjective",
        "methodVariable",
        "documents objective",
        "The paper states the goal or objective of the research.",
    ),
    "research_method": (
        "documentsResearchMethod",
        "methodVariable",
        "documents research method",
        "The paper explicitly names its research method.",
    ),
    "research_question": (
        "documentsResearchQuestion",
        "methodVariable",
        "documents research question",
        "The paper states its research question.",
    ),
    "pseudocode": (
        "documentsPseudocode",
        "methodVariable",
        "documents pseudo-code",
        "The paper gives the method as pseudo-code.",
    ),
    "hypothesis": (
        "documentsHypothesis",
        "experimentVariable",
        "documents hypothesis",
        "The paper states the hypothesis the experiment tests.",
    ),
    "prediction": (
        "documentsPrediction",
        "experimentVariable",
        "documents prediction",
        "The paper states a prediction the experiment checks.",
    ),
    "open_source_code": (
        "documentsMethodSourceCode",
        "experimentVariable",
        "shares method source code",
        "The source code of the method is shared openly.",
    ),
    "open_experiment_code": (
        "documentsExperimentCode",
        "experimentVariable",
        "shares experiment code",
        "The code of the experiment is shared openly.",
    ),
    "hardware_specification": (
        "documentsHardware",
        "experimentVariable",
        "documents hardware",
        "The hardware used for the experiment is specified.",
    ),
    "software_dependencies": (
        "documentsSoftwareDependencies",
        "experimentVariable",
        "documents software dependencies",
        "The software dependencies of the experiment are specified.",
    ),
    "experiment_setup": (
        "documentsExperimentSetup",
        "experimentVariable",
        "documents experiment setup",
        "The experiment setup (parameters, configuration) is described.",
    ),
    "evaluation_criteria": (
        "documentsEvaluationCriteria",
        "experimentVariable",
        "documents evaluation criteria",
        "The evaluation criteria (metrics) are stated.",
    ),
    "train": (
        "sharesTrainingData",
        "dataVariable",
        "shares training data",
        "The training data set is shared.",
    ),
    "validation": (
        "sharesValidationData",
        "dataVariable",
        "shares validation data",
        "The validation data set is shared.",
    ),
    "test": ("sharesTestData", "dataVariable", "shares test data", "The test data set is shared."),
    "results": (
        "sharesResults",
        "dataVariable",
        "shares results",
        "The results (outputs) of the experiment are shared.",
    ),
    "contribution": (
        "documentsContribution",
        "methodVariable",
        "documents contribution",
        "The paper explicitly states its contribution.",
    ),
    "third_party_citation": (
        "citesThirdPartyData",
        "dataVariable",
        "cites third-party data",
        "Third-party data sets used are cited.",
    ),
}
REQUIRED = ("index", "title", "research_type", "conference", *VARIABLES)
_SPLIT_AUTHORS = re.compile(r",\s*|\s+and\s+")


def sniff(name: str, head: str) -> bool:
    first = head.split("\n", 1)[0]
    return "research_type" in first and "problem_description" in first and "conference" in first


def _venue(conf: str) -> tuple[str, int | None]:
    """``'IJCAI 16'`` -> (``'IJCAI 2016'``, 2016)."""
    m = re.fullmatch(r"\s*([A-Za-z]+)\s*'?(\d{2}|\d{4})\s*", conf)
    if not m:
        return conf, None
    year = int(m.group(2))
    year = year + 2000 if year < 100 else year
    return f"{m.group(1)} {year}", year


def load(data: bytes, name: str) -> list[Document]:
    header, rows = csv_rows(data, name, required=REQUIRED, expected="the evaluations.csv header")
    docs = []
    seen: dict[str, int] = {}
    for line, rec in rows:
        doc = _record(rec, header, name, line)
        if doc.source_key in seen:
            raise LoadError(
                f"duplicate paper {doc.source_key!r} (first at line {seen[doc.source_key]})",
                source=name,
                line=line,
                field="link",
            )
        seen[doc.source_key] = line
        docs.append(doc)
    return docs


def _record(rec: dict[str, str], header: list[str], name: str, line: int) -> Document:
    g = new_graph()
    msgs: list[Message] = []
    link = rec.get("link", "").strip()
    title = rec["title"].strip()
    key = link or f"{rec['conference'].strip()}|{title}"
    source_key = f"gundersen-kjensmo-2018:{key}"
    paper = mint("publication", stable_key("url", link) if link else stable_key("title", key))
    review = mint("documentation-assessment", stable_key("gk2018", key))
    g.add((review, RDF.type, RK.DocumentationAssessment))
    g.add((review, RK.inSurvey, RK.GundersenKjensmo2018))
    g.add((review, RK.reviewedPaper, paper))
    g.add((paper, RDF.type, SCHEMA.ScholarlyArticle))
    if title:
        g.add((paper, SCHEMA.name, Literal(title)))
    if link:
        g.add((paper, RK.articleURL, URIRef(link)))
    conf = rec["conference"].strip()
    venue, year = _venue(conf)
    g.add((paper, RK.venueAsWritten, Literal(conf)))
    g.add((paper, RK.conferenceName, Literal(venue)))
    if year is not None:
        g.add((paper, RK.publicationYear, Literal(year)))
    else:
        msgs.append(
            Message(
                "Warning",
                "conference",
                f"cannot read a year from conference {conf!r}; expected e.g. 'IJCAI 16'",
                str(paper),
                conf,
                line,
            )
        )
    rt = rec["research_type"].strip()
    concept = {"E": RK.ResearchExperimental, "T": RK.ResearchTheoretical}.get(rt)
    if concept is not None:
        g.add((review, RK.researchType, concept))
    else:
        g.add((review, RKX["research_type"], Literal(rt)))
        msgs.append(
            Message(
                "Warning",
                "research_type",
                f"research_type {rt!r} is not E or T; kept as written",
                str(review),
                rt,
                line,
            )
        )
    for col, coded in (("result_outcome", RK.resultOutcome), ("affiliation", RK.affiliationCode)):
        v = rec.get(col, "").strip()
        if v.isdigit():
            g.add((review, coded, Literal(int(v))))
        elif v:
            g.add((review, RKX[col], Literal(v)))
            msgs.append(
                Message(
                    "Warning",
                    col,
                    f"{col} {v!r} is not an integer; kept as written",
                    str(review),
                    v,
                    line,
                )
            )
    for col, (prop, *_rest) in VARIABLES.items():
        v = rec[col].strip()
        if v in ("0", "1"):
            g.add((review, RK[prop], Literal(v == "1")))
        elif v:
            g.add((review, RKX[col.replace("/", "_")], Literal(v)))
            msgs.append(
                Message(
                    "Warning",
                    col,
                    f"{col} is {v!r}; expected 1, 0 or empty (not applicable); kept as written",
                    str(review),
                    v,
                    line,
                )
            )
    authors = [a.strip() for a in _SPLIT_AUTHORS.split(rec.get("authors", "")) if a.strip()]
    people: list[Node] = []
    for i, a in enumerate(authors, 1):
        person = mint("person", stable_key("gk2018-author", key, i, a))
        g.add((person, RDF.type, SCHEMA.Person))
        g.add((person, RDF.type, PROV.Agent))
        g.add((person, SCHEMA.name, Literal(a)))
        g.add((paper, SCHEMA.author, person))
        people.append(person)
    if people:
        lst = mint("authorlist", stable_key("gk2018", key))
        Collection(g, lst, people)
        g.add((paper, RK.authorList, lst))
    comment = rec.get("comments", "").strip()
    if comment:
        g.add((review, RK.miscComment, Literal(comment)))
    for col in header:
        if (
            col not in REQUIRED
            and col not in ("result_outcome", "affiliation", "authors", "link", "comments")
            and rec[col].strip()
        ):
            g.add((review, rkx_term(col), Literal(rec[col].strip())))
            msgs.append(Message.kept_unknown("column", col, review, rec[col], line))
    source = csv_record(header, rec)
    return INFO.document(
        g,
        source_name=name,
        source_bytes=source,
        source_key=source_key,
        messages=msgs,
        lines={c: line for c in header},
        subject=review,
    )
