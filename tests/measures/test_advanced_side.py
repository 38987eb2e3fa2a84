"""The advanced side of a same-collection comparison computed on its own
(``measures.comparison.advanced_side``: what ``reprokg compare``'s forked child computes from
the advanced runs it read) gives what ``compare`` computes with every run in hand, and the
runs it needs no longer (``RunInput.without_rankings``) keep what the comparison reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reprokg.core.forked import Later
from reprokg.measures.comparison import advanced_side, compare
from reprokg.measures.inputs import resolve_qrels, resolve_run
from reprokg.measures.registry import Options
from tests.measures.test_measures_repro_eval import write_run


@pytest.fixture(scope="module")
def study(shared_data: Path, tmp_path_factory) -> tuple:
    """Four runs of 12 topics x 200 documents over the real core17 qrels."""
    q17 = shared_data / "trec" / "qrels" / "core17.txt"
    d = tmp_path_factory.mktemp("advanced")
    runs = [
        resolve_run(str(write_run(q17, d / f"run{seed}", seed, 12, 200)), None)
        for seed in (3, 4, 5, 6)
    ]
    return resolve_qrels(str(q17), None, None), runs


def test_the_advanced_side_given_equals_compare(study) -> None:
    qrels, (ob, rb, oa, ra) = study
    opts = Options(resamples=999, seed=3)
    whole = compare(qrels.qrels, ob.run, rb.run, oa.run, ra.run, options=opts)
    side = advanced_side(qrels.qrels, oa.run, ra.run, opts)
    light = [r.without_rankings().run for r in (oa, ra)]
    given = compare(qrels.qrels, ob.run, rb.run, *light, options=opts, advanced=Later(lambda: side))
    # as text: NaN (a measure undefined on these runs) equals itself there
    assert json.dumps(given.to_json(), sort_keys=True) == json.dumps(
        whole.to_json(), sort_keys=True
    )
    assert json.dumps(given.means, sort_keys=True) == json.dumps(whole.means, sort_keys=True)
    for role in ("orig_adv", "rep_adv"):
        assert given.scores[role].values.tolist() == whole.scores[role].values.tolist()
    assert "ktu" in whole.to_json()["measures"] and "dri" in whole.to_json()["measures"]


def test_an_advanced_side_given_is_of_a_same_collection_study(study) -> None:
    qrels, (ob, rb, oa, ra) = study
    side = Later(lambda: advanced_side(qrels.qrels, oa.run, ra.run))
    with pytest.raises(ValueError, match="same-collection"):
        compare(qrels.qrels, ob.run, rb.run, oa.run, ra.run, qrels_rpl=qrels.qrels, advanced=side)
    with pytest.raises(ValueError, match="same-collection"):
        compare(qrels.qrels, ob.run, rb.run, advanced=side)


def test_an_input_without_rankings_keeps_what_the_comparison_reads(study, shared_data) -> None:
    _, (ob, *_) = study
    light = ob.without_rankings()
    assert light.run.topics == {} and ob.run.topics  # the original input is untouched
    assert (light.name, light.run.name, light.run.tag, light.run.warnings) == (
        ob.name,
        ob.run.name,
        ob.run.tag,
        ob.run.warnings,
    )
    assert light.sha256 == ob.sha256 and light.content_key == ob.content_key
    # a run with a header: its reported measures are evaluated on its rankings, kept
    annotated = resolve_run(str(shared_data / "ir_metadata" / "annotated_run_example.txt"), None)
    assert annotated.has_header
    with pytest.raises(ValueError, match="keeps its rankings"):
        annotated.without_rankings()
