"""Every module, command, option, path, route and variable the README and docs name is real.

The README and ``docs/`` named modules that had been renamed away
(``reprokg.ir_metadata_export``, ``service/settings.py``, ``cli_compare.py``) for months;
nothing read them but people. These tests read them as a program would: code spans,
fenced blocks and link targets are parsed, ``reprokg.x.y`` resolved by import,
``reprokg CMD --flag`` against the argparse parser itself, paths against the repository,
``GET /route`` against the app's routes, ``REPROKG_*`` against the code that reads it.
A name that is an example the reader replaces (``DIR``, ``RUN``, ``{id}``, ``…``) is left
alone; anything else that does not resolve fails with its file and line.
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib
import re
import shlex
import tokenize
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO

#: the pages a person reads (ontology.md is generated from the ontology and checked apart)
DOCS = sorted(
    [REPO / "README.md", REPO / "benchmarks" / "README.md", *(REPO / "docs").glob("*.md")]
)
#: file types that are ours when named without a folder (data files are the user's)
SOURCE_SUFFIXES = {".py", ".rq", ".ttl", ".sh", ".md"}
#: a bare file name of these kinds is ours (code, queries, pages); ``shapes.ttl`` in a
#: command line is the reader's own file
OUR_BARE_SUFFIXES = {".py", ".rq", ".sh", ".md"}
SHELL_LANGS = {"", "bash", "sh", "shell", "console"}
#: names that look like modules and are not: a logger
NOT_MODULES = {"reprokg.access"}
#: variables a page invents as an example (docs/configuration.md: how to add a setting)
EXAMPLE_VARIABLES = {"REPROKG_MAX_WIDGETS"}
SHELL_SEPARATORS = {"&&", "||", "|", ";", "&", "\\"}


@dataclass(frozen=True)
class Snippet:
    """Text of one page that names things: a code span, a line of a fenced block, a link."""

    page: Path
    line: int
    kind: str  # "span", "block" or "link"
    text: str
    lang: str = ""

    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def snippets(page: Path, text: str | None = None) -> Iterator[Snippet]:
    """The snippets of ``page`` (of ``text`` as if it were that page, for the checks' tests)."""
    if text is None:
        text = page.read_text(encoding="utf-8")
    lines = text.split("\n")
    prose = list(lines)
    fence: str | None = None
    lang = ""
    pending = ""  # a shell line continued with a backslash
    for i, line in enumerate(lines):
        stripped = line.strip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            fence, lang = stripped[:3], stripped[3:].strip().lower()
            prose[i] = ""
            continue
        if fence is not None:
            prose[i] = ""
            if stripped.startswith(fence):
                fence = None
                continue
            if lang in SHELL_LANGS and stripped.endswith("\\"):
                pending += stripped[:-1] + " "
                continue
            yield Snippet(page, i + 1, "block", pending + stripped, lang)
            pending = ""
        elif (
            line.startswith("    ")
            and stripped
            and (i == 0 or not prose[i - 1].strip() or prose[i - 1].startswith("    "))
        ):
            # an indented code block (four spaces after a blank line)
            if stripped.endswith("\\"):
                pending += stripped[:-1] + " "
            else:
                yield Snippet(page, i + 1, "block", pending + stripped, "bash")
                pending = ""
    body = "\n".join(prose)
    for m in re.finditer(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", body, re.S):
        span = m.group(2)
        if "\n\n" in span:
            continue
        line = body.count("\n", 0, m.start()) + 1
        yield Snippet(page, line, "span", " ".join(span.replace("\\|", "|").split()))
    for m in re.finditer(r"\]\(([^)\s]+)\)", body):
        yield Snippet(page, body.count("\n", 0, m.start()) + 1, "link", m.group(1))


@functools.cache
def all_snippets() -> tuple[Snippet, ...]:
    return tuple(s for page in DOCS for s in snippets(page))


def code(kinds: tuple[str, ...] = ("span", "block")) -> Iterator[Snippet]:
    return (s for s in all_snippets() if s.kind in kinds)


# ---------------------------------------------------------------------------- modules


def resolve_module(dotted: str) -> str | None:
    """None when ``reprokg.a.b[:attr]`` names a module (and attributes) that exist."""
    name, _, attr = dotted.partition(":")
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        rest = parts[cut:] + ([attr] if attr else [])
        for part in rest:
            if not hasattr(obj, part):
                return f"{'.'.join(parts[:cut])} has no {part!r}"
            obj = getattr(obj, part)
        return None
    return "no such module"


def module_names(s: Snippet) -> Iterator[str]:
    for m in re.finditer(r"(?<![\w./-])(reprokg(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*)?)", s.text):
        name = m.group(1).rstrip(".")
        if name not in NOT_MODULES and Path(name).suffix not in {".ttl", ".rq", ".py"}:
            yield name
    if s.kind != "link":
        for m in re.finditer(r"python -m ((?:benchmarks)(?:\.\w+)+)", s.text):
            yield m.group(1)


def repo_module_missing(dotted: str) -> str | None:
    base = REPO.joinpath(*dotted.split("."))
    if base.with_suffix(".py").is_file() or (base / "__main__.py").is_file():
        return None
    return "no such module in the repository"


def test_every_module_named_exists() -> None:
    bad = []
    for s in code(("span", "block", "link")):
        for name in module_names(s):
            why = resolve_module(name) if name.startswith("reprokg") else repo_module_missing(name)
            if why:
                bad.append(f"{s.where()}: {name}: {why}")
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------------------- commands


@functools.cache
def cli() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    from reprokg.cli import build_parser

    parser, _ = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return parser, dict(sub.choices)


def is_placeholder(token: str) -> bool:
    """An example the reader replaces: NAME, DIR|URL, <doc-id>, {id}, …"""
    core = token.strip("[](){}<>.,'\"")
    return (
        not core
        or core.isupper()
        or any(c in token for c in "<>{}…$*")
        or "..." in token
        or bool(re.fullmatch(r"[A-Z][A-Z0-9_|-]*", core))
    )


def reprokg_commands(s: Snippet) -> Iterator[list[str]]:
    """The argument lists given to ``reprokg`` in a span or shell line."""
    if s.kind == "block" and s.lang not in SHELL_LANGS:
        return
    text = s.text
    if s.kind == "block":
        text = re.split(r"(?:^|\s)#(?=\s|$)", text)[0]  # a shell comment
    try:
        tokens = shlex.split(text, comments=False, posix=True)
    except ValueError:
        tokens = text.split()
    for i, tok in enumerate(tokens):
        before = tokens[i - 1] if i else ""
        if tok != "reprokg" or not (
            i == 0 or before in SHELL_SEPARATORS or re.fullmatch(r"[A-Z_]+=\S*", before)
        ):
            continue
        args = []
        for t in tokens[i + 1 :]:
            if t in SHELL_SEPARATORS or t.startswith("#"):
                break
            args.append(t)
        yield args


def flags_of(token: str) -> list[str]:
    """``[--reml|--ml]`` → --reml, --ml; ``--param=k=v`` → --param; ``-o`` → -o."""
    out = []
    for part in token.strip("[]()").split("|"):
        part = part.strip("[]()")
        if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", part):
            out.append(part.split("=")[0])
    return out


def command_problems(args: list[str]) -> list[str]:
    parser, subs = cli()
    if not args:
        return []
    first = args[0]
    if first.startswith("-"):
        return [
            f"reprokg has no option {f}"
            for f in flags_of(first)
            if f not in parser._option_string_actions
        ]
    if is_placeholder(first) or first in ("…", "..."):
        return []
    if first.endswith(":"):  # a message it prints (`reprokg validate: …`), not a call
        return [] if first[:-1] in subs else [f"no command {first[:-1]!r}"]
    if first not in subs:
        return [f"no command {first!r}"]
    sp, rest = subs[first], args[1:]
    # a command with actions of their own (``reprokg evidence load``): the action's parser
    nested = [a for a in sp._actions if isinstance(a, argparse._SubParsersAction)]
    if nested:
        if not rest or is_placeholder(rest[0]) or rest[0] in ("…", "..."):
            return []
        if rest[0] not in nested[0].choices:
            return [f"reprokg {first} has no action {rest[0]!r}"]
        first, sp, rest = f"{first} {rest[0]}", nested[0].choices[rest[0]], rest[1:]
    return [
        f"reprokg {first} has no option {f}"
        for tok in rest
        for f in flags_of(tok)
        if f not in sp._option_string_actions
    ]


def test_every_command_and_option_named_exists() -> None:
    bad = []
    for s in code():
        for args in reprokg_commands(s):
            bad += [f"{s.where()}: {p}   [{s.text[:90]}]" for p in command_problems(args)]
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------------------- paths

TOP_LEVEL = {p.name for p in REPO.iterdir() if not p.name.startswith(".")} | {".ci"}


@functools.cache
def repo_files() -> tuple[str, ...]:
    skip = {".git", "__pycache__", "build", ".pytest_cache", ".ruff_cache", ".mypy_cache"}
    return tuple(
        p.relative_to(REPO).as_posix()
        for p in REPO.rglob("*")
        if not skip.intersection(p.relative_to(REPO).parts)
    )


def path_tokens(s: Snippet, prose: bool = False) -> Iterator[str]:
    """The paths a snippet may name; ``prose`` (a comment or docstring): only those with a
    folder (a bare ``ogb-clf.py`` there is usually another project's script); a page's
    running text (kind ``prose``): only a file with a folder (``docs/s`` is a rate)."""
    quoted = s.kind != "prose" and re.match(r"[A-Z][a-z]+ [a-z]", s.text)
    if s.kind == "link" or (not prose and quoted):
        return  # a link (checked apart) or a quoted sentence of a source (a survey question)
    arguments = prose or s.kind in ("block", "prose")  # a shell line's bare names are yours
    text = s.text.replace("*", " ") if s.kind == "prose" else s.text  # **bold**
    for tok in re.split(r"[\s,;()\[\]\"'`=]+", text):
        if arguments and "/" not in tok:
            continue
        tok = tok.rstrip(".:,)")
        tok = re.sub(r"::\w.*$", "", tok)  # tests/x.py::test_y
        tok = re.sub(r":\d+(-\d+)?$", "", tok)  # file.py:12
        if s.kind == "prose" and Path(tok.split("#")[0]).suffix not in SOURCE_SUFFIXES:
            continue
        if tok and "/" in tok or Path(tok).suffix in SOURCE_SUFFIXES:
            yield tok


def path_problem(tok: str) -> str | None:
    if "://" in tok or tok.startswith(("/", "../", "~", "./", "@", "-", "$")) or tok.count("/") > 8:
        return None
    if is_placeholder(tok) or any(c in tok for c in "?=+%!^&|\\"):
        return None
    clean = tok.split("#")[0].rstrip("/")
    clean = clean.removeprefix("reprokg/")  # the package's import name is the root
    if not clean or not re.fullmatch(r"[\w./-]+", clean):
        return None
    first = clean.split("/")[0]
    files = repo_files()
    if first in TOP_LEVEL or (first == clean and Path(clean).suffix in OUR_BARE_SUFFIXES):
        if "/" in clean:
            if (REPO / clean).exists():
                return None
            return "no such path in the repository"
        # a bare name: ours when some file of the repository has it
        if (REPO / clean).exists() or any(f.rsplit("/", 1)[-1] == clean for f in files):
            return None
        return "no file of this name in the repository"
    if Path(clean).suffix in {".py", ".rq", ".ttl"} and "/" in clean:
        # a path inside a package named from below the root (ir_metadata/loader.py)
        if any(f == clean or f.endswith("/" + clean) for f in files):
            return None
        return "no such path in the repository"
    return None


#: folders whose Python is not the package: the tests and the benchmark scripts
NOT_PACKAGE = {"tests", "benchmarks"}


@functools.cache
def package_files() -> tuple[Path, ...]:
    """Every .py of the package (the repository root), tests and benchmarks left out."""
    return tuple(
        REPO / f
        for f in repo_files()
        if f.endswith(".py") and f.split("/")[0] not in NOT_PACKAGE and "/" + f != "/setup.py"
    )


def python_snippets(path: Path, text: str | None = None) -> Iterator[Snippet]:
    """The comments and docstrings of a Python file, one snippet per line (of ``text`` as
    if it were that file, for the checks' tests)."""
    if text is None:
        text = path.read_text(encoding="utf-8")
    for t in tokenize.generate_tokens(iter(text.splitlines(keepends=True)).__next__):
        if t.type == tokenize.COMMENT:
            yield Snippet(path, t.start[0], "span", t.string.lstrip("#").strip())
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        body = node.body
        if not (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            continue
        first = body[0].lineno
        for i, line in enumerate(body[0].value.value.split("\n")):
            if line.strip():
                yield Snippet(path, first + i, "span", " ".join(line.split()))


def prose_snippets(page: Path, text: str | None = None) -> Iterator[Snippet]:
    """The running text of a page, one snippet per line: fenced and indented blocks, code
    spans and link targets blanked (they are snippets of their own)."""
    if text is None:
        text = page.read_text(encoding="utf-8")
    fence: str | None = None
    kept = []
    for line in text.split("\n"):
        stripped = line.strip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            kept.append("")
        elif fence is not None:
            fence = None if stripped.startswith(fence) else fence
            kept.append("")
        else:
            kept.append("" if line.startswith("    ") else line)
    body = re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), "\n".join(kept), flags=re.S)
    body = re.sub(r"\]\([^)\s]+\)", "]", body)
    for n, line in enumerate(body.split("\n"), 1):
        if line.strip():
            yield Snippet(page, n, "prose", line)


def test_every_repository_path_named_exists() -> None:
    """In the docs' code and running text, and in the comments and docstrings of the
    package's code (a docstring citing ``tests/test_x.py`` that had been renamed away
    misleads as a page does)."""
    bad = []
    named = [(s, False) for s in code()]
    named += [(s, False) for page in DOCS for s in prose_snippets(page)]
    named += [(s, True) for f in package_files() for s in python_snippets(f)]
    for s, prose in named:
        for tok in path_tokens(s, prose):
            why = path_problem(tok)
            if why:
                bad.append(f"{s.where()}: {tok}: {why}")
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------------- outside pointers

#: the project stands alone: nothing points to a file beside the repository (a design
#: note the team keeps, the shared data folder); the decisions the code relies on are in
#: docs/architecture.md (Design decisions). Tests may read the real data from beside the
#: repository (tests/conftest.py, REPROKG_SHARED_DATA); the package and its pages may not.
OUTSIDE = re.compile(r"\bDESIGN\.md\b|\.\./shared\b")
TEXT_SUFFIXES = {".md", ".py", ".rq", ".ttl", ".toml", ".yaml", ".yml", ".txt", ".cfg"}


def outside_pointers(where: str, text: str) -> list[str]:
    return [
        f"{where}:{n}: {m.group(0)}"
        for n, line in enumerate(text.splitlines(), 1)
        for m in OUTSIDE.finditer(line)
    ]


@functools.cache
def own_text_files() -> tuple[str, ...]:
    """The package's code and the pages: every text file outside tests/, and the .md of
    benchmarks/ (its scripts, like the tests, may default to the real data beside us)."""
    return tuple(
        f
        for f in repo_files()
        if Path(f).suffix in TEXT_SUFFIXES
        and f.split("/")[0] != "tests"
        and not (f.startswith("benchmarks/") and not f.endswith(".md"))
        and (REPO / f).is_file()
    )


def test_nothing_points_outside_the_repository() -> None:
    bad = []
    for f in own_text_files():
        bad += outside_pointers(f, (REPO / f).read_text(encoding="utf-8", errors="replace"))
    here = Path(__file__).resolve()
    for p in (REPO / "tests").rglob("*.py"):  # tests may name the data, never the note
        if p != here:
            text = p.read_text(encoding="utf-8", errors="replace")
            bad += [b for b in outside_pointers(str(p.relative_to(REPO)), text) if "DESIGN" in b]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("python", "stale"),
    [
        ('"""Checked by tests/loaders/test_nothing_here.py."""\n', "tests/loaders/"),
        ("x = 1  # see ir_metadata/no_such_module.py\n", "ir_metadata/no_such_module.py"),
        ('def f() -> None:\n    """As queries/no-such-query.rq says."""\n', "queries/"),
    ],
)
def test_a_stale_path_in_package_code_is_caught(python: str, stale: str) -> None:
    found = [
        tok
        for s in python_snippets(REPO / "ingest.py", python)
        for tok in path_tokens(s, prose=True)
        if path_problem(tok)
    ]
    assert any(stale in f for f in found), found


