"""``loaders.load_source``: the one place that sniffs a source and says no loader claims it."""

from __future__ import annotations

from typing import Any

import pytest

from reprokg import loaders
from reprokg.core.errors import LoadError, UnrecognisedSource
from reprokg.loaders import Claim, load_source
from reprokg.loaders import audit as audit_loader
from tests.conftest import REPO

AUDIT = REPO / "examples" / "audits" / "gcn.yaml"


def _audit(version: bytes) -> bytes:
    data = AUDIT.read_bytes()
    assert b"\naudit: 1\n" in data  # the bundled GCN audit of seed 000, version 1
    return data.replace(b"\naudit: 1\n", b"\naudit: " + version + b"\n", 1)


def test_a_near_claim_gives_the_loaders_own_error() -> None:
    """``audit: 99`` is an audit of a version we do not read: the user reads the audit
    loader's error (line, field, what was expected), not "no loader claims this"."""
    assert audit_loader.sniff("gcn.yaml", _audit(b"99").decode()) is Claim.NEAR
    with pytest.raises(LoadError) as err:
        load_source("gcn.yaml", _audit(b"99"))
    e = err.value
    assert not isinstance(e, UnrecognisedSource)
    assert (e.source, e.line, e.field) == ("gcn.yaml", 2, "audit")
    assert "99 is not allowed here; expected one of: 1" in e.message
    assert e.details["kind"] == "audit"


def test_a_claimed_source_loads_and_near_is_false_as_a_bool() -> None:
    [doc] = load_source("gcn.yaml", AUDIT.read_bytes())
    assert doc.kind == "audit" and doc.loader == "reprokg.loaders.audit"
    assert not Claim.NEAR and not Claim.NO and Claim.YES


def test_no_claim_names_every_loader_tried() -> None:
    with pytest.raises(UnrecognisedSource) as err:
        load_source("notes.txt", b"just some words\n")
    e = err.value
    assert e.tried == list(loaders.loaders()) == e.details["tried"]
    assert e.message.startswith("no loader claims this file (tried run, mlrc, audit, ")
    assert "--kind" in e.message and e.http_status == 415 and e.exit_code == 2


def test_binary_and_latin1_are_refused_with_the_reason() -> None:
    with pytest.raises(UnrecognisedSource) as err:
        load_source("image.yaml", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert err.value.reason.startswith("looks like a binary file")
    assert "--kind" not in err.value.message  # a kind would not help
    with pytest.raises(UnrecognisedSource) as err:
        load_source("notes.txt", b"caf\xe9 au lait\nline two\n")
    assert err.value.reason.startswith("not valid UTF-8 at byte 3") and err.value.line == 1


def test_a_character_across_the_checked_bytes_is_not_an_encoding_error() -> None:
    """The old sniffing decoded the first 16 KiB strictly: a valid file with a two-byte
    character across that boundary was refused as "not valid UTF-8"."""
    data = AUDIT.read_bytes() + b"# padding\n" * ((loaders.CHECK_BYTES - 2000) // 10)
    pad = loaders.CHECK_BYTES - len(data) - len(b"# ") - 1  # 'é' starts at the last byte
    text = data + b"# " + b"x" * pad + "é\n".encode()
    assert text[loaders.CHECK_BYTES - 1 : loaders.CHECK_BYTES + 1] == "é".encode()
    [doc] = load_source("gcn.yaml", text)
    assert doc.kind == "audit"


def test_an_unknown_kind_is_refused_with_the_known_ones() -> None:
    with pytest.raises(LoadError) as err:
        load_source("gcn.yaml", AUDIT.read_bytes(), kind="nosuchkind")
    assert err.value.field == "kind" and "audit" in err.value.message
    assert err.value.http_status == 415


def test_kinds_restrict_the_loaders_asked() -> None:
    """``reprokg evidence load`` asks only the evidence loaders: an audit is then unclaimed,
    and the loaders named as tried are those asked."""
    with pytest.raises(UnrecognisedSource) as err:
        load_source("gcn.yaml", AUDIT.read_bytes(), kinds=("rescience", "re-execution"))
    assert err.value.tried == ["rescience", "re-execution"]
    with pytest.raises(LoadError, match="no loader for kind 'nosuch'"):
        load_source("gcn.yaml", AUDIT.read_bytes(), kinds=("audit", "nosuch"))
    [doc] = load_source("gcn.yaml", AUDIT.read_bytes(), kinds=("audit",))
    assert doc.kind == "audit"


def test_the_summary_hook_gets_the_loaders_summary_or_a_count() -> None:
    """An evidence loader's own summary (records, skips, outcomes); for another loader the
    count of its documents."""
    told: list = []
    bib = (REPO / "examples/evidence/rescience/published.bib").read_bytes()
    docs = load_source("published.bib", bib, summary=told.append)
    load_source("gcn.yaml", AUDIT.read_bytes(), summary=told.append)
    rescience, audit = told
    # 29 entries in the bundled subset (grep -c '^@' published.bib), 8 [¬Re]/[¬Rp] of them
    assert (rescience.kind, rescience.records, rescience.documents) == ("rescience", 29, 29)
    assert len(docs) == 29 and rescience.outcomes["not-reproduced"] == 8
    assert (audit.kind, audit.records, audit.documents, audit.source) == ("audit", 1, 1, "gcn.yaml")


def test_loading_a_claimed_source_asks_no_sniff_after_the_claimer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run header is claimed by the first loader (ir_metadata); the later loaders'
    sniffs were a tenth of loading it and are not asked (the same loader reads it)."""
    from benchmarks.ingest.generate import header as make_header

    asked: list[str] = []
    for kind, mod in loaders.loaders().items():
        sniff = mod.sniff

        def spy(name: str, head: str, kind: str = kind, sniff: Any = sniff) -> object:
            asked.append(kind)
            return sniff(name, head)

        monkeypatch.setattr(mod, "sniff", spy)
    [doc] = load_source("gen-00001.yaml", make_header(1))
    assert doc.kind == "run"
    assert asked == ["run"]
    # the full answer is still there for whoever asks every loader
    asked.clear()
    said = loaders.claims("gen-00001.yaml", make_header(1).decode())
    assert said["run"] is Claim.YES and len(said) == len(loaders.LOADER_MODULES)
