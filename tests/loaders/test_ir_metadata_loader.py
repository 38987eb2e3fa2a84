"""The ir_metadata run-header loader on the real files and on variants derived from them.

Expected values come from the files themselves, read here with plain string handling
(or from the schema docs), never from the loader under test.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import PROV, RDF, XSD

from reprokg.core.errors import LoadError
from reprokg.core.namespaces import RK, RKX, SCHEMA
from reprokg.loaders import ir_metadata as im

ORCID = URIRef("https://orcid.org/0000-0002-0661-7189")
DOI = URIRef("https://doi.org/10.1007/978-3-030-15712-8_26")


@pytest.fixture(scope="module")
def annotated(shared_data: Path) -> bytes:
    return (shared_data / "ir_metadata" / "annotated_run_example.txt").read_bytes()


@pytest.fixture(scope="module")
def website(shared_data: Path) -> bytes:
    return (shared_data / "ir_metadata" / "website_checklist_examples_assembled.yaml").read_bytes()


def one(data: bytes, name: str = "run.txt"):
    docs = im.load(data, name)
    assert len(docs) == 1
    return docs[0]


def node(doc, *path):
    """Follow predicates from the run."""
    n = doc.subject
    for p in path:
        n = doc.graph.value(n, p)
        assert n is not None, p
    return n


def strip_run_iri(doc) -> set[tuple[str, ...]]:
    """The document's triples with its run IRI (a hash of the whole file) replaced."""
    base = str(doc.subject)
    return {tuple(str(t).replace(base, "RUN") for t in triple) for triple in doc.graph}


def header_lines(data: bytes) -> list[str]:
    return data.decode().split("\n")


def test_sniff_real_files(annotated: bytes, website: bytes, shared_data: Path) -> None:
    assert im.sniff("annotated_run_example.txt", annotated[:4096].decode())
    assert im.sniff("website.yaml", website[:4096].decode())
    plain_run = (shared_data / "trec" / "toy" / "run_a").read_text()
    assert not im.sniff("run_a", plain_run[:4096])
    assert not im.sniff("metadata.yaml", "title: A report\nauthors:\n- name: X\n")
    # the schema docs show the markers inside a code block: not a run file
    overview = shared_data / "ir_metadata" / "schema_docs" / "metadata" / "overview.md"
    assert "ir_metadata.start" in overview.read_text()
    assert not im.sniff("overview.md", overview.read_text()[:4096])


def test_annotated_run_fields(annotated: bytes) -> None:
    doc = one(annotated, "annotated_run_example.txt")
    g = doc.graph
    assert doc.kind == "run"
    assert (doc.subject, RDF.type, RK.Run) in g
    assert g.value(doc.subject, RK.runTag) == Literal("bm25+rm3")
    assert g.value(doc.subject, RK.schemaVersion) == Literal("0.1")
    cpu = node(doc, RK.platform, RK.hardware, RK.cpu)
    assert g.value(cpu, RK.numberOfCores) == Literal(16)
    assert g.value(cpu, RK.numberOfCores).datatype == XSD.integer
    assert g.value(cpu, RK.model) == Literal("Intel(R) Xeon(R) Gold 6144 CPU @ 3.50GHz")
    gpu = node(doc, RK.platform, RK.hardware, RK.gpu)
    assert g.value(gpu, RK.memory) == Literal("48 GB")
    # publication: DOI IRI lower-cased, as written kept
    pub = node(doc, RK.researchGoal, RK.publication)
    assert pub == DOI
    assert g.value(pub, RK.doiAsWritten) == Literal("https://doi.org/10.1007/978-3-030-15712-8_26")
    assert (pub, RDF.type, SCHEMA.ScholarlyArticle) in g
    ev = node(doc, RK.researchGoal, RK.evaluation)
    assert set(g.objects(ev, RK.reportedMeasure)) == {Literal("map"), Literal("P_10")}
    venue = node(doc, RK.researchGoal, RK.venue)
    assert g.value(venue, RK.venueYear) == Literal(2019)
    src = node(doc, RK.implementation, RK.source)
    assert g.value(src, RK.commit) == Literal("9548cd6")
    assert g.value(src, RK.codeRepository) == URIRef("https://github.com/castorini/anserini")
    # actor: ORCID IRI, role
    actor = node(doc, RK.actor)
    assert g.value(actor, RK.person) == ORCID
    assert (ORCID, RDF.type, SCHEMA.Person) in g
    assert g.value(ORCID, SCHEMA.name) == Literal("Jimmy Lin")
    assert g.value(actor, RK.actorRole) == Literal("reproducer")
    assert (actor, PROV.hadRole, RK.ReproducerRole) in g
    assert len(set(g.objects(actor, RK.researchField))) == 5
    # data
    tc = node(doc, RK.data, RK.testCollection)
    assert (tc, RDF.type, RK.TestCollection) in g
    assert g.value(tc, RK.irDatasetsId) == Literal("https://ir-datasets.com/nyt")
    data = node(doc, RK.data)
    assert len(set(g.objects(data, RK.trainingData))) == 1
    assert len(set(g.objects(data, RK.otherData))) == 2