@pytest.mark.parametrize(
    ("page", "stale"),
    [
        ("As tests/loaders/test_gone.py checks, it holds.\n", "tests/loaders/test_gone.py"),
        ("The design is in docs/no-such-page.md (a section).\n", "docs/no-such-page.md"),
        ("Read **loaders/no_such_format.py**, then stop.\n", "loaders/no_such_format.py"),
    ],
)
def test_a_stale_path_in_a_page_is_caught(page: str, stale: str) -> None:
    found = [
        tok
        for s in prose_snippets(REPO / "README.md", page)
        for tok in path_tokens(s)
        if path_problem(tok)
    ]
    assert found == [stale]


def test_a_page_s_rates_code_and_real_paths_pass() -> None:
    page = (
        "At 1,215 docs/s and 26 CPU-s/doc, see docs/architecture.md#layers and\n"
        "reprokg/ontology/reference.py; `tests/not_here.py` is a span, [x](docs/nope.md) a link.\n"
        "```\nloaders/not_here.py\n```\n"
    )
    named = [tok for s in prose_snippets(REPO / "README.md", page) for tok in path_tokens(s)]
    assert named == ["docs/architecture.md#layers", "reprokg/ontology/reference.py"]
    assert all(path_problem(tok) is None for tok in named)


def test_a_real_path_in_package_code_passes() -> None:
    python = (
        '"""See tests/test_docs.py and core/settings.py."""\nx = 1  # loaders/reading/source.py\n'
    )
    named = [
        tok for s in python_snippets(REPO / "ingest.py", python) for tok in path_tokens(s, True)
    ]
    assert sorted(named) == ["core/settings.py", "loaders/reading/source.py", "tests/test_docs.py"]
    assert all(path_problem(tok) is None for tok in named)


