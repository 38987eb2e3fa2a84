"""The sources read model (:mod:`reprokg.evidence.sources`): links between two sources'
works without a shared identifier are counted from the link pass's stored candidates, the
accepted ones apart (the pair of tests/evidence/test_candidate_matches.py: a real GK2018
row and an artifact record of the same paper in other words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reprokg.core.errors import NotFound
from reprokg.evidence.candidate_matches import find
from reprokg.evidence.outcomes import work_outcomes
from reprokg.evidence.sources import source_detail, source_of, source_overview
from reprokg.ingest import ingest, write_result
from reprokg.loaders import artifact_evaluation, gundersen_kjensmo
from reprokg.store import open_store
from tests.evidence.test_candidate_matches import _artifact_titled, _gk_row


@pytest.mark.parametrize(
    ("title", "accepted"),
    [
        # British spelling (the link pass scores it at or above its declared threshold)
        ("A Generative Model for Recognising Mixed Group Activities in Still Images", 1),
        # another paper's title sharing the rare words: proposed, not accepted
        ("A Generative Model for Recognizing Mixed Group Activities in Videos", 0),
    ],
)
def test_links_between_two_sources_are_counted_accepted_apart(
    shared_data: Path, tmp_path: Path, title: str, accepted: int
) -> None:
    gk = gundersen_kjensmo.load(_gk_row(shared_data), "evaluations.csv")
    ae = artifact_evaluation.load(_artifact_titled(title), "artifacts.json")
    with open_store(tmp_path / "s") as store:
        assert ingest(store, [*gk, *ae]).count("rejected") == 0
        (m,) = find(store).matches
        assert m.accepted is bool(accepted)
        write_result(store, find(store))
        listed = {s.name: s for s in source_overview(store)}
        # the link pass's own document is not a source
        assert set(listed) == {"reprodb", "gk2018"}
        assert listed["gk2018"].documents == listed["gk2018"].works.n == 1
        outcomes = work_outcomes(store)
        for name, other in (("gk2018", "reprodb"), ("reprodb", "gk2018")):
            (join,) = source_detail(store, name, outcomes).joins
            assert join.other == other and join.shared.n == 0  # no shared identifier
            assert (join.accepted_links, join.proposed_links) == (accepted, 1)
        with pytest.raises(NotFound, match="sources held: reprodb, gk2018"):
            source_detail(store, "rescience", outcomes)


def test_a_kind_with_several_sources_is_split_by_file() -> None:
    """ReproDB's consolidated file and the venues' results pages are both artifact
    evaluations; other documents (runs, the link pass's matches) are no evidence source."""
    assert source_of("artifact-evaluation", "artifacts.json").name == "reprodb"  # type: ignore[union-attr]
    assert source_of("artifact-evaluation", "osdi2023-results.md").name == "results-pages"  # type: ignore[union-attr]
    assert source_of("candidate-matches", "candidate-matches.json") is None
    assert source_of("run", "run.txt") is None
