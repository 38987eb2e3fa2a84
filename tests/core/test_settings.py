"""One Settings for everything configurable, read from REPROKG_* once per process."""

from __future__ import annotations

from dataclasses import Field, fields
from pathlib import Path

import pytest

from reprokg.core import settings as config
from reprokg.core.errors import LoadError, UsageError
from reprokg.core.identifiers import base_iri, mint
from reprokg.core.settings import Settings, variable
from tests.conftest import REPO


def test_read_once_then_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPROKG_BASE", "https://example.org/kg")
    first = config.settings()
    assert first.base == "https://example.org/kg/" and base_iri() == first.base
    monkeypatch.setenv("REPROKG_BASE", "https://other.example/")
    assert config.settings() is first  # not read again
    config.configure(None)
    assert config.settings().base == "https://other.example/"
    assert str(mint("run", "x")) == "https://other.example/run/x"


def test_configure_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPROKG_SHACL_ENGINE", "pyshacl")
    config.configure(Settings(shacl_engine="fast", user="0000-0002-1825-0097"))
    from reprokg.validation.engine import engine

    assert engine() == "fast" and config.settings().user == "0000-0002-1825-0097"


def test_every_field_round_trips_through_the_environment(tmp_path) -> None:
    token = tmp_path / "token"
    token.write_text("s3cret\n", encoding="utf-8")
    env = {
        "REPROKG_STORE": "http://localhost:7878/query",
        "REPROKG_WRITE_TOKEN_FILE": str(token),
        "REPROKG_BASE": "https://example.org/id",
        "REPROKG_QUERY_TIMEOUT": "2.5",
        "REPROKG_ROW_CAP": "7",
        "REPROKG_READ_ONLY": "1",
        "REPROKG_SHACL_ENGINE": "compare",
        "REPROKG_USER": "Jane Doe",
        "REPROKG_BLOB_DIR": "/data/blobs",
        "REPROKG_UPDATE_URL": "http://localhost:8890/sparql-auth",
        "REPROKG_SPARQL_USER": "dba",
        "REPROKG_SPARQL_PASSWORD": "pa55word",
        "REPROKG_LOAD_ALLOWLIST": "http://a.example/x.ttl http://b.example/y.ttl",
    }
    s = Settings.from_env(env)
    assert s.write_token == "s3cret" and s.base == "https://example.org/id/"
    assert (s.shacl_engine, s.user, s.blob_dir) == ("compare", "Jane Doe", "/data/blobs")
    assert (s.sparql_user, s.sparql_password, s.row_cap) == ("dba", "pa55word", 7)
    assert Settings.from_env(s.to_env()) == s
    assert "pa55word" not in repr(s) and "s3cret" not in repr(s)


# ---------------------------------------------------------------- each setting declared once


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("REPROKG_SHACL_ENGINE", "fsat", "expected one of fast, pyshacl, compare"),
        ("REPROKG_QUERY_TIMEOUT", "ten", "expected a number of seconds"),
        ("REPROKG_QUERY_TIMEOUT", "-1", "expected a number of seconds"),
        ("REPROKG_ROW_CAP", "1e4", "expected a whole number"),
        ("REPROKG_MAX_DEPTH", "-5", "expected a whole number"),
        ("REPROKG_READ_ONLY", "maybe", "expected one of 1, true, yes, on, 0, false, no, off"),
        ("REPROKG_PARSE_TIMEOUT", "nan", "expected a number of seconds"),
    ],
)
def test_a_bad_value_is_a_usage_error_naming_the_variable(
    variable: str, value: str, expected: str
) -> None:
    """Before, an unknown engine silently became ``fast``, a bad flag silently ``off``
    and a non-number a bare ValueError from ``float()`` (a traceback in the CLI)."""
    with pytest.raises(UsageError) as err:
        Settings.from_env({variable: value})
    assert str(err.value).startswith(f"{variable}={value!r}: ")
    assert expected in str(err.value)


def test_an_engine_given_in_code_is_checked_too() -> None:
    with pytest.raises(UsageError, match="shacl_engine 'fsat': expected one of"):
        Settings(shacl_engine="fsat")