@pytest.mark.parametrize(
    "text",
    [
        "(DESIGN" + ".md, Identifiers)",
        "in `.." + "/shared/data`",
        "see ../../shared/DESIGN" + ".md",
    ],
)
def test_a_pointer_outside_is_caught(text: str) -> None:
    assert outside_pointers("x.md", text)


def test_the_words_alone_pass() -> None:
    assert not outside_pointers("x.md", "the shared data, a design note, docs/architecture.md")


def github_anchor(heading: str) -> str:
    text = unicodedata.normalize("NFC", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@functools.cache
def anchors(page: Path) -> frozenset[str]:
    out, seen = set(), {}
    fence = False
    for line in page.read_text(encoding="utf-8").split("\n"):
        if line.strip().startswith("```"):
            fence = not fence
        if fence or not re.match(r"#{1,6} ", line):
            continue
        slug = github_anchor(line.lstrip("#"))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return frozenset(out)


def test_every_link_resolves() -> None:
    bad = []
    for s in code(("link",)):
        target = s.text
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto
        path, _, anchor = target.partition("#")
        dest = (s.page.parent / path).resolve() if path else s.page
        if not dest.exists():
            bad.append(f"{s.where()}: {target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{s.where()}: {target}: no heading #{anchor} in {dest.name}")
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------------------- routes and variables


@functools.cache
@functools.cache
def app() -> object:
    """The service's routes (over a store of its own: ./reprokg-data may be held by a
    test running beside this one)."""
    import tempfile

    from reprokg.core.settings import Settings
    from reprokg.service.app import create_app

    store = Path(tempfile.mkdtemp(prefix="reprokg-routes-")) / "store"
    return create_app(Settings(store=str(store)))


def route_problem(method: str | None, path: str) -> str | None:
    """None when the app routes ``method path`` (any method when None) somewhere."""
    from starlette.routing import Match

    path = re.sub(r"[?#].*$", "", path).rstrip(".,:")
    if not path.startswith("/") or any(c in path for c in "…*"):
        return None
    probe = re.sub(r"\{[^}]*\}", "x", path)
    if probe.endswith("/") and len(probe) > 1:
        probe += "x"  # `/id/`: the prefix of a route
    scope = {"type": "http", "path": probe, "method": method or "GET", "root_path": ""}
    for route in app().router.routes:  # type: ignore[attr-defined]
        match, _ = route.matches(scope)
        if match == Match.FULL or (match == Match.PARTIAL and method is None):
            return None
    return f"the service has no route {method or ''} {path}".replace("  ", " ")


def named_routes(s: Snippet) -> Iterator[tuple[str | None, str]]:
    for m in re.finditer(r"\b(GET|POST|DELETE|PUT) (/[^\s`'\"]*)", s.text):
        yield m.group(1), m.group(2)
    for m in re.finditer(r"https?://127\.0\.0\.1:8000(/[^\s`'\")]*)", s.text):
        method = "POST" if re.search(r"curl\b.*\s-(F|d|-data)\b", s.text) else None
        if "--data-urlencode" in s.text:
            method = None
        yield method, m.group(1)


def test_every_route_named_exists() -> None:
    bad = []
    for s in code(("span", "block", "link")):
        for method, path in named_routes(s):
            why = route_problem(method, path)
            if why:
                bad.append(f"{s.where()}: {why}")
    assert not bad, "\n".join(bad)


@functools.cache
def code_text() -> str:
    here = Path(__file__).resolve()
    files = [p for p in REPO.rglob("*.py") if ".git" not in p.parts and p != here]
    files.append(REPO / ".ci" / "run")
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)


