"""The whole package is type-checked (.ci/mypy reads pyproject's [tool.mypy] packages and
modules), and a ``# type: ignore`` says which error it silences: a bare one hides every
error of its line, including those a later change brings."""

from __future__ import annotations

import io
import re
import tokenize
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.test_architecture import _modules

#: an ignore that names its error codes: ``# type: ignore[arg-type]``
_CODED = re.compile(r"type:\s*ignore\[[a-z0-9-]+(\s*,\s*[a-z0-9-]+)*\]")
_IGNORE = re.compile(r"type:\s*ignore")
#: packages another change brings under mypy (the service's models and routes, issue 40's
#: service slice); remove a name once pyproject lists it
NOT_YET_CHECKED: set[str] = set()


def bare_ignores(text: str) -> Iterator[int]:
    """Lines of ``text`` (Python) with a ``type: ignore`` comment that names no code."""
    for t in tokenize.generate_tokens(io.StringIO(text).readline):
        comment = t.type == tokenize.COMMENT
        if comment and _IGNORE.search(t.string) and not _CODED.search(t.string):
            yield t.start[0]


#: what may follow the code: a reason, ``# type: ignore[code]  # why``
_REASONED = re.compile(r"type:\s*ignore\[[^\]]*\]\s*#\s*\S")


def unreasoned_ignores(text: str) -> Iterator[int]:
    """Lines of ``text`` (Python) whose ``type: ignore`` says no reason: none after it on its
    line, and the line above is no comment (where a reason too long for the line goes)."""
    lines = text.splitlines()
    for t in tokenize.generate_tokens(io.StringIO(text).readline):
        if t.type != tokenize.COMMENT or not _IGNORE.search(t.string):
            continue
        above = lines[t.start[0] - 2].strip() if t.start[0] > 1 else ""
        if not _REASONED.search(t.string) and not above.startswith("#"):
            yield t.start[0]


def test_no_type_ignore_without_an_error_code() -> None:
    bad = [
        f"{path.relative_to(REPO)}:{line}"
        for _module, path in _modules()
        for line in bare_ignores(path.read_text(encoding="utf-8"))
    ]
    assert not bad, "a type: ignore without [code]:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    ("python", "lines"),
    [
        ("x: int = 'a'  # type: ignore\n", [1]),
        ("x = 1\ny: int = 'a'  #type:ignore  (a reason alone is not a code)\n", [2]),
        ("x: int = 'a'  # type: ignore[assignment]  # a reason\n", []),
        ("x: int = f()  # type: ignore[assignment, arg-type]\n", []),
        ('"""A docstring saying # type: ignore is no comment."""\n', []),
    ],
)
def test_the_bare_ignore_check_sees_what_it_must(python: str, lines: list[int]) -> None:
    assert list(bare_ignores(python)) == lines


def test_no_type_ignore_without_a_reason() -> None:
    """An ignore says why the checker is wrong there, so the next reader can tell whether
    it still is (package code; tests and benchmarks are not the package)."""
    bad = [
        f"{path.relative_to(REPO)}:{line}"
        for _module, path in _modules()
        for line in unreasoned_ignores(path.read_text(encoding="utf-8"))
    ]
    assert not bad, "a type: ignore without a reason after it or above it:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    ("python", "lines"),
    [
        ("x: int = 'a'  # type: ignore[assignment]\n", [1]),
        ("x = 1\ny: int = 'a'  # type: ignore[assignment]  #\n", [2]),
        ("x = 1  # a comment of x\ny: int = 'a'  # type: ignore[assignment]\n", [2]),
        ("x: int = 'a'  # type: ignore[assignment]  # a reason\n", []),
        ("# a reason too long for the line\nx: int = 'a'  # type: ignore[assignment]\n", []),
        ('"""A docstring saying # type: ignore is no comment."""\n', []),
    ],
)
def test_the_reason_check_sees_what_it_must(python: str, lines: list[int]) -> None:
    assert list(unreasoned_ignores(python)) == lines


def _checked() -> tuple[set[str], set[str]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    return set(config["packages"]), set(config.get("modules", []))


def test_mypy_covers_every_module_of_the_package() -> None:
    """Every module of the package is in a package or module pyproject's mypy section
    names (tests and benchmarks are not the package: setuptools ships neither)."""
    packages, modules = _checked()
    missing = sorted(
        module
        for module, _path in _modules()
        if module not in modules
        and not any(module == p or module.startswith(p + ".") for p in packages)
        and not any(module == p or module.startswith(p + ".") for p in NOT_YET_CHECKED)
    )
    assert not missing, "modules mypy does not check:\n" + "\n".join(missing)


def test_every_checked_name_is_a_module() -> None:
    names = {module for module, _path in _modules()}
    packages, modules = _checked()
    assert not (packages | modules) - names


def test_benchmarks_and_tests_are_not_shipped() -> None:
    """Why the coverage above leaves them out: setuptools' package list has neither."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = config["tool"]["setuptools"]["packages"]
    assert not [p for p in shipped if p.split(".")[1:2] in (["tests"], ["benchmarks"])]
    assert Path(REPO / "benchmarks").is_dir()
