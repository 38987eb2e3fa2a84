"""``reprokg ontology check`` without Java says what to install (the HermiT runs are in
test_ontology_reasoner.py, marked slow)."""

from __future__ import annotations

import pytest

from reprokg.cli import main


def test_without_java_the_check_names_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", "")
    assert main(["ontology", "check"]) == 2
    err = capsys.readouterr().err
    assert "needs Java" in err and "default-jre-headless" in err
