"""``reprokg shacl --shapes SHAPES DATA...``: the general validator as a user runs it.

The data and shapes are the W3C SHACL suite's own files; the exit code is compared with
pyshacl's command-line tool (the test oracle) on the same files: 0 conforms, 1 does not.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Graph
from rdflib.namespace import RDF, SH

from benchmarks.validation import w3c

pytestmark = pytest.mark.skipif(not w3c.SUITE.is_dir(), reason="the W3C SHACL suite is absent")

CLASS_001 = w3c.SUITE / "core" / "property" / "class-001.ttl"  # shapes and data in one file


def _reprokg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reprokg", "shacl", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _conforming(tmp_path: Path) -> Path:
    """class-001's data with every invalid instance taken out (its valid ones stay)."""
    g = Graph().parse(CLASS_001, format="turtle")
    for s in list(g.subjects()):
        if "Invalid" in str(s):
            g.remove((s, None, None))
    out = tmp_path / "valid.ttl"
    g.serialize(out, format="turtle")
    return out


@pytest.mark.slow
def test_text_report_and_exit_1_on_violations() -> None:
    done = _reprokg("--shapes", str(CLASS_001), str(CLASS_001))
    assert done.returncode == 1, done.stderr
    assert "does not conform" in done.stdout
    assert "ClassConstraintComponent" in done.stdout and "InvalidResource1" in done.stdout


def test_exit_0_when_every_file_conforms(tmp_path: Path) -> None:
    done = _reprokg("-s", str(CLASS_001), str(_conforming(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "conforms" in done.stdout


@pytest.mark.slow
def test_turtle_report_is_the_suite_expected_report() -> None:
    done = _reprokg("-s", str(CLASS_001), str(CLASS_001), "--format", "turtle")
    report = Graph().parse(data=done.stdout, format="turtle")
    assert len(list(report.subjects(RDF.type, SH.ValidationReport))) == 1
    test = next(t for t in w3c.tests("core") if t.id == "core/property/class-001")
    # the CLI parses with the file's own base (file:///class-001.ttl): compare by local names
    fix = {str(x).rsplit("#", 1)[-1] for x in report.objects(None, SH.focusNode)}
    want = {str(x).rsplit("#", 1)[-1] for x in test.expected().objects(None, SH.focusNode)}
    assert fix == want and fix


def test_json_report(tmp_path: Path) -> None:
    done = _reprokg("-s", str(CLASS_001), str(CLASS_001), str(_conforming(tmp_path)), "-f", "json")
    reports = json.loads(done.stdout)
    assert [r["conforms"] for r in reports] == [False, True]
    first = reports[0]["results"][0]
    assert first["constraint"] == str(SH.ClassConstraintComponent)
    assert first["result_path"] and first["focus_node"]


def test_unusable_shapes_exit_2(tmp_path: Path) -> None:
    bad = w3c.SUITE / "sparql" / "pre-binding" / "unsupported-sparql-001.ttl"  # MINUS
    done = _reprokg("-s", str(bad), str(bad))
    assert done.returncode == 2
    assert "MINUS" in done.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pyshacl") is None, reason="pyshacl's command is not installed")
def test_exit_codes_equal_pyshacl_command(tmp_path: Path) -> None:
    valid = _conforming(tmp_path)
    for data in (CLASS_001, valid):
        ours = _reprokg("-s", str(CLASS_001), str(data)).returncode
        theirs = subprocess.run(
            ["pyshacl", "-s", str(CLASS_001), str(data)], capture_output=True, timeout=120
        ).returncode
        assert ours == theirs, data


@pytest.mark.slow
@pytest.mark.parametrize("how", ["--timeout", "REPROKG_SHACL_TIMEOUT"])
def test_the_validation_is_stopped_at_its_time_limit(tmp_path: Path, how: str) -> None:
    """Issue 38: ``reprokg shacl`` had no time bound. ``(ex:p)*`` with sh:maxCount over a
    1,000-node cycle (its cost check turned off) runs for minutes; the limit of 1 s (the
    option, or the service's setting as its default) stops it: exit 2, a sentence naming
    the limit."""
    import os
    import time

    from tests.validation.test_shacl_costs import PREFIXES, cycle

    shapes, data = tmp_path / "shapes.ttl", tmp_path / "cycle.ttl"
    shapes.write_text(
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ;\n"
        "  sh:property [ sh:path [ sh:zeroOrMorePath ex:p ] ; sh:maxCount 1 ] .\n"
    )
    data.write_bytes(cycle(1_000))
    env = {**os.environ, "REPROKG_SHACL_MAX_PATH_COST": str(10**12)}
    args = [sys.executable, "-m", "reprokg", "shacl", "-s", str(shapes), str(data)]
    if how == "--timeout":
        args += ["--timeout", "1"]
    else:
        env["REPROKG_SHACL_TIMEOUT"] = "1"
    start = time.monotonic()
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "longer than the limit of 1 s (shacl_timeout)" in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert time.monotonic() - start < 30