def test_libraries_split_name_version(annotated: bytes) -> None:
    doc = one(annotated)
    g = doc.graph
    sw = node(doc, RK.platform, RK.software)
    libs = {
        str(g.value(n, SCHEMA.name)): (
            str(g.value(n, RK.packageVersion)),
            str(g.value(n, RK.packageLanguage)),
        )
        for n in g.objects(sw, RK.softwarePackage)
    }
    text = annotated.decode()
    n_lib_lines = sum(1 for ln in text.split("\n") if ln.startswith("#       - "))
    assert len(libs) == n_lib_lines == 11
    assert libs["numpy"] == ("1.15.4", "python")
    assert libs["lucene"] == ("7.6", "java")
    [tk] = list(g.objects(sw, RK.retrievalToolkit))
    assert (g.value(tk, SCHEMA.name), g.value(tk, RK.packageVersion)) == (
        Literal("anserini"),
        Literal("0.3.0"),
    )


def test_retrieval_stages_and_parameters(annotated: bytes) -> None:
    doc = one(annotated)
    g = doc.graph
    method = node(doc, RK.method)
    assert g.value(method, RK.automatic) == Literal(True)
    stages = {str(g.value(s, SCHEMA.name)): s for s in g.objects(method, RK.retrievalStage)}
    method_text = annotated.decode().split("# method:")[1].split("# actor:")[0]
    assert len(stages) == method_text.count("#   - name: ") == 7
    params = {
        str(g.value(p, RK.parameterName)): g.value(p, RK.parameterValue)
        for p in g.objects(stages["bm25"], RK.parameterSetting)
    }
    assert params == {
        "b": Literal("0.4", datatype=XSD.decimal),
        "k1": Literal("0.9", datatype=XSD.decimal),
    }
    ax = {
        str(g.value(p, RK.parameterName)): g.value(p, RK.parameterValue)
        for p in g.objects(stages["axiomatic reranker"], RK.parameterSetting)
    }
    assert ax == {"rerankCutoff": Literal(20), "axiom.deterministic": Literal(True)}
    assert g.value(stages["axiomatic reranker"], RK.reranks) == Literal("bm25")
    assert (stages["axiomatic reranker"], RK.inputStage, stages["bm25"]) in g
    interp = stages["interpolation"]
    assert g.value(interp, RK.interpolationWeight) == Literal("0.6", datatype=XSD.decimal)
    assert {g.value(s, SCHEMA.name) for s in g.objects(interp, RK.inputStage)} == {
        Literal("axiomatic reranker"),
        Literal("ensemble"),
    }
    assert g.value(stages["bm25"], RK.position) == Literal(0)


def test_line_numbers_count_in_the_run_file(annotated: bytes) -> None:
    doc = one(annotated)
    lines = header_lines(annotated)

    def line_of(prefix: str) -> int:
        return next(i + 1 for i, ln in enumerate(lines) if ln.startswith(prefix))

    assert doc.lines["actor.orcid"] == line_of("#   orcid:")
    assert doc.lines["research goal.publication.doi"] == line_of("#     doi:")
    assert doc.lines["implementation.source.commit"] == line_of("#     commit:")
    assert doc.lines["tag"] == line_of("# tag:")
    assert doc.lines["method.retrieval.b"] == line_of("#     b:")


def test_run_lines_summary_and_attachment(annotated: bytes) -> None:
    doc = one(annotated)
    g = doc.graph
    text = annotated.decode()
    run_lines = text.split("# ir_metadata.end\n", 1)[1].splitlines()
    topics = {ln.split()[0] for ln in run_lines}
    rf = g.value(doc.subject, RK.runFile)
    assert g.value(rf, RK.numberOfRunLines) == Literal(len(run_lines)) == Literal(30)
    assert g.value(rf, RK.numberOfTopics) == Literal(len(topics)) == Literal(3)
    assert g.value(rf, RK.minDocumentsPerTopic) == Literal(10)
    assert g.value(rf, RK.maxDocumentsPerTopic) == Literal(10)
    sha = hashlib.sha256(("\n".join(run_lines) + "\n").encode()).hexdigest()
    assert g.value(rf, RK.sha256) == Literal(sha)
    assert doc.attachments[sha].decode().splitlines() == run_lines
    # the run lines are not triples
    assert len(g) < 400
    # header tag bm25+rm3 vs run-line tag ipm-repro: a Warning naming both
    warnings = [m for m in doc.messages if m.severity == "Warning" and m.path == "tag"]
    assert len(warnings) == 1 and "ipm-repro" in warnings[0].message


