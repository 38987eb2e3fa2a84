"""The kept draws of a seed (stats.bootstrap.seeded_resamples, stats.paired.seeded_signs):
the arrays a fresh ``default_rng(seed)`` gives, read-only, for any order of calls; and a
comparison's numbers are the same whether its draws were made ahead of the fork or not."""

from __future__ import annotations

import numpy as np
import pytest

from reprokg.stats.bootstrap import bootstrap_mean, resamples_of, seeded_resamples
from reprokg.stats.paired import random_signs, randomization, seeded_signs


@pytest.mark.parametrize("seed", [0, 7])
def test_seeded_resamples_are_a_fresh_generators_draw(seed: int) -> None:
    for n in (50, 12, 50):  # a draw for another n replaces the kept one
        index, counts = seeded_resamples(seed, 999, n)
        want_index, want_counts = resamples_of(np.random.default_rng(seed), 999, n)
        np.testing.assert_array_equal(index, want_index)
        np.testing.assert_array_equal(counts, want_counts)
        assert not index.flags.writeable and not counts.flags.writeable
    assert seeded_resamples(seed, 999, 12)[1] is seeded_resamples(seed, 999, 12)[1]
    # another seed or B is another draw
    assert not np.array_equal(seeded_resamples(seed + 1, 999, 12)[0], index)
    assert seeded_resamples(seed, 998, 12)[0].shape == (998, 12)


def test_seeded_signs_are_a_fresh_generators_draw() -> None:
    for n in (30, 25):
        signs = seeded_signs(3, 500, n)
        np.testing.assert_array_equal(signs, random_signs(np.random.default_rng(3), 500, n))
        assert not signs.flags.writeable
        with pytest.raises(ValueError):
            signs[0, 0] = 0.0  # a caller cannot change what the next one reads


def test_no_seed_is_never_kept() -> None:
    a = seeded_resamples(None, 200, 20)[0]
    b = seeded_resamples(None, 200, 20)[0]
    assert a.flags.writeable and not np.array_equal(a, b)
    assert not np.array_equal(seeded_signs(None, 200, 30), seeded_signs(None, 200, 30))


def test_results_do_not_depend_on_what_was_drawn_before() -> None:
    rng = np.random.default_rng(11)
    d = rng.normal(size=(40, 5))
    seeded_resamples(0, 999, 41)  # something else kept
    seeded_signs(0, 999, 41)
    first = bootstrap_mean(d, resamples=999, seed=0), randomization(d, resamples=999, seed=0)
    again = bootstrap_mean(d, resamples=999, seed=0), randomization(d, resamples=999, seed=0)
    for x, y in ((first[0].low, again[0].low), (first[0].high, again[0].high)):
        np.testing.assert_array_equal(x, y)
    assert first[1].pvalues == again[1].pvalues
