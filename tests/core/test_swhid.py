"""SWHIDs (ISO/IEC 18670): read as the field's sources write them, held to swh.model (the
Software Heritage reference implementation) on every SWHID of the real data; recomputed from
files, held to git's own object ids (a content SWHID is ``git hash-object``'s blob id, a
directory SWHID ``git write-tree``'s tree id for the same files)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reprokg.core.errors import IdentifierError
from reprokg.core.swhid import parse_swhid, swhid_of_path

swhids = pytest.importorskip("swh.model.swhids")

#: a SWHID as the raw files write it, qualifiers included (up to a quote, space or comma)
_WRITTEN_RE = re.compile(r"swh:1:[a-z]+:[0-9a-f]+[^\s\"',}\]<>]*")


def _written(shared_data: Path) -> set[str]:
    out: set[str] = set()
    for root, _, names in os.walk(shared_data):
        for n in names:
            if n.endswith((".json", ".yaml", ".yml", ".bib", ".csv", ".md")):
                text = Path(root, n).read_text("utf-8", errors="replace")
                out.update(m.group().rstrip(".") for m in _WRITTEN_RE.finditer(text))
    return out


@pytest.mark.slow  # walks ../shared/data (~1 s cold)
def test_every_swhid_of_the_field_reads_as_swh_model_reads_it(shared_data: Path) -> None:
    """Core and qualified forms: what swh.model accepts we read to the same core and
    qualifiers, what it refuses we refuse."""
    written = _written(shared_data)
    # the field's data holds 514 distinct core SWHIDs (grep -rho "swh:1:[a-z]*:[0-9a-f]*")
    # (qualifiers' visit= and anchor= included)
    assert len(set(re.findall(r"swh:1:[a-z]*:[0-9a-f]*", " ".join(written)))) == 514
    accepted = refused = 0
    for w in sorted(written):
        try:
            # a trailing ";" or "/" (MLRC, a browser's address) we read as the SWHID before it
            bare = w.removesuffix(";")
            ref = swhids.QualifiedSWHID.from_string(bare if ";" in bare else bare.rstrip("/"))
        except Exception:  # noqa: BLE001 - swh.model raises its own ValidationError
            refused += 1
            with pytest.raises(IdentifierError):
                parse_swhid(w)
            continue
        accepted += 1
        ours = parse_swhid(w)
        core = swhids.CoreSWHID(object_type=ref.object_type, object_id=ref.object_id)
        assert ours.core == str(core)
        assert str(ours) == str(ref), w
    # three, cut by the page that holds them (";v", ";visit=swh:"), are refused by both
    assert (accepted, refused) == (len(written) - 3, 3)


@pytest.mark.parametrize(
    "text",
    [
        "swh:1:dir:108a16dbb953d71bf228236ec09f6c3c3c967da",  # 39 digits
        "swh:1:DIR:108a16dbb953d71bf228236ec09f6c3c3c967dad",
        "swh:1:ori:108a16dbb953d71bf228236ec09f6c3c3c967dad",  # not a core type
        "swh:2:dir:108a16dbb953d71bf228236ec09f6c3c3c967dad",
        "swh:1:dir:108a16dbb953d71bf228236ec09f6c3c3c967dad;colour=red",
        "swh:1:dir:108a16dbb953d71bf228236ec09f6c3c3c967dad;visit=swh:1:rev:"
        "2f94c84f6125b7c07884369ba88e35a32032475b",  # a visit is a snapshot
        "swh:1:cnt:2f94c84f6125b7c07884369ba88e35a32032475b;lines=0-x",
        "https://github.com/islamazhar/CASPER",
    ],
)
def test_a_malformed_swhid_is_refused_by_both_saying_what_is_expected(text: str) -> None:
    with pytest.raises(IdentifierError, match="expected|must be|not one of"):
        parse_swhid(text)
    with pytest.raises(Exception):  # noqa: B017 - swh.model's ValidationError
        swhids.QualifiedSWHID.from_string(text)


def test_the_spellings_the_sources_use_read_to_one_core() -> None:
    """MLRC writes ``1:dir:…`` and a trailing ``;``, ReproDB the archive's permalink."""
    h = "108a16dbb953d71bf228236ec09f6c3c3c967dad"
    for text in (
        f"1:dir:{h}",
        f"swh:1:dir:{h};",
        f"https://archive.softwareheritage.org/swh:1:dir:{h};origin=https://github.com/x/y",
    ):
        s = parse_swhid(text)
        assert s.core == f"swh:1:dir:{h}"
        assert s.iri == f"https://archive.softwareheritage.org/swh:1:dir:{h}"


# ------------------------------------------------------------- recomputed, against git's ids


def _git(cwd: Path, *argv: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(
        ["git", *argv], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A small tree: text, binary, an executable, a subfolder, a symbolic link."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    d = tmp_path / "code"
    (d / "src").mkdir(parents=True)
    (d / "README.md").write_text("# replication\n", encoding="utf-8")
    (d / "src" / "data.bin").write_bytes(bytes(range(256)))
    run = d / "run.sh"
    run.write_text("#!/bin/sh\necho ok\n", encoding="utf-8")
    run.chmod(0o755)
    (d / "latest").symlink_to("src/data.bin")
    _git(d, "init", "-q")
    _git(d, "add", "-A")
    shutil.move(d / ".git", tmp_path / "dot-git")  # git's own folder is not the code's
    return d


def _git_in(folder: Path, *argv: str) -> str:
    return _git(folder, f"--git-dir={folder.parent / 'dot-git'}", f"--work-tree={folder}", *argv)


def test_a_file_swhid_is_gits_blob_id(folder: Path) -> None:
    for rel in ("README.md", "src/data.bin", "run.sh"):
        blob = _git(folder, "hash-object", rel)
        assert swhid_of_path(folder / rel).core == f"swh:1:cnt:{blob}"


def test_a_folder_swhid_is_gits_tree_id(folder: Path) -> None:
    """Modes (the executable), the symbolic link (as a link) and the subfolder count."""
    tree = _git_in(folder, "write-tree")
    assert swhid_of_path(folder).core == f"swh:1:dir:{tree}"
    sub = _git_in(folder, "rev-parse", f"{tree}:src")
    assert swhid_of_path(folder / "src").core == f"swh:1:dir:{sub}"


def _cli(argv: list[str]) -> tuple[int, str]:
    from reprokg.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(argv)
    return code, out.getvalue()


def test_reprokg_swhid_prints_it_and_checks_a_recorded_one(folder: Path) -> None:
    tree = _git_in(folder, "write-tree")
    code, text = _cli(["swhid", str(folder)])
    assert code == 0 and text.splitlines()[0] == f"swh:1:dir:{tree}"
    # a recorded qualified SWHID: its core is compared
    code, text = _cli(["swhid", str(folder), "--check", f"swh:1:dir:{tree};origin=https://x.org/y"])
    assert code == 0 and "matches" in text
    (folder / "README.md").write_text("# changed\n", encoding="utf-8")
    code, text = _cli(["swhid", str(folder), "--check", f"swh:1:dir:{tree}"])
    assert code == 1 and "MISMATCH" in text
    code, text = _cli(["swhid", str(folder), "--check", "swh:1:dir:nothex"])
    assert code == 2 and "expected swh:1:" in text
    code, text = _cli(["swhid", str(folder / "missing")])
    assert code == 2 and "no such file or folder" in text