def test_same_file_twice_gives_identical_triples(annotated: bytes) -> None:
    a, b = one(annotated), one(annotated)
    assert set(a.graph) == set(b.graph)
    assert a.subject == b.subject and a.source_key == b.source_key


def test_website_yaml_same_metadata_as_annotated(annotated: bytes, website: bytes) -> None:
    run, yml = one(annotated), one(website, "website.yaml")
    assert yml.attachments == {} and yml.graph.value(yml.subject, RK.runFile) is None

    def strip_iris(doc):
        base = str(doc.subject)
        return {
            tuple(str(t).replace(base, "RUN") for t in triple)
            for triple in doc.graph
            if RK.runFile not in triple and "/runfile/" not in str(triple[0])
        }

    assert strip_iris(run) == strip_iris(yml)


def _bare_variant(annotated: bytes) -> bytes:
    """The bare-marker form other producers write: no '#', 'schema version' spelt with a
    space (0.2) and an extra 'resources' section."""
    out = []
    for ln in annotated.decode().split("\n"):
        if ln.startswith("# "):
            ln = ln[2:]
        if ln.startswith("schema-version:"):
            ln = "schema version: 0.2"
        out.append(ln)
    text = "\n".join(out)
    text = text.replace(
        "ir_metadata.end",
        "resources:\n  memory peak: 12 GB\n  runtime: 3h\nir_metadata.end",
    )
    return text.encode()


def test_bare_marker_form(annotated: bytes) -> None:
    data = _bare_variant(annotated)
    assert im.sniff("run.txt", data[:4096].decode())
    doc = one(data)
    g = doc.graph
    assert g.value(doc.subject, RK.schemaVersion) == Literal("0.2")
    assert g.value(node(doc, RK.actor), RK.person) == ORCID
    assert g.value(g.value(doc.subject, RK.runFile), RK.numberOfRunLines) == Literal(30)
    infos = [m for m in doc.messages if m.severity == "Info"]
    assert [m.path for m in infos] == ["resources"]
    assert infos[0].line == data.decode().split("\n").index("resources:") + 1
    ext = g.value(doc.subject, RKX.resources)
    assert ext is not None and "memory peak" in str(ext)


def _with_header(yaml_text: str, run: str = "1 Q0 d1 1 1.0 t\n") -> bytes:
    body = "".join(f"# {ln}\n" for ln in yaml_text.strip("\n").split("\n"))
    return f"# ir_metadata.start\n{body}# ir_metadata.end\n{run}".encode()


def test_typing_traps_keep_text() -> None:
    data = _with_header(
        "tag: t\n"
        "run-version: 0123\n"
        "platform:\n"
        "  hardware:\n"
        "    cpu:\n"
        "      number of cores: 16\n"
        "      operation mode: no\n"
        "  software:\n"
        "    libraries:\n"
        "    - python==3.10\n"
        "    - lucene==7.10\n"
        "implementation:\n"
        "  source:\n"
        "    commit: 1234567\n"
        "method:\n"
        "  automatic: yes\n"
        "actor:\n"
        "  team: yes\n"
        "  name: A\n"
        "research goal:\n"
        "  venue:\n"
        "    year: '2020'\n"
    )
    doc = one(data)
    g = doc.graph
    assert g.value(doc.subject, RK.runVersion) == Literal("0123")
    src = node(doc, RK.implementation, RK.source)
    assert g.value(src, RK.commit) == Literal("1234567")
    cpu = node(doc, RK.platform, RK.hardware, RK.cpu)
    assert g.value(cpu, RK.operationMode) == Literal("no")
    assert g.value(cpu, RK.numberOfCores) == Literal(16)
    sw = node(doc, RK.platform, RK.software)
    versions = {str(g.value(n, RK.packageVersion)) for n in g.objects(sw, RK.softwarePackage)}
    assert versions == {"3.10", "7.10"}
    assert {g.value(n, RK.packageLanguage) for n in g.objects(sw, RK.softwarePackage)} == {None}
    assert g.value(node(doc, RK.method), RK.automatic) == Literal(True)
    assert g.value(node(doc, RK.actor), RK.team) == Literal("yes")
    # the paper's own example quotes the year; the schema says !!int
    assert g.value(node(doc, RK.researchGoal, RK.venue), RK.venueYear) == Literal(2020)


