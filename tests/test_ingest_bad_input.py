"""Bad input is refused with a clear message naming file, line and column."""

from __future__ import annotations

import pytest

from reprokg.core.errors import LoadError
from reprokg.loaders import load_source
from reprokg.loaders.files import load_path
from reprokg.loaders.reading.source import parse_json, read_bytes
from reprokg.loaders.reading.yaml_scalars import parse_yaml


def billion_laughs(levels: int = 9) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels + 1):
        refs = ", ".join([f"*l{i - 1}"] * 9)
        lines.append(f"l{i}: &l{i} [{refs}]")
    return "\n".join(lines) + "\n"


def test_billion_laughs_is_rejected() -> None:
    with pytest.raises(LoadError) as err:
        parse_yaml(billion_laughs(), "bomb.yaml")
    assert "alias bomb" in err.value.message
    assert err.value.source == "bomb.yaml"


def test_billion_laughs_through_the_run_loader(tmp_path) -> None:
    f = tmp_path / "bomb.yaml"
    # an annotated run header (repro_eval form) whose YAML is the bomb
    header = "".join(f"# {line}\n" for line in billion_laughs().splitlines())
    f.write_text(f"# ir_metadata.start\n{header}# ir_metadata.end\n", encoding="utf-8")
    with pytest.raises(LoadError) as err:
        load_path(f)
    assert "alias" in str(err.value)


def test_many_aliases_rejected_with_position() -> None:
    text = "a: &x 1\nb: [" + ", ".join(["*x"] * 500) + "]\n"
    with pytest.raises(LoadError) as err:
        parse_yaml(text, "aliases.yaml")
    assert err.value.line == 2 and err.value.column is not None


def test_malformed_yaml_has_line_and_column() -> None:
    with pytest.raises(LoadError) as err:
        parse_yaml("tag: run1\nplatform: [a, b\nactor: x\n", "bad.yaml")
    e = err.value
    assert (e.source, e.line) == ("bad.yaml", 3)
    assert e.column is not None
    assert str(e).startswith("bad.yaml:3:")


def test_malformed_json_has_line_and_column() -> None:
    with pytest.raises(LoadError) as err:
        parse_json('{"a": 1,\n  "b": }\n', "bad.json")
    assert (err.value.line, err.value.column) == (2, 8)


def test_binary_file_refused(tmp_path) -> None:
    f = tmp_path / "image.yaml"
    f.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(LoadError) as err:
        load_path(f)
    assert "binary" in err.value.message


def test_non_utf8_refused_with_line(tmp_path) -> None:
    data = b"tag: run1\nactor:\n  name: Jos" + b"\xe9\n"  # Latin-1 é
    with pytest.raises(LoadError) as err:
        load_source("latin1.yaml", data)
    assert "not valid UTF-8" in err.value.message
    assert err.value.line == 3


def test_file_over_size_limit_refused(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("REPROKG_MAX_SOURCE_BYTES", "100")
    f = tmp_path / "big.yaml"
    f.write_text("x: " + "a" * 200 + "\n", encoding="utf-8")
    with pytest.raises(LoadError) as err:
        read_bytes(f)
    assert "limit is 100 bytes" in err.value.message
    with pytest.raises(LoadError):
        read_bytes(b"y" * 101, "upload")


def test_unrecognised_file_names_known_kinds() -> None:
    with pytest.raises(LoadError) as err:
        load_source("notes.txt", b"just some words\n")
    assert "--kind" in err.value.message


def test_missing_path(tmp_path) -> None:
    from reprokg.ingest import ingest_paths
    from reprokg.store import open_store

    with open_store(tmp_path / "s") as s:
        res = ingest_paths(s, [tmp_path / "nope.yaml"])
    assert res.exit_code == 2
    assert "no such file" in str(res.errors[0])