@functools.cache
def known_variables() -> frozenset[str]:
    """The variables Settings reads (one per field, and file variables), and any other
    ``REPROKG_*`` the code names (the tests' ``REPROKG_SHARED_DATA``)."""
    from dataclasses import fields

    from reprokg.core import settings as s

    declared = {s.variable(f) for f in fields(s.Settings)}
    declared |= {f.metadata.get("file_variable") for f in fields(s.Settings)} - {None}
    named = set(re.findall(r"REPROKG_[A-Z0-9_]*[A-Z0-9]", code_text()))
    return frozenset(declared | named | EXAMPLE_VARIABLES)


def test_every_environment_variable_named_is_read() -> None:
    bad = []
    for s in code():
        for var in re.findall(r"REPROKG_[A-Z0-9]+(?:_[A-Z0-9]+)*", s.text):
            if var not in known_variables():
                bad.append(f"{s.where()}: {var}: nothing reads it")
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------------------- the checks can fail


@pytest.mark.parametrize(
    ("markdown", "stale"),
    [
        ("Use `reprokg.ir_metadata_export.graph_to_yaml(g, iri)`.", "reprokg.ir_metadata_export"),
        ("## Settings (`service/settings.py`)", "service/settings.py"),
        ("the CLI is `cli_compare.py`", "cli_compare.py"),
        ("run `reprokg compare --charts OUT/`", "--charts"),
        ("run `reprokg frobnicate`", "frobnicate"),
        ("see [the page](docs/nothing.md)", "docs/nothing.md"),
        ("see [the page](docs/service.md#no-such-heading)", "no-such-heading"),
        ("`GET /nothing/here`", "/nothing/here"),
        ("`REPROKG_NO_SUCH_SETTING=1`", "REPROKG_NO_SUCH_SETTING"),
        ("`python -m benchmarks.nothing.run`", "benchmarks.nothing"),
    ],
)
def test_a_stale_name_is_caught(markdown: str, stale: str) -> None:
    page = REPO / "README.md"  # links resolve from the root, as the README's do
    found = []
    for s in snippets(page, markdown):
        for name in module_names(s):
            why = resolve_module(name) if name.startswith("reprokg") else repo_module_missing(name)
            found += [name] if why else []
        for args in reprokg_commands(s):
            found += command_problems(args)
        for tok in path_tokens(s):
            found += [tok] if path_problem(tok) else []
        for method, path in named_routes(s):
            found += [path] if route_problem(method, path) else []
        found += [v for v in re.findall(r"REPROKG_\w+", s.text) if v not in known_variables()]
        if s.kind == "link":
            path, _, anchor = s.text.partition("#")
            dest = REPO / path
            if not dest.exists() or (anchor and anchor not in anchors(dest)):
                found.append(s.text)
    assert any(stale in f for f in found), found