def test_commit_with_exponent_is_text() -> None:
    doc = one(_with_header("tag: t\nimplementation:\n  source:\n    commit: 12e4567\n"))
    src = node(doc, RK.implementation, RK.source)
    assert doc.graph.value(src, RK.commit) == Literal("12e4567")


def test_alternative_spellings_normalise() -> None:
    a = one(
        _with_header(
            "tag: t\n"
            "research goal:\n  evaluation:\n    reported_measures:\n    - map\n"
            "method:\n  retrieval:\n  - name: bm25\n    params:\n      b: 0.4\n      k1: 0.9\n"
            "data:\n  test_collection:\n    name: X\n  training_data:\n  - name: Y\n"
            "implementation:\n  repository: https://github.com/a/b\n  commit: abcdef1\n"
        )
    )
    b = one(
        _with_header(
            "tag: t\n"
            "research goal:\n  evaluation:\n    reported measures:\n    - map\n"
            "method:\n  retrieval:\n  - name: bm25\n    b: 0.4\n    k1: 0.9\n"
            "data:\n  test collection:\n    name: X\n  training data:\n  - name: Y\n"
            "implementation:\n  source:\n    repository: https://github.com/a/b\n"
            "    commit: abcdef1\n"
        )
    )
    assert strip_run_iri(a) == strip_run_iri(b)
    assert not [m for m in a.messages if m.severity == "Info"]


def test_gpu_model_and_architecture_both_kept() -> None:
    doc = one(
        _with_header(
            "tag: t\nplatform:\n  hardware:\n    gpu:\n"
            "      model: RTX\n      architecture: Ampere\n"
        )
    )
    gpu = node(doc, RK.platform, RK.hardware, RK.gpu)
    assert doc.graph.value(gpu, RK.model) == Literal("RTX")
    assert doc.graph.value(gpu, RK.architecture) == Literal("Ampere")


def test_unknown_keys_are_info_with_line() -> None:
    data = _with_header("tag: t\nactor:\n  name: A\n  shoe size: 44\n  contacts:\n  - x\n")
    doc = one(data)
    infos = sorted((m.path, m.line) for m in doc.messages if m.severity == "Info")
    assert infos == [("actor.contacts", 6), ("actor.shoe size", 5)]
    actor = node(doc, RK.actor)
    assert doc.graph.value(actor, RKX["shoe%20size"]) == Literal("44")
    assert doc.graph.value(actor, RKX.contacts) == Literal('["x"]', datatype=RDF.JSON)


def test_malformed_orcid_gets_minted_iri() -> None:
    doc = one(_with_header("tag: t\nactor:\n  name: A\n  orcid: 0000-0002-0661-7188\n"))
    person = doc.graph.value(node(doc, RK.actor), RK.person)
    assert not str(person).startswith("https://orcid.org/")
    assert doc.graph.value(person, RK.orcidAsWritten) == Literal("0000-0002-0661-7188")


def test_people_without_orcid_are_not_merged_by_name() -> None:
    a = one(_with_header("tag: a\nactor:\n  name: Jimmy Lin\n"))
    b = one(_with_header("tag: b\nactor:\n  name: Jimmy Lin\n"))
    pa = a.graph.value(node(a, RK.actor), RK.person)
    pb = b.graph.value(node(b, RK.actor), RK.person)
    assert pa != pb


# --------------------------------------------------------------------------- bad input


def test_malformed_yaml_reports_run_file_line_and_column(annotated: bytes) -> None:
    lines = header_lines(annotated)
    i = next(k for k, ln in enumerate(lines) if ln.startswith("#   team:"))
    lines[i] = "#   team: [h2oloo"
    with pytest.raises(LoadError) as e:
        im.load("\n".join(lines).encode(), "bad.txt")
    err = e.value
    assert err.source == "bad.txt"
    # the error is reported at or just after the broken line, counted in the run file
    assert i + 1 <= err.line <= i + 2
    assert err.column is not None and err.column >= 1
    assert "bad.txt:" in str(err)


def test_malformed_yaml_column_counts_the_comment_prefix() -> None:
    data = _with_header("tag: t\nactor: {name: A\n")
    with pytest.raises(LoadError) as e:
        im.load(data, "x.txt")
    # "# actor: {name: A" is line 3 of the file; YAML stops at the end of the flow mapping
    assert e.value.line in (3, 4)


def test_tab_indentation_column() -> None:
    data = b"# ir_metadata.start\n# tag: t\n# actor:\n# \tname: A\n# ir_metadata.end\n"
    with pytest.raises(LoadError) as e:
        im.load(data, "tab.txt")
    assert e.value.line == 4
    assert e.value.column == 3  # the tab is the 3rd character of '# \tname: A'