def test_an_unreadable_token_file_names_its_variable(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-token"
    with pytest.raises(UsageError) as err:
        Settings.from_env({"REPROKG_WRITE_TOKEN_FILE": str(missing)})
    assert "REPROKG_WRITE_TOKEN_FILE" in str(err.value) and "cannot read" in str(err.value)


def test_the_cli_reports_a_bad_variable_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from reprokg.cli import main

    monkeypatch.setenv("REPROKG_SHACL_ENGINE", "pyshcal")
    code = main(["validate", str(REPO / "examples" / "audits" / "gcn.yaml")])
    err = capsys.readouterr().err
    assert code == 2
    assert "REPROKG_SHACL_ENGINE='pyshcal': expected one of fast, pyshacl, compare" in err


def _other_value(f: Field[object]) -> tuple[str, object]:
    """A variable text and the value it must give, different from the default."""
    d = f.default
    if f.name == "shacl_engine":
        return "pyshacl", "pyshacl"
    if f.name == "base":
        return "https://example.org/kg", "https://example.org/kg/"
    if f.name == "source_date_epoch":
        return "1700000000", 1_700_000_000
    if isinstance(d, bool):
        return ("0", False) if d else ("yes", True)
    if isinstance(d, int):
        return str(d + 3), d + 3
    if isinstance(d, float):
        return str(d * 2), d * 2
    if isinstance(d, tuple):
        return "http://a.example/x http://b.example/y", ("http://a.example/x", "http://b.example/y")
    return "some-text", "some-text"


def test_every_field_has_a_variable_a_parser_and_round_trips() -> None:
    env: dict[str, str] = {}
    expected: dict[str, object] = {}
    for f in fields(Settings):
        text, value = _other_value(f)
        assert value != f.default, f.name
        env[variable(f)] = text
        expected[f.name] = value
    s = Settings.from_env(env)
    assert {name: getattr(s, name) for name in expected} == expected
    assert Settings.from_env(s.to_env()) == s
    assert Settings.from_env(Settings().to_env()) == Settings()


def test_limits_objects_are_views_with_the_settings_defaults() -> None:
    """The SPARQL router's body limit was 1 MiB against the service's 8 MiB, and the
    runners, the router and the source reader each restated 10 s / 10,000 rows / 64 MiB."""
    import inspect

    from reprokg.loaders.reading.limits import InputLimits
    from reprokg.service.http import ConnectionLimits
    from reprokg.service.routes.sparql import SparqlLimits
    from reprokg.sparql.runner import InlineQueryRunner, ProcessQueryRunner

    defaults = Settings()
    for cls in (InputLimits, SparqlLimits):
        for f in fields(cls):
            assert f.default == getattr(defaults, f.name), (cls.__name__, f.name)
        tight = defaults.with_(**{f.name: _other_value(f)[1] for f in fields(cls)})
        assert all(getattr(cls.of(tight), f.name) == getattr(tight, f.name) for f in fields(cls))
    for name in (
        "header_timeout",
        "max_header_bytes",
        "body_timeout",
        "body_min_rate",
        "max_connections_per_client",
    ):
        assert getattr(ConnectionLimits, name) == getattr(defaults, name), name
    assert ConnectionLimits.request_budget == defaults.limit_concurrency
    for runner in (InlineQueryRunner, ProcessQueryRunner):
        params = inspect.signature(runner).parameters
        assert params["timeout"].default == defaults.query_timeout
        assert params["row_cap"].default == defaults.row_cap
        assert params["answer_bytes"].default == defaults.answer_bytes


def test_the_source_size_limit_is_a_setting(tmp_path: Path) -> None:
    from reprokg.loaders.reading.source import read_bytes

    config.configure(Settings(max_source_bytes=10))
    with pytest.raises(LoadError, match="limit is 10 bytes"):
        read_bytes(b"x" * 11, "upload")
    config.configure(None)
    assert read_bytes(b"x" * 11, "upload")[0] == b"x" * 11


def test_every_setting_is_documented_with_its_default() -> None:
    """docs/configuration.md lists every variable with its default (a new setting
    without its row fails here)."""
    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = {
        line.split("|")[1].strip().strip("`"): line.split("|")[2].strip().strip("`")
        for line in text.splitlines()
        if line.startswith(("| `REPROKG_", "| `SOURCE_DATE_EPOCH`"))
    }
    for f in fields(Settings):
        assert variable(f) in rows, f"{variable(f)} is not in docs/configuration.md"
        shown = Settings().to_env().get(variable(f))
        documented = rows[variable(f)]
        if shown is None:
            assert documented in ("none", "empty"), (variable(f), documented)
        elif isinstance(f.default, bool):
            assert documented == ("on" if f.default else "off"), (variable(f), documented)
        else:
            assert documented.replace(",", "") == shown.removesuffix(".0"), (
                variable(f),
                documented,
                shown,
            )
    assert set(rows) - {variable(f) for f in fields(Settings)} == {"REPROKG_WRITE_TOKEN_FILE"}
