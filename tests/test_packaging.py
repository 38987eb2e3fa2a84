"""The package installs as one namespace and the README's commands stay true."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import REPO


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block, "README must open with a bash block of set-up commands"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_readme_opens_with_exactly_two_commands() -> None:
    cmds = _readme_commands()
    assert len(cmds) == 2
    assert "serve --demo" in cmds[0]
    assert "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    test_cmd = _readme_commands()[1]
    assert test_cmd in ci.splitlines(), f".ci/run must run {test_cmd!r} verbatim"


def test_single_import_namespace() -> None:
    import reprokg
    import reprokg.loaders

    assert reprokg.loaders.__name__ == "reprokg.loaders"
    # no generic top-level modules leak into sys.path from the checkout layout
    for generic in ("service", "loaders", "store", "measures"):
        proc = subprocess.run(
            [sys.executable, "-c", f"import {generic}"], capture_output=True, cwd="/"
        )
        assert proc.returncode != 0, f"top-level module {generic!r} must not be importable"


def test_cli_version_and_help() -> None:
    from reprokg import __version__

    out = subprocess.run(
        [sys.executable, "-m", "reprokg", "--version"], capture_output=True, text=True, cwd="/"
    )
    assert out.returncode == 0 and __version__ in out.stdout
    out = subprocess.run(
        [sys.executable, "-m", "reprokg", "--help"], capture_output=True, text=True, cwd="/"
    )
    assert out.returncode == 0 and "usage: reprokg" in out.stdout


def test_package_data_found_through_importlib_resources() -> None:
    from reprokg.core.resources import data_dir

    for name in ("ontology", "shapes", "queries"):
        assert data_dir(name).is_dir(), name


def test_the_wheel_lists_every_package_of_the_tree() -> None:
    """``pip install .`` (the README's first command) builds a wheel from the explicit
    ``packages`` list; a subpackage left out of it (``validation/fast``, ``loaders/reading``)
    imports in an editable checkout and is missing from the wheel."""
    import tomllib

    listed = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"][
        "packages"
    ]
    tree = {"reprokg"} | {
        "reprokg." + ".".join(init.parent.relative_to(REPO).parts)
        for init in REPO.rglob("__init__.py")
        if init.parent != REPO
        and init.relative_to(REPO).parts[0] not in ("tests", "benchmarks", "build")
        and not any(part.startswith(".") for part in init.relative_to(REPO).parts)
    }
    assert len(listed) == len(set(listed)), "a package listed twice"
    assert set(listed) == tree