def test_missing_end_marker(annotated: bytes) -> None:
    data = annotated.replace(b"# ir_metadata.end\n", b"")
    with pytest.raises(LoadError) as e:
        im.load(data, "noend.txt")
    assert e.value.line == 1
    assert "ir_metadata.end" in str(e.value)


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ("1 Q0 doc1 1 10", "run line"),
        ("1 Q0 doc1 one 10 t", "run line.rank"),
        ("1 Q0 doc1 1 ten t", "run line.score"),
    ],
)
def test_bad_run_lines_name_file_and_line(annotated: bytes, bad: str, field: str) -> None:
    lines = header_lines(annotated)
    i = len(lines) - 5
    lines[i] = bad
    with pytest.raises(LoadError) as e:
        im.load("\n".join(lines).encode(), "badrun.txt")
    assert (e.value.source, e.value.line, e.value.field) == ("badrun.txt", i + 1, field)


def test_comment_lines_skipped_but_hash_in_docno_is_data(shared_data: Path) -> None:
    results = (shared_data / "trec" / "trec_eval_fixtures" / "results.comment.test").read_text()
    run_lines = results.splitlines()
    with_comments = [
        "# produced by a test",
        *run_lines[:50],
        "   # indented comment",
        *run_lines[50:],
    ]
    data = _with_header("tag: comment.test\n", "\n".join(with_comments) + "\n")
    doc = one(data, "c.txt")
    g = doc.graph
    rf = g.value(doc.subject, RK.runFile)
    topics = {ln.split()[0] for ln in run_lines}
    assert g.value(rf, RK.numberOfRunLines) == Literal(len(run_lines)) == Literal(30100)
    assert g.value(rf, RK.numberOfTopics) == Literal(len(topics)) == Literal(301)
    assert not [m for m in doc.messages if m.severity == "Warning"]
    att = next(iter(doc.attachments.values())).decode()
    assert "#13_3087841662" in att and "produced by a test" not in att


def test_header_only_yaml_has_no_run_file(website: bytes) -> None:
    doc = one(website, "meta.yaml")
    assert doc.graph.value(doc.subject, RK.runFile) is None
    assert doc.source_key == "run:bm25+rm3:meta.yaml"


@pytest.mark.parametrize(
    ("yaml_text", "line", "field"),
    [
        ("tag: t\nplatform: a laptop\n", 3, "platform"),
        ("tag: t\nactor:\n- name: A\n- name: B\n", 3, "actor"),
        ("tag: t\nplatform:\n  hardware:\n    ram: [32, GB]\n", 5, "platform.hardware.ram"),
    ],
)
def test_wrong_shape_names_field_and_line(yaml_text: str, line: int, field: str) -> None:
    with pytest.raises(LoadError) as e:
        im.load(_with_header(yaml_text), "shape.txt")
    assert (e.value.source, e.value.line, e.value.field) == ("shape.txt", line, field)
    assert "expected" in e.value.message


def test_both_spellings_of_one_key_is_an_error() -> None:
    data = _with_header(
        "tag: t\nresearch goal:\n  evaluation:\n    reported measures: [map]\n"
        "    reported_measures: [ndcg]\n"
    )
    with pytest.raises(LoadError) as e:
        im.load(data, "dup.txt")
    assert e.value.field == "research goal.evaluation.reported measures"
    assert e.value.line == 6  # the second spelling


def test_header_that_is_not_a_mapping() -> None:
    with pytest.raises(LoadError) as e:
        im.load(_with_header("- a\n- b\n"), "list.txt")
    assert e.value.line == 2


def test_plain_run_without_header_is_described_with_a_warning(shared_data: Path) -> None:
    data = (shared_data / "trec" / "toy" / "run_a").read_bytes()
    doc = one(data, "run_a")
    g = doc.graph
    assert g.value(doc.subject, RK.runTag) is None
    assert g.value(g.value(doc.subject, RK.runFile), RK.runFileTag) == Literal("ipm-repro")
    assert [m.path for m in doc.messages if m.severity == "Warning"] == ["ir_metadata"]


def test_registry_dispatches_real_files_to_this_loader(shared_data: Path) -> None:
    from reprokg.loaders.files import load_path

    folder = shared_data / "ir_metadata"
    for name in ("annotated_run_example.txt", "website_checklist_examples_assembled.yaml"):
        [doc] = load_path(folder / name)
        assert doc.kind == "run" and doc.loader == "reprokg.loaders.ir_metadata"