def test_real_names_pass() -> None:
    page = REPO / "README.md"
    text = (
        "`reprokg.loaders.ir_metadata.export.graph_to_yaml`, `core/settings.py`, "
        "`reprokg stability --study ID [--reml|--ml]`, `GET /documents/{id}`, "
        "`REPROKG_WRITE_TOKEN`, [the service](docs/service.md#web-views-serviceweb)"
    )
    for s in snippets(page, text):
        for name in module_names(s):
            assert resolve_module(name) is None, name
        for args in reprokg_commands(s):
            assert command_problems(args) == [], args
        for tok in path_tokens(s):
            assert path_problem(tok) is None, tok
        for method, path in named_routes(s):
            assert route_problem(method, path) is None, path


def test_readme_stays_a_first_hour_page() -> None:
    """Issue 27: the README had grown to 1,500 lines, 45 % benchmark logs. Feature detail
    goes to docs/, figures to benchmarks/README.md; the README keeps what a newcomer needs."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    for page in ("benchmarks/README.md", "docs/architecture.md"):
        assert f"]({page})" in readme, f"the README links {page}"


# ------------------------------------------- figures and issue numbers in the package's code

#: a figure measured once (``~0.1 s here``, ``40–180 ms``, ``3x faster``, ``214 headers/s``):
#: it ages where nobody reruns it, so the code says why and links benchmarks/README.md
#: (Figures once quoted in code); a setting's unit (``2 s*`` of a formula, ``4 KB``) is no
#: measurement
_FIGURE = r"\d[\d,]*(?:\.\d+)?"
MEASUREMENT = re.compile(
    rf"(?<![\w.])~?{_FIGURE}(?:\s*[–-]\s*{_FIGURE})?\s+(?:s|ms|µs|us|min)\b(?![*\w])"
    rf"|(?<![\w.])~?{_FIGURE}(?:ms|µs)\b"
    rf"|(?<![\w.])~?{_FIGURE}\s*[x×]\s+(?:faster|slower|less|more|the|a|as)\b"
    rf"|{_FIGURE}\s*%\s+of\s+(?:the\s+command|validating|its\s+time|the\s+time)\b"
    rf"|\b{_FIGURE}\s*(?:headers|documents|records|lines|req)/s\b"
)
#: an issue of this project cited for a reason (``issue 28``, ``#38``): the reason itself
#: belongs in the code, the tracker is not part of the project
ISSUE_NUMBER = re.compile(r"\bissues?\s+#?\d+|(?<![\w/&#])#\d{1,4}\b", re.IGNORECASE)


def quoted(pattern: re.Pattern[str], snippets: Iterable[Snippet]) -> list[str]:
    return [f"{s.where()}: {s.text}" for s in snippets if pattern.search(s.text)]


@pytest.mark.parametrize("pattern", [MEASUREMENT, ISSUE_NUMBER], ids=["figures", "issues"])
def test_no_measurements_or_issue_numbers_in_package_code(pattern: re.Pattern[str]) -> None:
    bad = quoted(pattern, (s for f in package_files() for s in python_snippets(f)))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("python", "pattern"),
    [
        ("x = 1  # ~0.1 s here\n", MEASUREMENT),
        ('"""Checkpoints take 40–180 ms at 1M triples."""\n', MEASUREMENT),
        ("x = 1  # 1.6x faster than the regex\n", MEASUREMENT),
        ("x = 1  # unrolled: 3× less work\n", MEASUREMENT),
        ("x = 1  # 214 headers/s at 10k\n", MEASUREMENT),
        ("x = 1  # takes 3 s\n", MEASUREMENT),
        ("x = 1  # ~25% of validating a batch\n", MEASUREMENT),
        ("x = 1  # a 500 (issue 28)\n", ISSUE_NUMBER),
        ('"""As issues 27 and 31 asked."""\n', ISSUE_NUMBER),
        ("x = 1  # see #38\n", ISSUE_NUMBER),
    ],
)
def test_a_figure_or_issue_number_in_code_is_caught(python: str, pattern: re.Pattern[str]) -> None:
    assert quoted(pattern, python_snippets(REPO / "ingest.py", python))


def test_units_and_links_alone_pass() -> None:
    python = (
        '"""CV = 100 s* / mean; the first 4 KB; six 0.2s; a 5-second limit; 10^4 x 50;\n'
        'to ~1e-15."""\n'
        "x = 1  # benchmarks/README.md#figures-once-quoted-in-code, oxigraph/issues/1926\n"
    )
    snippets = list(python_snippets(REPO / "ingest.py", python))
    assert not quoted(MEASUREMENT, snippets)
    assert not quoted(ISSUE_NUMBER, snippets)
