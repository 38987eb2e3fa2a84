"""replicability.graphics loader on the real data: both JSON formats, every paper.

Expected values are read from the JSON files independently in each test (plain
``json``), or written from the review form's option labels; never from the loader.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rdflib import RDF, XSD, Graph, Literal, URIRef
from rdflib.collection import Collection

from reprokg.core.errors import LoadError
from reprokg.core.namespaces import RK, RKX, SCHEMA
from reprokg.loaders import replicability_graphics as rg

pytestmark = pytest.mark.slow  # the real survey files, loaded per module

DOI_PREFIX = "https://doi.org/"


@pytest.fixture(scope="module")
def consolidated_path(shared_data: Path) -> Path:
    return shared_data / "replicability_graphics" / "consolidatedData.json"


@pytest.fixture(scope="module")
def consolidated_json(consolidated_path: Path) -> list[dict]:
    return json.loads(consolidated_path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def consolidated_docs(consolidated_path: Path):
    return rg.load(consolidated_path.read_bytes(), "consolidatedData.json")


@pytest.fixture(scope="module")
def per_paper_files(shared_data: Path) -> list[Path]:
    return sorted((shared_data / "replicability_graphics" / "per_paper").glob("*/*.json"))


@pytest.fixture(scope="module")
def per_paper_docs(per_paper_files: list[Path], shared_data: Path):
    out = []
    for f in per_paper_files:
        out += rg.load(f.read_bytes(), str(f.relative_to(shared_data)))
    return out


def _merged(docs) -> Graph:
    g = Graph()
    for d in docs:
        for t in d.graph:
            g.add(t)
    return g


def _doc_for(docs, doi: str):
    iri = URIRef(DOI_PREFIX + doi.lower())
    found = [d for d in docs if (d.subject, RK.reviewedPaper, iri) in d.graph]
    assert len(found) == 1, f"{doi}: {len(found)} documents"
    return found[0]


# --------------------------------------------------------------------------- counts


def test_consolidated_one_document_per_paper(consolidated_docs, consolidated_json):
    assert len(consolidated_json) == 374
    assert len(consolidated_docs) == 374
    assert {d.kind for d in consolidated_docs} == {"survey"}
    assert len({d.source_key for d in consolidated_docs}) == 374
    assert len({d.sha256 for d in consolidated_docs}) == 374


def test_per_paper_one_document_per_file(per_paper_docs, per_paper_files):
    assert len(per_paper_files) == 454
    assert len(per_paper_docs) == 454
    assert len({d.source_key for d in per_paper_docs}) == 454


def test_per_paper_one_review_per_variant(per_paper_docs, per_paper_files):
    variants = sum(len(json.loads(f.read_text(encoding="utf-8"))) for f in per_paper_files)
    g = _merged(per_paper_docs)
    assert len(set(g.subjects(RDF.type, RK.CodeReplicabilityReview))) == variants
    masters = set(g.subjects(RK.isMasterVariant, Literal(True)))
    assert len(masters) == 454


def test_dois_are_lowercased_doi_iris_with_as_written(consolidated_docs, consolidated_json):
    g = _merged(consolidated_docs)
    papers = set(g.subjects(RDF.type, SCHEMA.ScholarlyArticle))
    expected = {URIRef(DOI_PREFIX + r["DOI"].strip().lower()) for r in consolidated_json}
    assert papers == expected
    for r in consolidated_json:
        iri = URIRef(DOI_PREFIX + r["DOI"].strip().lower())
        assert g.value(iri, RK.doiAsWritten) == Literal(r["DOI"])


def test_authors_are_ordered_persons_never_merged(consolidated_docs, consolidated_json):
    g = _merged(consolidated_docs)
    n_entries = sum(len(r["Paper authors"]) for r in consolidated_json)
    authors = set(g.objects(None, SCHEMA.author))
    assert len(authors) == n_entries  # one person per byline entry: no merging by name
    assert all((a, RDF.type, SCHEMA.Person) in g for a in authors)
    rec = consolidated_json[0]
    paper = URIRef(DOI_PREFIX + rec["DOI"].lower())
    people = list(Collection(g, g.value(paper, RK.authorList)))
    names = [str(g.value(p, SCHEMA.name)) for p in people]
    assert names == [f"{a['given']} {a['family']}" for a in rec["Paper authors"]]


def test_reviewers(consolidated_docs, consolidated_json, per_paper_docs, per_paper_files):
    g = _merged(consolidated_docs)
    assert len(set(g.objects(None, RK.reviewer))) == len({r["Reviewer"] for r in consolidated_json})
    emails, without = set(), 0
    for f in per_paper_files:
        for v in json.loads(f.read_text(encoding="utf-8")):
            name = v["Reviewer name"]
            if "<" in name and "@" in name:
                emails.add(name.split("<", 1)[1].strip(" >").lower())
            else:
                without += 1  # "Nicolas Bonneel", "<david.coeurjolly liris.cnrs.fr>"
    assert without == 3
    gp = _merged(per_paper_docs)
    assert {str(e) for e in gp.objects(None, SCHEMA.email)} == emails
    assert len(set(gp.objects(None, RK.reviewer))) == len(emails) + without
    warned = [m for d in per_paper_docs for m in d.messages if m.path == "Reviewer name"]
    assert len(warned) == without


# --------------------------------------------------------------------------- join key


def test_one_node_per_doi_across_both_formats(consolidated_docs, shared_data):
    f = shared_data / "replicability_graphics/per_paper/siggraph-2018/10.1145-3197517.3201374.json"
    doi = json.loads(f.read_text(encoding="utf-8"))[0]["DOI"]
    site = rg.load(f.read_bytes(), "per_paper/siggraph-2018/" + f.name)
    g = _merged([_doc_for(consolidated_docs, doi), *site])
    papers = set(g.subjects(RDF.type, SCHEMA.ScholarlyArticle))
    assert papers == {URIRef(DOI_PREFIX + doi.lower())}
    reviews = set(g.subjects(RK.reviewedPaper, URIRef(DOI_PREFIX + doi.lower())))
    assert len(reviews) == 2
    assert {g.value(r, RK.inSurvey) for r in reviews} == {
        RK.ReplicabilityGraphics2020,
        RK.ReplicabilityGraphicsSite,
    }


def test_every_consolidated_doi_is_also_a_site_paper(consolidated_docs, per_paper_docs):
    a = set(_merged(consolidated_docs).subjects(RDF.type, SCHEMA.ScholarlyArticle))
    b = set(_merged(per_paper_docs).subjects(RDF.type, SCHEMA.ScholarlyArticle))
    assert len(a) == 374 and len(b) == 454
    assert a <= b  # the site continues the 2020 data: the same DOI IRIs


def test_run_header_citing_the_doi_meets_the_survey_node(consolidated_docs, consolidated_json):
    from reprokg.loaders import ir_metadata

    doi = consolidated_json[0]["DOI"]
    header = (
        "research goal:\n  publication:\n    doi: https://doi.org/" + doi.upper() + "\n"
        "platform:\n  hardware:\n    cpu:\n      model: x\n"
    )
    run_docs = ir_metadata.load(header.encode(), "header.yaml")
    g = _merged([*run_docs, _doc_for(consolidated_docs, doi)])
    iri = URIRef(DOI_PREFIX + doi.lower())
    assert (iri, RDF.type, SCHEMA.ScholarlyArticle) in g
    assert any(p != RK.reviewedPaper for _s, p in g.subject_predicates(iri))
    assert not [
        s for s in g.subjects(RDF.type, SCHEMA.ScholarlyArticle) if "doi.org" in s and s != iri
    ]


# --------------------------------------------------------------------------- value handling


def _review(doc) -> URIRef:
    return doc.subject


def test_scores_mixed_types(consolidated_docs, consolidated_json):
    key = "Feedbacks [could reproduce results (5=highly confident)]"
    as_int = next(r for r in consolidated_json if isinstance(r[key], int))
    as_na = next(r for r in consolidated_json if r[key] == "N/A")
    as_empty = next(r for r in consolidated_json if r[key] == "")
    d = _doc_for(consolidated_docs, as_int["DOI"])
    s = d.graph.value(_review(d), RK.resultsReplicationScore)
    assert d.graph.value(s, SCHEMA.ratingValue) == Literal(as_int[key])
    assert (s, RDF.type, RK.Score) in d.graph
    d = _doc_for(consolidated_docs, as_na["DOI"])
    s = d.graph.value(_review(d), RK.resultsReplicationScore)
    assert d.graph.value(s, SCHEMA.ratingValue) is None
    assert d.graph.value(s, RK.notApplicable) == Literal(True)
    assert d.graph.value(s, RK.scoreAsWritten) == Literal("N/A")
    d = _doc_for(consolidated_docs, as_empty["DOI"])
    assert d.graph.value(_review(d), RK.resultsReplicationScore) is None


def test_per_paper_zero_score_is_not_applicable(per_paper_docs, per_paper_files):
    key = "Replicate paper results score {0=NA, 1,2,3,4,5}"
    f = next(f for f in per_paper_files if json.loads(f.read_text())[0][key] == 0)
    doi = json.loads(f.read_text())[0]["DOI"]
    d = _doc_for(per_paper_docs, doi)
    s = d.graph.value(d.subject, RK.resultsReplicationScore)
    assert d.graph.value(s, SCHEMA.ratingValue) is None
    assert d.graph.value(s, RK.notApplicable) == Literal(True)


def test_deep_learning_strings_become_booleans(consolidated_docs, consolidated_json):
    g = _merged(consolidated_docs)
    for r in consolidated_json:
        v = g.value(URIRef(DOI_PREFIX + r["DOI"].lower()), RK.deepLearning)
        assert v == Literal(r["Deep learning"] == "True")
        assert v.datatype == XSD.boolean


def test_statistics_inputs_match_the_json(consolidated_docs, consolidated_json):
    """The facts issue 6 aggregates, counted in the graph and in the JSON independently."""
    g = _merged(consolidated_docs)
    recs = consolidated_json

    def n(s, p, o):
        return len(set(g.subjects(p, o)))

    avail = "Is the code or software publicly available ?"
    assert n(None, RK.codeShared, Literal(True)) == sum(r[avail] == "Yes" for r in recs) == 151
    test = "Did I manage to perform a complete test (deps/build)?"
    assert n(None, RK.testCompleted, Literal(True)) == sum(r[test] == "Yes" for r in recs)
    assert n(None, RK.testFailureReason, RK.FailureMissingHardware) == sum(
        r[test] == "No due to missing specific hardware" for r in recs
    )
    assert n(None, RK.hasIndustryAuthor, Literal(True)) == sum(
        "Private Companies" in r["Authors"] for r in recs
    )
    time_key = "How long did take for you to evaluate the code this paper (if any)?"
    assert n(None, RK.evaluationTimeSlots, Literal(10)) == sum(r[time_key] == 10 for r in recs)
    assert n(None, RK.acmOpenAccess, Literal(True)) == sum(r["Open access"] is True for r in recs)
    on_arxiv = "On an open archive arXiv or similar open archive"
    assert n(None, RK.onOpenArchive, Literal(True)) == sum(
        on_arxiv in r["PDF availability (beside dl.acm)"] for r in recs
    )
    for topic, concept in (("Animation", RK.TopicAnimationSimulation), ("Image", RK.TopicImages)):
        assert n(None, RK.topic, concept) == sum(r["Topic"] == topic for r in recs)
    cites = {
        URIRef(DOI_PREFIX + r["DOI"].lower()): r["Citation count (google scholar)"] for r in recs
    }
    assert {p: g.value(p, RK.googleScholarCitations).toPython() for p in cites} == cites


def test_comma_containing_option_labels(consolidated_docs, consolidated_json):
    key = "Build info / instructions"
    answer = (
        "README, LICENSE or explicit license (e.g. in the readme / headers), "
        "AUTHORS or explicitly mentioned"
    )
    rec = next(r for r in consolidated_json if r[key] == answer)
    d = _doc_for(consolidated_docs, rec["DOI"])
    assert set(d.graph.objects(d.subject, RK.codeFiles)) == {
        RK.HasReadme,
        RK.HasLicenseFile,
        RK.HasAuthorsFile,
    }
    assert d.graph.value(d.subject, RK.codeFilesAsWritten) is None
    key = "Build mechanism"
    rec = next(
        r
        for r in consolidated_json
        if r[key] == "IDE Project (VS,..), Not applicable (python, Matlab..)"
    )
    d = _doc_for(consolidated_docs, rec["DOI"])
    assert set(d.graph.objects(d.subject, RK.buildMechanism)) == {
        RK.BuildIDEProject,
        RK.BuildNotApplicable,
    }
    key = "PDF availability (beside dl.acm)"
    answer = (
        "On the author(s) website or its institution, On the author(s) repository "
        "(dropbox, github, drive, iCloud), Other (web, research gate, semantic scholar,...)"
    )
    rec = next(r for r in consolidated_json if r[key] == answer)
    d = _doc_for(consolidated_docs, rec["DOI"])
    paper = URIRef(DOI_PREFIX + rec["DOI"].lower())
    assert set(d.graph.objects(paper, RK.pdfAvailability)) == {
        RK.PdfOnAuthorWebsite,
        RK.PdfOnAuthorRepository,
        RK.PdfOther,
    }


def test_answers_outside_the_options_are_kept_and_reported(
    consolidated_docs, consolidated_json, consolidated_path
):
    rec = next(r for r in consolidated_json if r["Availability"] == "WayBack Machine")
    d = _doc_for(consolidated_docs, rec["DOI"])
    assert d.graph.value(d.subject, RK.codeHostingAsWritten) == Literal("WayBack Machine")
    msgs = [m for m in d.messages if m.path == "Availability"]
    assert [m.severity for m in msgs] == ["Warning"]
    lines = consolidated_path.read_text(encoding="utf-8").splitlines()
    assert lines[msgs[0].line - 1].strip() == '"Availability": "WayBack Machine",'


def test_cannot_answer_is_recorded(consolidated_docs, consolidated_json):
    rec = next(r for r in consolidated_json if r["Main languages"] == "Cannot answer")
    d = _doc_for(consolidated_docs, rec["DOI"])
    assert d.graph.value(d.subject, RK.mainLanguage) is None
    assert Literal("Main languages") in set(d.graph.objects(d.subject, RK.notAnswered))


def test_grsi_stamp(consolidated_docs, consolidated_json):
    g = _merged(consolidated_docs)
    stamped = set(g.subjects(RK.replicabilityStamp, Literal(True)))
    said_yes = {
        URIRef(DOI_PREFIX + r["DOI"].lower())
        for r in consolidated_json
        if r["Does the paper already have a reproducibility stamp"].startswith("Yes")
    }
    assert len(said_yes) == 5 and said_yes <= stamped
    grsi = rg.grsi_titles()
    by_title = {
        URIRef(DOI_PREFIX + r["DOI"].lower())
        for r in consolidated_json
        if rg.normalise_title(r["Title"]) in grsi
    }
    assert stamped == said_yes | by_title


def test_unknown_key_kept_under_rkx_with_info(consolidated_json):
    rec = dict(consolidated_json[0], **{"Reviewer mood": "cheerful"})
    docs = rg.load(json.dumps([rec], indent=4).encode(), "x.json")
    d = docs[0]
    assert d.graph.value(d.subject, RKX["Reviewer_mood"]) == Literal("cheerful")
    assert [m.severity for m in d.messages if m.path == "Reviewer mood"] == ["Info"]


# --------------------------------------------------------------------------- bad input


def test_malformed_json_names_line_and_column(consolidated_path):
    lines = consolidated_path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[4].rstrip().endswith('",')  # line 5: "DOI": "…",
    lines[4] = lines[4].rstrip()[:-1] + "\n"  # drop its comma
    with pytest.raises(LoadError) as exc:
        rg.load("".join(lines).encode(), "broken.json")
    err = exc.value
    assert (err.source, err.line, err.column) == ("broken.json", 6, 9)
    assert "broken.json:6:9" in str(err)


def test_not_a_list_and_not_utf8():
    with pytest.raises(LoadError) as exc:
        rg.load(b'{"Title": "x"}', "obj.json")
    assert exc.value.line == 1
    with pytest.raises(LoadError):
        rg.load(b'[{"Title": "caf\xe9"}]', "latin1.json")
    with pytest.raises(LoadError):
        rg.load(b'[{"Title": "x", "Year": 2014}]', "unknown-form.json")


def test_invalid_doi_gets_a_minted_paper_and_a_warning(consolidated_json):
    rec = dict(consolidated_json[0], DOI="not a doi")
    d = rg.load(json.dumps([rec]).encode(), "x.json")[0]
    paper = d.graph.value(d.subject, RK.reviewedPaper)
    assert not str(paper).startswith(DOI_PREFIX)
    assert d.graph.value(paper, RK.doiAsWritten) == Literal("not a doi")
    assert [m.severity for m in d.messages if m.path == "DOI"] == ["Warning"]


def test_sniff(consolidated_path, per_paper_files, shared_data):
    head = consolidated_path.read_bytes()[:4096].decode("utf-8", "replace")
    assert rg.sniff("consolidatedData.json", head)
    assert rg.sniff("x.json", per_paper_files[0].read_text(encoding="utf-8")[:4096])
    csv = shared_data / "surveys/gundersen_kjensmo_2018/data/evaluations.csv"
    assert not rg.sniff("evaluations.csv", csv.read_text(encoding="utf-8")[:4096])
    assert not rg.sniff("x.json", '[{"a": 1}]')


def test_site_empty_license_with_code_means_no_license(per_paper_docs, per_paper_files):
    """per_paper_template.json: 'precise the license (or keep the string empty if not)'."""
    expected_false = expected_true = 0
    for f in per_paper_files:
        for v in json.loads(f.read_text(encoding="utf-8")):
            lic = v["Code License (if any)"].strip()
            if lic == "unspecified" or (v["Code available (boolean)"] and lic == ""):
                expected_false += 1
            elif lic and lic != "Cannot answer":
                expected_true += 1
    g = _merged(per_paper_docs)
    assert len(set(g.subjects(RK.licenseSpecified, Literal(False)))) == expected_false
    assert len(set(g.subjects(RK.licenseSpecified, Literal(True)))) == expected_true


def test_the_per_paper_template_is_not_a_review(shared_data):
    tpl = shared_data / "replicability_graphics" / "per_paper_template.json"
    text = tpl.read_text(encoding="utf-8")
    assert not rg.sniff(tpl.name, text[:4096])
    with pytest.raises(LoadError) as exc:
        rg.load(tpl.read_bytes(), tpl.name)
    assert exc.value.field == "DOI"
