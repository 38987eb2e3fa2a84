"""The ir_metadata schema (v0.1) as data: every field, its RDF predicate and class, and the
accepted spellings of its keys.

The loader walks it to build the graph, the export walks it back to YAML, and annotate
writes headers in its canonical spelling: one table, three readers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rdflib import URIRef

from reprokg.core.namespaces import RK, SCHEMA

#: Accepted spellings -> canonical key (the spelling repro_eval and the real runs use).
ALIASES: dict[str, str] = {
    "schema version": "schema-version",
    "schema_version": "schema-version",
    "schemaversion": "schema-version",
    "run version": "run-version",
    "run_version": "run-version",
    "research_goal": "research goal",
    "research-goal": "research goal",
    "reported_measures": "reported measures",
    "reported-measures": "reported measures",
    "significance_test": "significance test",
    "significance tests": "significance test",
    "correction_method": "correction method",
    "test_collection": "test collection",
    "training_data": "training data",
    "retrieval_toolkit": "retrieval toolkit",
    "retrieval toolkits": "retrieval toolkit",
    "operating_system": "operating system",
    "operation_mode": "operation mode",
    "number_of_cores": "number of cores",
    "score_ties": "score ties",
}


# --------------------------------------------------------------------------- the schema


@dataclass(frozen=True)
class F:
    """One field of the schema: how its YAML value becomes RDF and back.

    ``kind`` is one of str, int, bool, num, uri, strlist, map, maplist, or a special
    (libraries, toolkits, publication, doi, repository, stages, actor, person, params).
    """

    kind: str
    pred: URIRef | None = None
    cls: URIRef | None = None
    spec: dict[str, F] | None = None
    node: str = ""  # suffix of the minted IRI of a nested node


RESOURCE = {
    "name": F("str", SCHEMA.name),
    "source": F("uri", RK.dataSource),
    "qrels": F("uri", RK.qrels),
    "topics": F("uri", RK.topics),
    "ir_datasets": F("str", RK.irDatasetsId),
}
CPU = {
    "model": F("str", RK.model),
    "architecture": F("str", RK.architecture),
    "operation mode": F("str", RK.operationMode),
    "number of cores": F("int", RK.numberOfCores),
}
GPU = {
    "model": F("str", RK.model),
    "architecture": F("str", RK.architecture),
    "memory": F("str", RK.memory),
    "number of cores": F("int", RK.numberOfCores),
}
PUBLICATION = {
    # ``title`` is reprokg's extension of ir_metadata 0.1 (whose publication has no title):
    # the paper's title as the header's writer states it, the passport's and pages' name
    "title": F("str", SCHEMA.name),
    "dblp": F("uri", RK.dblp),
    "doi": F("doi", RK.doiAsWritten),
    "arxiv": F("uri", RK.arxiv),
    "url": F("uri", RK.publicationUrl),
    "abstract": F("str", RK.abstract),
}
STAGE = {
    "name": F("str", SCHEMA.name),
    "method": F("str", RK.stageMethod),
    "reranks": F("str", RK.reranks),
    "interpolates": F("strlist", RK.interpolates),
    "ensembles": F("strlist", RK.ensembles),
    "weight": F("num", RK.interpolationWeight),
}
ACTOR = {
    "name": F("person", SCHEMA.name),
    "orcid": F("person", RK.orcidAsWritten),
    "team": F("str", RK.team),
    "fields": F("strlist", RK.researchField),
    "mail": F("str", RK.mail),
    "role": F("str", RK.actorRole),
    "degree": F("str", RK.degree),
    "github": F("uri", RK.github),
    "twitter": F("uri", RK.twitter),
}
SCHEMA_SPEC: dict[str, F] = {
    "schema-version": F("str", RK.schemaVersion),
    "run-version": F("str", RK.runVersion),
    "tag": F("str", RK.runTag),
    "platform": F(
        "map",
        RK.platform,
        RK.Platform,
        node="platform",
        spec={
            "hardware": F(
                "map",
                RK.hardware,
                RK.Hardware,
                node="hardware",
                spec={
                    "cpu": F("map", RK.cpu, RK.Cpu, node="cpu", spec=CPU),
                    "gpu": F("map", RK.gpu, RK.Gpu, node="gpu", spec=GPU),
                    "ram": F("str", RK.ram),
                },
            ),
            "operating system": F(
                "map",
                RK.operatingSystem,
                RK.OperatingSystem,
                node="os",
                spec={
                    "kernel": F("str", RK.kernel),
                    "distribution": F("str", RK.distribution),
                    "platform": F("str", RK.osPlatform),
                },
            ),
            "software": F(
                "map",
                RK.software,
                RK.SoftwareStack,
                node="software",
                spec={
                    "libraries": F("libraries", RK.softwarePackage, RK.SoftwarePackage, node="lib"),
                    "retrieval toolkit": F(
                        "toolkits", RK.retrievalToolkit, RK.RetrievalToolkit, node="toolkit"
                    ),
                },
            ),
        },
    ),
    "research goal": F(
        "map",
        RK.researchGoal,
        RK.ResearchGoal,
        node="goal",
        spec={
            "venue": F(
                "map",
                RK.venue,
                RK.Venue,
                node="venue",
                spec={
                    "name": F("str", SCHEMA.name),
                    "year": F("int", RK.venueYear),
                },
            ),
            "publication": F(
                "publication",
                RK.publication,
                SCHEMA.ScholarlyArticle,
                node="publication",
                spec=PUBLICATION,
            ),
            "evaluation": F(
                "map",
                RK.evaluation,
                RK.Evaluation,
                node="evaluation",
                spec={
                    "reported measures": F("strlist", RK.reportedMeasure),
                    "baseline": F("strlist", RK.baselineRunTag),
                    "significance test": F(
                        "maplist",
                        RK.significanceTest,
                        RK.SignificanceTest,
                        node="test",
                        spec={
                            "name": F("str", SCHEMA.name),
                            "correction method": F("str", RK.correctionMethod),
                        },
                    ),
                },
            ),
        },
    ),
    "implementation": F(
        "map",
        RK.implementation,
        RK.Implementation,
        node="implementation",
        spec={
            "executable": F(
                "map",
                RK.executable,
                RK.Executable,
                node="executable",
                spec={
                    "cmd": F("str", RK.command),
                },
            ),
            "source": F(
                "map",
                RK.source,
                RK.ImplementationSource,
                node="source",
                spec={
                    "lang": F("strlist", RK.programmingLanguage),
                    "repository": F("repository", RK.repositoryUrl),
                    "commit": F("str", RK.commit),
                },
            ),
        },
    ),
    "method": F(
        "map",
        RK.method,
        RK.Method,
        node="method",
        spec={
            "automatic": F("bool", RK.automatic),
            "score ties": F("str", RK.scoreTies),
            "indexing": F(
                "map",
                RK.indexing,
                RK.Indexing,
                node="indexing",
                spec={
                    "tokenizer": F("str", RK.tokenizer),
                    "stemmer": F("str", RK.stemmer),
                    "stopwords": F("str", RK.stopwords),
                },
            ),
            "retrieval": F(
                "stages", RK.retrievalStage, RK.RetrievalStage, node="stage", spec=STAGE
            ),
            # not in ir_metadata 0.1: the hyper-parameters of a method that has no retrieval
            # stages (an MLflow or OpenML run's parameters), name -> value
            "parameters": F("params", RK.methodParameter, RK.ParameterSetting, node="param"),
        },
    ),
    "actor": F("actor", RK.actor, RK.Actor, node="actor", spec=ACTOR),
    "data": F(
        "map",
        RK.data,
        RK.Data,
        node="data",
        spec={
            "test collection": F(
                "map", RK.testCollection, RK.TestCollection, node="test-collection", spec=RESOURCE
            ),
            "training data": F(
                "maplist", RK.trainingData, RK.TrainingData, node="training", spec=RESOURCE
            ),
            "other": F("maplist", RK.otherData, RK.OtherData, node="other", spec=RESOURCE),
        },
    ),
}


def canonical(key: str) -> str:
    try:
        return _canonical(key)
    except TypeError:  # unhashable (never a YAML key): as before, uncached
        return _canonical.__wrapped__(key)


@lru_cache(maxsize=4096)
def _canonical(key: str) -> str:
    k = str(key).strip()
    return ALIASES.get(k.lower(), k)
