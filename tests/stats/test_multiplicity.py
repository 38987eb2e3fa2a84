"""Every correction equals R's ``p.adjust`` (run by Rscript) to 1e-12: on the t-test
p-values of a real comparison (58 measures, with ties among them), with NA, on one p-value
and on all-equal p-values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reprokg.stats.multiplicity import CORRECTIONS, adjust, correction_name
from tests.stats.conftest import run_r


def _r_adjust(rscript: str, p: list[float | None], method: str) -> list[float | None]:
    values = ",".join("NA" if v is None else repr(v) for v in p)
    out = run_r(rscript, f'cat(format(p.adjust(c({values}), "{method}"), digits = 17))')
    return [None if math.isnan(v) else v for v in out]


def _real_pvalues(core17_differences) -> list[float | None]:
    from reprokg.stats.student_t import two_sided_p

    d, _ = core17_differences
    n = d.shape[0]
    with np.errstate(all="ignore"):
        t = d.mean(axis=0) / (d.std(axis=0, ddof=1) / math.sqrt(n))
    return [None if not math.isfinite(x) else two_sided_p(x, n - 1) for x in t.tolist()]


@pytest.mark.slow
@pytest.mark.parametrize("method", list(CORRECTIONS))
def test_equals_r_p_adjust_on_a_real_comparison(rscript, core17_differences, method) -> None:
    p = _real_pvalues(core17_differences)
    p[3] = None  # a missing p-value, as an undefined t-test gives
    mine, ref = adjust(p, method), _r_adjust(rscript, p, method)
    assert [m is None for m in mine] == [r is None for r in ref]
    for m, r in zip(mine, ref, strict=True):
        if r is not None:
            assert abs(m - r) <= 1e-12


@pytest.mark.parametrize("method", list(CORRECTIONS))
@pytest.mark.parametrize(
    "p",
    [[0.03], [0.2, 0.2, 0.2, 0.2], [0.01, 0.04, 0.04, 0.03, 0.5, 1e-8, 0.04], [None, 0.5, None]],
    ids=["one", "all equal", "ties", "mostly missing"],
)
def test_equals_r_p_adjust_on_edge_cases(rscript, method, p) -> None:
    mine, ref = adjust(p, method), _r_adjust(rscript, p, method)
    for m, r in zip(mine, ref, strict=True):
        assert (m is None) == (r is None)
        if r is not None:
            assert abs(m - r) <= 1e-12


def test_names() -> None:
    assert correction_name("fdr") == "BH"
    assert adjust([0.1, None], "none") == [0.1, None]
    with pytest.raises(ValueError, match="holm"):
        correction_name("sidak")
