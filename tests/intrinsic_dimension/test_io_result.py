"""Input files (CSV, .npy, .npz, edge lists) and the issue's JSON result."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from reprokg.core.errors import LoadError
from reprokg.intrinsic_dimension import (
    FSCOD,
    analyse,
    feature_scores,
    hop_dimensions,
    intrinsic_dimension,
    read_data,
    read_edges,
)

KEYS = [
    "n",
    "d",
    "observable_diameter",
    "discriminability",
    "id",
    "exact",
    "bounds",
    "features",
    "hops",
    "warnings",
]
WORKED_CSV = "f1,f2,f3,label\n" + "\n".join(
    f"{a},{b},{c},{lab}"
    for a, b, c, lab in zip(
        [0, 1, 2, 3, 4, 5],
        [0, 0.5, 1, 4, 4.5, 5],
        [1, 1, 1, 1, 1.2, 6],
        "aabbcc",
        strict=True,
    )
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# --- CSV ---------------------------------------------------------------------------------


def test_csv_non_numeric_column_is_refused_by_name(tmp_path: Path) -> None:
    p = write(tmp_path, "worked.csv", WORKED_CSV)
    with pytest.raises(LoadError) as err:
        read_data(p)
    assert "'label'" in str(err.value) and "--columns" in str(err.value)
    assert err.value.field == "label" and err.value.source == str(p)


def test_csv_columns_choose_features(tmp_path: Path) -> None:
    p = write(tmp_path, "worked.csv", WORKED_CSV)
    t = read_data(p, columns=["f1", "f2", "f3"])
    assert t.names == ["f1", "f2", "f3"] and t.values.shape == (6, 3)
    assert len(t.sha256) == 64
    assert math.isclose(intrinsic_dimension(t.values), 3.305785123966942, rel_tol=1e-12)
    with pytest.raises(LoadError, match=r"no such column\(s\) \['nope'\]"):
        read_data(p, columns=["f1", "nope"])
    with pytest.raises(LoadError, match="non-numeric column"):
        read_data(p, columns=["f1", "label"])


def test_csv_missing_values_name_column_and_line(tmp_path: Path) -> None:
    p = write(tmp_path, "gap.csv", "a,b\n1,2\n3,\n5,6\n")
    with pytest.raises(LoadError) as err:
        read_data(p)
    assert err.value.line == 3 and err.value.field == "b"


def test_csv_empty_and_header_only(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="empty"):
        read_data(write(tmp_path, "e.csv", ""))
    with pytest.raises(LoadError, match="no data rows"):
        read_data(write(tmp_path, "h.csv", "a,b\n"))


def test_raw_bytes_upload() -> None:
    t = read_data("upload.csv", raw=b"x,y\n1,2\n3,5\n", name="upload.csv")
    assert t.names == ["x", "y"] and t.source == "upload.csv"


def test_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="unknown data format"):
        read_data(write(tmp_path, "d.parquet", "x"))


# --- arrays ------------------------------------------------------------------------------


def test_npy_and_npz(tmp_path: Path) -> None:
    X = np.random.default_rng(0).normal(size=(20, 3))
    np.save(tmp_path / "x.npy", X)
    t = read_data(tmp_path / "x.npy")
    assert t.names == ["0", "1", "2"] and np.array_equal(t.values, X)
    assert read_data(tmp_path / "x.npy", columns=["2", "0"]).names == ["2", "0"]
    np.savez(tmp_path / "one.npz", data=X)
    assert np.array_equal(read_data(tmp_path / "one.npz").values, X)
    np.savez(tmp_path / "two.npz", a=X, b=X[:, :1])
    with pytest.raises(LoadError, match="holds 2 arrays"):
        read_data(tmp_path / "two.npz")
    assert read_data(tmp_path / "two.npz", array="b").d == 1
    np.save(tmp_path / "s.npy", np.array(["a", "b"]))
    with pytest.raises(LoadError, match="numeric"):
        read_data(tmp_path / "s.npy")
    np.save(tmp_path / "c.npy", np.zeros((2, 2, 2)))
    with pytest.raises(LoadError, match="2-D"):
        read_data(tmp_path / "c.npy")


# --- edges -------------------------------------------------------------------------------


def test_edges_with_and_without_header(tmp_path: Path) -> None:
    a = read_edges(write(tmp_path, "a.csv", "0,1\n1,2\n"), 3)
    b = read_edges(write(tmp_path, "b.csv", "source,target\n0,1\n1,2\n"), 3)
    assert a.tolist() == b.tolist() == [[0, 1], [1, 2]]


def test_edges_errors(tmp_path: Path) -> None:
    with pytest.raises(LoadError) as err:
        read_edges(write(tmp_path, "o.csv", "0,1\n1,7\n"), 3)
    assert err.value.line == 2 and "outside 0..2" in str(err.value)
    with pytest.raises(LoadError, match="not an integer"):
        read_edges(write(tmp_path, "f.csv", "0,1\n1,x\n"), 3)
    with pytest.raises(LoadError, match="two columns"):
        read_edges(write(tmp_path, "t.csv", "0,1,2\n"), 3)


# --- the JSON result ---------------------------------------------------------------------


def dumps(d: dict) -> str:
    return json.dumps(d, allow_nan=False)


def test_exact_result_has_the_issue_keys(tmp_path: Path) -> None:
    t = read_data(write(tmp_path, "w.csv", WORKED_CSV), columns=["f1", "f2", "f3"])
    out = analyse(t.values, t.names)
    assert list(out) == KEYS
    assert out["n"] == 6 and out["d"] == 3 and out["observable_diameter"] == 5.0
    assert math.isclose(out["discriminability"], 0.55, rel_tol=1e-12)
    assert math.isclose(out["id"], 3.305785123966942, rel_tol=1e-12)
    assert out["exact"] is True and out["bounds"] is None and out["features"] is None
    assert out["hops"] is None and out["warnings"] == []
    dumps(out)


def test_support_result_with_features() -> None:
    X = np.random.default_rng(1).normal(size=(500, 4))
    out = analyse(X, ["a", "b", "c", "d"], support=30, features=True)
    assert out["exact"] is False and out["id"] is None and out["discriminability"] is None
    b = out["bounds"]
    assert list(b) == ["discriminability", "id", "relative_error", "support"]
    assert b["id"][0] <= intrinsic_dimension(X) <= b["id"][1]
    assert b["support"][0] == 2 and b["support"][-1] == 500
    assert set(out["features"]) == {"a", "b", "c", "d"}
    assert sorted(v["rank"] for v in out["features"].values()) == [1, 2, 3, 4]
    assert any("midpoints" in w for w in out["warnings"])
    refined = analyse(X, support=30, exact=True)
    assert refined["exact"] is True and refined["bounds"] is not None
    assert math.isclose(refined["id"], intrinsic_dimension(X), rel_tol=1e-12)
    dumps(out)


def test_features_and_constant_warning() -> None:
    X = np.column_stack([np.arange(8.0), np.full(8, 2.0), np.arange(8.0) ** 1.5])
    out = analyse(X, ["x", "c", "y"], features=True)
    fs = feature_scores(X, ["x", "c", "y"], score=FSCOD)
    assert out["features"]["c"] == {"delta": 0.0, "id": None, "rank": 1}
    assert out["features"]["x"]["delta"] == pytest.approx(float(fs.delta[0]), rel=1e-15)
    assert any("'c'" in w and "constant" in w for w in out["warnings"])
    assert math.isclose(out["id"], intrinsic_dimension(X), rel_tol=1e-12)
    dumps(out)


def test_infinite_id_is_null_with_a_warning() -> None:
    out = analyse(np.ones((4, 2)))
    assert out["discriminability"] == 0.0 and out["id"] is None
    assert any("infinite" in w for w in out["warnings"])
    one = analyse(np.array([[1.0, 2.0]]), support=10)
    assert one["id"] is None and one["bounds"] is None
    dumps(out)


def test_hops_in_the_result(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 3))
    edges = read_edges(write(tmp_path, "e.csv", _ring(30)), 30)
    out = analyse(X, hops=2, edges=edges)
    want = [r.id for r in hop_dimensions(X, edges, 2)]
    assert list(out["hops"]) == ["0", "1", "2"]
    assert np.allclose(list(out["hops"].values()), want, rtol=1e-12)
    assert math.isclose(out["hops"]["0"], out["id"], rel_tol=1e-12)
    bounded = analyse(X, hops=1, edges=edges, support=6)
    assert list(bounded["hops"]) == ["0", "1"]
    assert any("hop IDs" in w for w in bounded["warnings"])
    # with --exact the hops are exact as well (values of the unbounded run above)
    refined = analyse(X, hops=2, edges=edges, support=6, exact=True)
    assert refined["bounds"] is not None and refined["exact"] is True
    assert np.allclose(list(refined["hops"].values()), want, rtol=1e-12)
    assert not any("hop IDs" in w for w in refined["warnings"])
    with pytest.raises(ValueError, match="graph"):
        analyse(X, hops=1)
    dumps(out)


def _ring(n: int) -> str:
    return "\n".join(f"{i},{(i + 1) % n}" for i in range(n)) + "\n"
