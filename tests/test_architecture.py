"""The layout is the architecture (docs/architecture.md): each layer imports only itself and
the layers below it, no module imports another in a cycle, configuration is read in one
place, and our own modules are never imported behind ``except ImportError``.

Imports inside functions count: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

#: the layers, lowest first; a module may import its own layer and the ones before it
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("ontology",),
    ("loaders",),
    ("validation",),
    ("store",),
    ("ingest",),
    ("sparql",),
    ("measures",),
    ("survey", "stability", "intrinsic_dimension", "studies"),
    ("service",),
    ("cli",),
)
#: top-level entries that are not part of the package's code
NOT_CODE = {"tests", "benchmarks", "examples", "docs", "shapes", "queries", "build", ".git"}
#: standalone scripts kept with their data (they import nothing of ours)
SCRIPTS = {"ontology/imports/build_subsets.py"}


def _rank() -> dict[str, int]:
    return {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(REPO.rglob("*.py")):
        rel = path.relative_to(REPO)
        if rel.parts[0] in NOT_CODE or str(rel) in SCRIPTS:
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(["reprokg", *parts]), path


def _imports(path: Path, module: str) -> Iterator[tuple[str, int]]:
    """(imported reprokg module, line) for every import in the file, at any depth."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("reprokg"):
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            if not name.startswith("reprokg"):
                continue
            # ``from reprokg.x import y`` may name a submodule y
            for alias in node.names:
                yield f"{name}.{alias.name}", node.lineno
            yield name, node.lineno


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _known(module: str, modules: set[str]) -> str | None:
    """The longest of our module names ``module`` is or lies in (``x.y.Name`` -> ``x.y``)."""
    while module and module not in modules:
        module = module.rpartition(".")[0]
    return module or None


def test_layers_only_import_downwards() -> None:
    rank = _rank()
    modules = dict(_modules())
    unplaced = sorted({_layer(m) for m in modules} - set(rank) - {None, "__main__"})
    assert not unplaced, f"top-level packages/modules in no layer: {unplaced}"
    upward = []
    for module, path in modules.items():
        here = _layer(module)
        if here is None or here == "__main__":
            continue  # reprokg/__init__ (the version) and python -m reprokg
        for imported, line in _imports(path, module):
            target = _known(imported, set(modules))
            there = _layer(target) if target else None
            if there is None or there == "__main__":
                continue  # ``from reprokg import __version__``
            if rank[there] > rank[here]:
                upward.append(f"{path.relative_to(REPO)}:{line} imports {imported} ({there})")
    assert not upward, "imports that go up a layer:\n" + "\n".join(sorted(set(upward)))


def test_no_import_cycles() -> None:
    modules = dict(_modules())
    names = set(modules)
    graph: dict[str, set[str]] = {m: set() for m in names}
    for module, path in modules.items():
        for imported, _ in _imports(path, module):
            target = _known(imported, names)
            if target and target != module and target != "reprokg":
                graph[module].add(target)
    # every module's package __init__ is imported first; it is not an edge of the module
    cycles: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycles.append([*stack[stack.index(n) :], n])
            elif n not in state:
                visit(n, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_environment_is_read_in_one_place() -> None:
    """Only core/settings.py reads ``REPROKG_*`` (os.environ / os.getenv); others use
    :func:`reprokg.core.settings.settings`."""
    readers = []
    for module, path in _modules():
        if module == "reprokg.core.settings":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            reads = (
                isinstance(node, ast.Attribute)
                and node.attr in ("getenv", "environ")
                and isinstance(node.value, ast.Name)
                and node.value.id == "os"
            )
            if reads:
                readers.append(f"{path.relative_to(REPO)}:{node.lineno}")
    # ``reprokg serve`` hands its settings to worker processes through the environment
    assert readers == ["cli/serve.py:" + str(_serve_env_line())], readers


def _serve_env_line() -> int:
    text = (REPO / "cli" / "serve.py").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(text, 1) if "os.environ.update(" in line)


def _imports_ours(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        return bool(node.level) or (node.module or "").startswith("reprokg")
    return isinstance(node, ast.Import) and any(a.name.startswith("reprokg") for a in node.names)


def test_no_import_error_guards_around_our_modules() -> None:
    guarded = []
    for _, path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Try):
                continue
            catches_import_error = any(
                isinstance(h.type, ast.Name)
                and h.type.id in ("ImportError", "Exception")
                or isinstance(h.type, ast.Tuple)
                and any(isinstance(e, ast.Name) and e.id == "ImportError" for e in h.type.elts)
                for h in node.handlers
                if h.type is not None
            )
            imports_ours = any(_imports_ours(n) for stmt in node.body for n in ast.walk(stmt))
            if catches_import_error and imports_ours:
                guarded.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not guarded, f"our modules imported behind except ImportError: {guarded}"


@pytest.mark.parametrize("backend", ["OxigraphStore", "RemoteStore"])
def test_callers_check_capabilities_not_backends(backend: str) -> None:
    """Outside store/, code asks ``isinstance(store, NativeQueries)`` (store/base.py), never
    for a backend class."""
    users = []
    for module, path in _modules():
        if _layer(module) == "store":
            continue
        text = path.read_text(encoding="utf-8")
        if backend in text:
            users.append(str(path.relative_to(REPO)))
    assert not users, f"{backend} named outside store/: {users}"


def test_no_private_names_across_modules() -> None:
    """``from reprokg.x import _name`` reaches into another module's internals."""
    private = []
    for _, path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("reprokg"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        private.append(f"{path.relative_to(REPO)}:{node.lineno} {alias.name}")
    assert not private, private
