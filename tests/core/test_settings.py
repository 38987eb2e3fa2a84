"""One Settings for everything configurable, read from REPROKG_* once per process."""

from __future__ import annotations

import pytest

from reprokg.core import settings as config
from reprokg.core.identifiers import base_iri, mint
from reprokg.core.settings import Settings


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
