"""The command line starts at once: building the parser, ``--version``, ``--help`` and every
command's ``--help`` import none of the heavy libraries (each handler imports its work when
it runs). Timings are measured by benchmarks/cli, not asserted here."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("scipy", "rdflib", "pandas", "fastapi", "pyoxigraph", "matplotlib", "numpy")
COMMANDS = (
    "load",
    "list",
    "validate",
    "query",
    "export",
    "import",
    "freeze",
    "dump",
    "restore",
    "backup",
    "rebuild-merge",
    "evidence",
    "field",
    "swhid",
    "passport",
    "alerts",
    "annotate",
    "compare",
    "evaluate",
    "docs",
    "ontology",
    "serve",
    "shacl",
    "survey-stats",
    "stability",
    "qra",
    "study",
    "intrinsic-dimension",
)


def _python(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd="/", check=True
    )
    return out.stdout.strip()


def test_building_the_parser_imports_nothing_heavy() -> None:
    # the issue's own command, verbatim
    code = (
        "import sys; from reprokg.cli import main; import reprokg.cli as c; c.build_parser(); "
        "print(sorted(m for m in ('scipy','rdflib','pandas','fastapi','pyoxigraph',"
        "'matplotlib','numpy') if m in sys.modules))"
    )
    assert _python(code) == "[]"


def test_import_reprokg_imports_nothing_heavy() -> None:
    """``import reprokg`` gives the Python API (docs/python.md) by name, each function
    imported when first used: the import itself, and naming the API, load none of rdflib,
    pandas or pyoxigraph (nor the rest of HEAVY)."""
    code = (
        "import sys, reprokg\n"
        "names = reprokg.__all__, dir(reprokg)\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    assert _python(code) == "[]"


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["--version"], ["--help"], *([c, "--help"] for c in COMMANDS)])
def test_help_and_version_import_nothing_heavy(argv: list[str]) -> None:
    code = (
        "import sys, contextlib, io\n"
        "from reprokg.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main({argv!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    # ``import --help`` lists the formats the loaders name (the registry's, not a table of
    # the command line's), and the loaders read RDF: rdflib (and numpy under it) load
    expected = "['numpy', 'rdflib']" if argv == ["import", "--help"] else "[]"
    assert _python(code) == expected


def test_every_command_is_registered() -> None:
    from reprokg.cli import build_parser

    _, handlers = build_parser()
    assert sorted(handlers) == sorted(COMMANDS)


@pytest.mark.slow
def test_compare_of_plain_runs_needs_no_rdflib(shared_data) -> None:
    """``reprokg compare`` of run files without headers reads their lines alone (issue 12:
    the whole process must be 10x faster than repro_eval's): no rdflib, scipy, pandas or
    YAML parser is imported, and the numbers are still printed."""
    toy = shared_data / "trec" / "toy"
    code = (
        "import sys, contextlib, io\n"
        "from reprokg.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    code = main(['compare', '--qrels', {str(toy / 'qrels.toy')!r}, '--orig-base', "
        f"{str(toy / 'run_a')!r}, '--rep-base', {str(toy / 'run_b')!r}, '--format', 'json'])\n"
        "assert code == 0 and '\"ktu\"' in out.getvalue(), out.getvalue()\n"
        "print(sorted(m for m in ('rdflib', 'scipy', 'pandas', 'yaml') if m in sys.modules))"
    )
    assert _python(code) == "[]"
