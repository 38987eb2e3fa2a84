"""``reprokg annotate``: headers repro_eval 0.5.0 reads, replaced not stacked, completion.

repro_eval (the reference tool) is used both ways: its ``MetadataHandler.read_metadata``
must read the header we write to the same structure a YAML reader gets from our
metadata, and a header it writes must load with our loader to the same RDF as the
metadata file it was given.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from reprokg.cli import main
from reprokg.loaders import ir_metadata as im
from reprokg.loaders.ir_metadata.annotate import annotate, header_text, metadata_from_bytes
from reprokg.loaders.ir_metadata.export import graph_to_dict
from tests.conftest import need


@pytest.fixture(scope="module")
def toy_run(shared_data: Path) -> Path:
    return shared_data / "trec" / "toy" / "run_a"


@pytest.fixture(scope="module")
def website(shared_data: Path) -> Path:
    return shared_data / "ir_metadata" / "website_checklist_examples_assembled.yaml"


@pytest.fixture(scope="module")
def annotated(shared_data: Path) -> Path:
    return shared_data / "ir_metadata" / "annotated_run_example.txt"


def repro_eval_metadata():
    try:
        return importlib.import_module("repro_eval.metadata")
    except Exception:  # noqa: BLE001 - missing or broken install: skipped locally, fails in CI
        return None


def test_header_then_unchanged_run_lines(toy_run: Path, website: Path) -> None:
    out = annotate(toy_run.read_bytes(), "run_a", website.read_bytes(), "w.yaml")
    lines = out.split("\n")
    assert lines[0] == "# ir_metadata.start"
    end = lines.index("# ir_metadata.end")
    assert all(ln.startswith("# ") for ln in lines[1:end])
    # the run lines are unchanged (the file is ended by a newline if it was not)
    assert "\n".join(lines[end + 1 :]) == toy_run.read_text().rstrip("\n") + "\n"
    # the header loads back to the metadata it was given
    [doc] = im.load(out.encode(), "out.txt")
    [meta] = im.load(website.read_bytes(), "w.yaml")
    assert graph_to_dict(doc.graph, doc.subject) == graph_to_dict(meta.graph, meta.subject)


def test_existing_header_is_replaced_not_stacked(annotated: Path, website: Path) -> None:
    new_meta = website.read_text().replace("tag: bm25+rm3", "tag: ipm-repro")
    out = annotate(annotated.read_bytes(), "a.txt", new_meta.encode(), "m.yaml")
    assert out.count("ir_metadata.start") == 1 and out.count("ir_metadata.end") == 1
    original_run_lines = annotated.read_text().split("# ir_metadata.end\n", 1)[1]
    assert out.split("# ir_metadata.end\n", 1)[1] == original_run_lines
    [doc] = im.load(out.encode(), "out.txt")
    assert not [m for m in doc.messages if m.path == "tag"]  # tag now matches the lines
    # annotating the output again gives the same file (idempotent)
    assert annotate(out.encode(), "o.txt", new_meta.encode(), "m.yaml") == out


def test_header_of_run_file_is_reused_without_metadata(annotated: Path) -> None:
    out = annotate(annotated.read_bytes(), "a.txt")
    [a] = im.load(annotated.read_bytes(), "a.txt")
    [b] = im.load(out.encode(), "b.txt")
    assert graph_to_dict(a.graph, a.subject) == graph_to_dict(b.graph, b.subject)


def test_values_ending_in_hash_survive_repro_eval_stripping() -> None:
    text = header_text({"tag": "t", "implementation": {"executable": {"cmd": "run.sh #"}}})
    assert "'run.sh #'" in text


@pytest.mark.slow
def test_repro_eval_reads_our_header(tmp_path: Path, toy_run: Path, website: Path) -> None:
    md = repro_eval_metadata()
    need(md is not None, "repro-eval 0.5.0 (the [test] extra) is not importable")
    out = annotate(toy_run.read_bytes(), "run_a", website.read_bytes(), "w.yaml")
    path = tmp_path / "annotated.txt"
    path.write_text(out)
    theirs = md.MetadataHandler.read_metadata(str(path))
    ours = metadata_from_bytes(website.read_bytes(), "w.yaml")
    assert theirs == ours
    # what their reader sees equals what a YAML reader gets from the original file, once
    # the values whose text we keep (schema strings) are compared as text
    original = yaml.safe_load(website.read_text())
    assert theirs["actor"] == original["actor"]
    assert theirs["method"] == original["method"]
    assert theirs["implementation"]["source"]["commit"] == "9548cd6"
    run = md.MetadataHandler.strip_metadata(str(path))
    assert sorted(run) == ["1", "2", "3"] and len(run["1"]) == 10


@pytest.mark.slow
def test_we_read_repro_eval_headers(tmp_path: Path, toy_run: Path, website: Path) -> None:
    md = repro_eval_metadata()
    need(md is not None, "repro-eval 0.5.0 (the [test] extra) is not importable")
    out = tmp_path / "by_repro_eval.txt"
    md.MetadataHandler(run_path=str(toy_run), metadata_path=str(website)).write_metadata(
        run_path=str(out)
    )
    [doc] = im.load(out.read_bytes(), "by_repro_eval.txt")
    [meta] = im.load(website.read_bytes(), "w.yaml")
    assert graph_to_dict(doc.graph, doc.subject) == graph_to_dict(meta.graph, meta.subject)
    assert not [m for m in doc.messages if m.severity == "Info"]


def test_complete_fills_platform_without_overwriting(toy_run: Path) -> None:
    meta = b"tag: t\nplatform:\n  hardware:\n    cpu:\n      model: My CPU\n"
    out = annotate(toy_run.read_bytes(), "run_a", meta, "m.yaml", complete_metadata=True)
    header = yaml.safe_load(
        "\n".join(ln[2:] for ln in out.split("# ir_metadata.end")[0].split("\n")[1:])
    )
    platform = header["platform"]
    # the user's cpu section is kept whole (it may describe another machine)
    assert platform["hardware"]["cpu"] == {"model": "My CPU"}
    assert platform["hardware"]["ram"].endswith(" GB")
    libs = platform["software"]["libraries"]["python"]
    import rdflib

    assert f"rdflib=={rdflib.__version__}" in libs
    assert all("==" in lib for lib in libs)
    need(Path("/etc/os-release").is_file(), "/etc/os-release is missing")
    pretty = next(
        ln.split("=", 1)[1].strip().strip('"')
        for ln in Path("/etc/os-release").read_text().splitlines()
        if ln.startswith("PRETTY_NAME=")
    )
    assert platform["operating system"]["distribution"] == pretty


def test_complete_cpu_from_this_machine(toy_run: Path) -> None:
    need(Path("/proc/cpuinfo").is_file(), "/proc/cpuinfo is missing")
    out = annotate(toy_run.read_bytes(), "run_a", b"tag: t\n", "m.yaml", complete_metadata=True)
    [doc] = im.load(out.encode(), "o.txt")
    cpu = graph_to_dict(doc.graph, doc.subject)["platform"]["hardware"]["cpu"]
    cpuinfo = Path("/proc/cpuinfo").read_text().splitlines()
    processors = sum(1 for ln in cpuinfo if ln.startswith("processor"))
    assert cpu["number of cores"] == processors
    model = next(
        (ln.split(":", 1)[1].strip() for ln in cpuinfo if ln.startswith("model name")), None
    )
    if model is not None:
        assert cpu["model"] == model


@pytest.mark.slow
def test_complete_implementation_from_git(tmp_path: Path, toy_run: Path) -> None:
    need(shutil.which("git") is not None, "git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "rank.py").write_text("print(1)\n")
    (repo / "run.sh").write_text("python rank.py\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }

    def git(*a: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), *a], check=True, capture_output=True, text=True, env=env
        ).stdout.strip()

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "x")
    git("remote", "add", "origin", "https://github.com/example/ranker.git")
    head = git("rev-parse", "HEAD")
    meta = b"tag: t\nimplementation:\n  executable:\n    cmd: ./run.sh\n"
    out = annotate(toy_run.read_bytes(), "run_a", meta, "m.yaml", complete_metadata=True, repo=repo)
    [doc] = im.load(out.encode(), "o.txt")
    impl = graph_to_dict(doc.graph, doc.subject)["implementation"]
    assert impl["executable"] == {"cmd": "./run.sh"}
    assert impl["source"] == {
        "lang": ["Python", "Shell"],
        "repository": "https://github.com/example/ranker.git",
        "commit": head,
    }
    # the user's source for this work tree is completed field by field
    same = meta + b"  source:\n    repository: https://github.com/example/ranker\n"
    out = annotate(toy_run.read_bytes(), "run_a", same, "m.yaml", complete_metadata=True, repo=repo)
    [doc] = im.load(out.encode(), "o.txt")
    src = graph_to_dict(doc.graph, doc.subject)["implementation"]["source"]
    assert src == {
        "lang": ["Python", "Shell"],
        "repository": "https://github.com/example/ranker",
        "commit": head,
    }
    # another repository is kept whole (this work tree's commit would be wrong for it)
    other = meta + b"  source:\n    repository: https://github.com/other/x\n"
    out = annotate(
        toy_run.read_bytes(), "run_a", other, "m.yaml", complete_metadata=True, repo=repo
    )
    [doc] = im.load(out.encode(), "o.txt")
    assert graph_to_dict(doc.graph, doc.subject)["implementation"]["source"] == {
        "repository": "https://github.com/other/x"
    }
    # a commit the user gave is kept; what is missing is added
    given = meta + b"  source:\n    commit: abcdef1\n"
    out = annotate(
        toy_run.read_bytes(), "run_a", given, "m.yaml", complete_metadata=True, repo=repo
    )
    [doc] = im.load(out.encode(), "o.txt")
    assert graph_to_dict(doc.graph, doc.subject)["implementation"]["source"] == {
        "lang": ["Python", "Shell"],
        "repository": "https://github.com/example/ranker.git",
        "commit": "abcdef1",
    }


def test_cli_annotate(tmp_path: Path, toy_run: Path, website: Path, capsys) -> None:
    out = tmp_path / "o.txt"
    rc = main(["annotate", str(toy_run), "--metadata", str(website), "--output", str(out)])
    assert rc == 0
    assert out.read_text().startswith("# ir_metadata.start\n")
    rc = main(["annotate", str(tmp_path / "missing"), "--metadata", str(website)])
    assert rc == 2
    assert "missing" in capsys.readouterr().err


def test_cli_annotate_bad_metadata_names_line(tmp_path: Path, toy_run: Path, capsys) -> None:
    bad = tmp_path / "m.yaml"
    bad.write_text("tag: t\nactor: [a\n")
    rc = main(["annotate", str(toy_run), "--metadata", str(bad)])
    assert rc == 2
    assert f"{bad}:" in capsys.readouterr().err
    assert sys.modules.get("reprokg.loaders.ir_metadata.annotate") is not None


def test_repro_eval_analyzer_sees_only_what_changed(
    tmp_path: Path, toy_run: Path, website: Path
) -> None:
    """repro_eval's MetadataAnalyzer compares our headers with one it wrote itself."""
    md = repro_eval_metadata()
    need(md is not None, "repro-eval 0.5.0 (the [test] extra) is not importable")
    runs = tmp_path / "runs"
    runs.mkdir()
    ref = str(runs / "ref.txt")
    md.MetadataHandler(run_path=str(toy_run), metadata_path=str(website)).write_metadata(
        run_path=ref
    )
    meta = website.read_bytes()
    (runs / "same.txt").write_text(annotate(toy_run.read_bytes(), "run_a", meta, "m.yaml"))
    swept = meta.replace(b"    b: 0.4\n", b"    b: 0.5\n")
    assert swept != meta
    (runs / "swept.txt").write_text(annotate(toy_run.read_bytes(), "run_a", swept, "m.yaml"))
    other = meta.replace(b"name: Jimmy Lin", b"name: Somebody Else")
    (runs / "actor.txt").write_text(annotate(toy_run.read_bytes(), "run_a", other, "m.yaml"))
    found = md.MetadataAnalyzer(run_path=ref).analyze_directory(dir_path=str(runs))
    assert {k: sorted(Path(p).name for p in v) for k, v in found.items()} == {
        "primad": ["same.txt"],
        "priMad": ["swept.txt"],
        "primAd": ["actor.txt"],
    }
