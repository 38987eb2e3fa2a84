"""The layout is the architecture (docs/architecture.md): each layer imports only itself and
the layers below it, no module imports another in a cycle, configuration is read in one
place, and our own modules are never imported behind ``except ImportError``.

Imports inside functions count: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

#: the layers, lowest first; a module may import its own layer and the ones before it
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("stats",),
    ("ontology",),
    ("loaders",),
    ("validation",),
    ("store",),
    ("ingest",),
    ("sparql",),
    ("measures",),
    ("survey", "stability", "intrinsic_dimension", "studies", "evidence"),
    ("exchange",),
    ("service",),
    ("api",),
    ("cli",),
)
#: top-level entries that are not part of the package's code
NOT_CODE = {"tests", "benchmarks", "examples", "docs", "shapes", "queries", "build", ".git"}
#: standalone scripts kept with their data (they import nothing of ours)
SCRIPTS = {"ontology/imports/build_subsets.py"}


def _rank() -> dict[str, int]:
    return {name: i for i, layer in enumerate(LAYERS) for name in layer}


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The parsed module (parsed once for all the checks of this file)."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@functools.cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the module (walked once for all the checks of this file)."""
    return tuple(ast.walk(_tree(path)))


def _modules() -> Iterator[tuple[str, Path]]:
    yield from _module_list()


@functools.cache
def _module_list() -> tuple[tuple[str, Path], ...]:
    return tuple(_find_modules())


def _find_modules() -> Iterator[tuple[str, Path]]:
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
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in _nodes(path):
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
            continue  # reprokg/__init__ (the version, the lazy API) and python -m reprokg
        for imported, line in _imports(path, module):
            target = _known(imported, set(modules))
            there = _layer(target) if target else None
            if there is None or there == "__main__":
                continue  # ``from reprokg import __version__``
            if rank[there] > rank[here]:
                upward.append(f"{path.relative_to(REPO)}:{line} imports {imported} ({there})")
    assert not upward, "imports that go up a layer:\n" + "\n".join(sorted(set(upward)))


def test_nothing_imports_the_python_api() -> None:
    """``api.py`` is an adapter like cli/ and service/ (docs/architecture.md): it calls the
    domain and nothing calls it; only the package's ``__init__`` re-exports it (lazily)."""
    importers = [
        f"{path.relative_to(REPO)}:{line}"
        for module, path in _modules()
        if module not in ("reprokg", "reprokg.api")
        for imported, line in _imports(path, module)
        if imported == "reprokg.api" or imported.startswith("reprokg.api.")
    ]
    assert not importers, f"modules that import the Python API: {importers}"
    adapters = [
        f"api.py:{line} imports {imported}"
        for imported, line in _imports(REPO / "api.py", "reprokg.api")
        if imported.startswith(("reprokg.service", "reprokg.cli"))
    ]
    assert not adapters, f"the Python API calls another adapter: {adapters}"


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


def _os_environ(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr in ("getenv", "environ")
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _library_defaults(path: Path) -> set[int]:
    """``os.environ`` nodes of ``os.environ.setdefault(NAME, …)`` calls whose NAME is not
    ours: a default for a library the process loads (``OPENBLAS_NUM_THREADS``), which
    never overrides the user and configures nothing of reprokg."""
    allowed = set()
    for node in _nodes(path):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "setdefault"
            and _os_environ(node.func.value)
            and node.args
            and not (
                isinstance(node.args[0], ast.Constant)
                and str(node.args[0].value).startswith("REPROKG_")
            )
        ):
            allowed.add(id(node.func.value))
    return allowed


def test_the_environment_is_read_in_one_place() -> None:
    """Only core/settings.py reads ``REPROKG_*`` (os.environ / os.getenv); others use
    :func:`reprokg.core.settings.settings`."""
    readers = []
    for module, path in _modules():
        if module == "reprokg.core.settings":
            continue
        allowed = _library_defaults(path)
        for node in _nodes(path):
            if _os_environ(node) and id(node) not in allowed:
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
        for node in _nodes(path):
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
        for node in _nodes(path):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("reprokg"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        private.append(f"{path.relative_to(REPO)}:{node.lineno} {alias.name}")
    assert not private, private


# ------------------------------------------------------------ dependencies' internals fenced

#: a package whose internals we reach into -> the one module of ours that does it
#: (tests/test_dependency_patches.py checks each patch takes effect; pyproject.toml bounds
#: each package to the versions the patch was written for)
PATCH_MODULES = {
    "rdflib": "core/lazy_graph.py",
    "pyshacl": "validation/pyshacl_engine.py",
    "uvicorn": "service/http.py",
}
#: a name-mangled private attribute of some class (``_Memory__spo``)
_MANGLED = re.compile(r"^_[A-Z]\w*__\w+$")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _third_party(module: str) -> str | None:
    top = module.split(".")[0]
    if not top or top == "reprokg" or top in sys.stdlib_module_names:
        return None
    return top


def _dependency_names(tree: ast.AST) -> dict[str, str]:
    """Local name -> third-party package, for every module or class imported by name."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if package := _third_party(alias.name):
                    names[alias.asname or alias.name.split(".")[0]] = package
        elif (
            isinstance(node, ast.ImportFrom)
            and not node.level
            and (package := _third_party(node.module or ""))
        ):
            for alias in node.names:
                names[alias.asname or alias.name] = package
    return names


def _reaches_in(path: Path) -> Iterator[tuple[str | None, int, str]]:
    """(package or None when unknown, line, what) for each reach into a dependency's
    internals: a private module or name imported, a private attribute read or a public one
    assigned on something imported, a name-mangled attribute of a class not ours."""
    deps = _dependency_names(_tree(path))
    for node in _nodes(path):
        if isinstance(node, ast.ImportFrom) and not node.level:
            package = _third_party(node.module or "")
            parts = (node.module or "").split(".")
            if package and any(_private(p) for p in parts):
                yield package, node.lineno, f"from {node.module} import"
            for alias in node.names:
                if package and _private(alias.name):
                    yield package, node.lineno, f"from {node.module} import {alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                package = _third_party(alias.name)
                if package and any(_private(p) for p in alias.name.split(".")):
                    yield package, node.lineno, f"import {alias.name}"
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            package = deps.get(node.value.id)
            if package and _private(node.attr):
                yield package, node.lineno, f"{node.value.id}.{node.attr}"
            elif package and isinstance(node.ctx, ast.Store):
                yield package, node.lineno, f"{node.value.id}.{node.attr} = ..."
        if isinstance(node, ast.Attribute | ast.FunctionDef | ast.Constant):
            name = (
                node.attr
                if isinstance(node, ast.Attribute)
                else node.name
                if isinstance(node, ast.FunctionDef)
                else node.value
            )
            if isinstance(name, str) and _MANGLED.match(name):
                owner = name[1:].split("__", 1)[0]
                if owner not in _our_classes():
                    yield None, node.lineno, name


@functools.cache
def _our_classes() -> frozenset[str]:
    return frozenset(
        node.name
        for _, path in _modules()
        for node in _nodes(path)
        if isinstance(node, ast.ClassDef)
    )


def test_dependency_internals_only_in_their_patch_module() -> None:
    """A private name of rdflib, pyshacl, uvicorn … (``_Memory__spo``,
    ``SPARQLBasedConstraint._validate_sparql_query``, ``from yaml._yaml import``) or an
    assignment onto one of their modules or classes appears only in the one module that
    patches that package (PATCH_MODULES)."""
    patch_paths = {REPO / m: p for p, m in PATCH_MODULES.items()}
    outside = []
    for _, path in _modules():
        for package, line, what in _reaches_in(path):
            allowed = patch_paths.get(path)
            if allowed is None or (package is not None and package != allowed):
                outside.append(f"{path.relative_to(REPO)}:{line} {what} ({package or '?'})")
    assert not outside, "dependency internals outside their patch module:\n" + "\n".join(outside)


def test_the_private_name_check_sees_what_it_must(tmp_path: Path) -> None:
    """The check above on a module that does each thing it forbids."""
    sample = tmp_path / "reach_sample.py"
    sample.write_text(
        "from pyshacl.constraints.sparql.sparql_based_constraints import SPARQLBasedConstraint\n"
        "from yaml._yaml import CParser\n"
        "from pyshacl import shape\n"
        "x = SPARQLBasedConstraint._validate_sparql_query\n"
        "shape.CONSTRAINT_PARAMS = None\n"
        "def f(g):\n"
        "    return getattr(g.store, '_Memory__spo', None)\n",
        encoding="utf-8",
    )
    found = [(p, line) for p, line, _ in _reaches_in(sample)]
    assert found == [("yaml", 2), ("pyshacl", 4), ("pyshacl", 5), (None, 7)]


def _duck_typed_store_checks(path: Path) -> Iterator[int]:
    """Lines that ask a store for an attribute by name (``hasattr(store, "x")``,
    ``getattr(store, "x", None)``) instead of checking a capability with isinstance."""
    for node in _nodes(path):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("hasattr", "getattr")
            and node.args
        ):
            target = node.args[0]
            name = (
                target.id
                if isinstance(target, ast.Name)
                else target.attr
                if isinstance(target, ast.Attribute)
                else ""
            )
            asked = node.args[1] if len(node.args) > 1 else None
            if isinstance(asked, ast.Constant) and _MANGLED.match(str(asked.value)):
                continue  # rdflib's Graph.store (the private-name check covers it)
            if "store" in name.lower():
                yield node.lineno


def test_store_capabilities_are_checked_with_isinstance() -> None:
    """``hasattr(store, "native_query")`` works for any object with the name; a capability
    is an interface in store/base.py, checked with ``isinstance(store, NativeQueries)``."""
    found = [
        f"{path.relative_to(REPO)}:{line}"
        for _, path in _modules()
        for line in _duck_typed_store_checks(path)
    ]
    assert not found, f"duck-typed store checks: {found}"


# ------------------------------------------------------------ one RDF parser

#: the one module that calls rdflib's ``parse``: it resolves nothing outside the text it is
#: given (no JSON-LD context fetched, no XML DTD or entity), docs/architecture.md
RDF_PARSE_MODULE = "core/rdf_parse.py"


def _not_rdflib(receiver: ast.expr, deps: dict[str, str]) -> bool:
    """A ``.parse`` receiver that is not rdflib: pyoxigraph's module (``ox.parse``: no JSON-LD
    document loader is ever set, tests/core/test_rdf_parse.py), the service's parse pool
    (uploads to the loaders, in workers), a classmethod of our own (``cls.parse``) or the
    standard library's Python parser (``ast.parse``)."""
    if isinstance(receiver, ast.Name) and deps.get(receiver.id) == "pyoxigraph":
        return True
    text = ast.unparse(receiver)
    return text in ("cls", "ast") or text.endswith("parse_pool")


def _rdflib_parse_calls(path: Path) -> Iterator[int]:
    deps = _dependency_names(_tree(path))
    for node in _nodes(path):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "parse"
            and not _not_rdflib(node.func.value, deps)
        ):
            yield node.lineno


def test_rdf_is_parsed_in_one_module() -> None:
    """Every rdflib ``Graph.parse`` goes through core/rdf_parse.py (``parse_rdf``, or
    ``parse_package_file`` for the package's own Turtle): a ``g.parse(...)`` elsewhere
    would fetch a JSON-LD document's contexts or expand an RDF/XML DTD."""
    found = [
        f"{path.relative_to(REPO)}:{line}"
        for _, path in _modules()
        if path != REPO / RDF_PARSE_MODULE
        for line in _rdflib_parse_calls(path)
    ]
    assert not found, "rdflib parse outside core/rdf_parse.py:\n" + "\n".join(found)


def test_the_rdf_parse_check_sees_what_it_must(tmp_path: Path) -> None:
    """The check above on a module that does each thing it forbids, and each it allows."""
    sample = tmp_path / "parse_sample.py"
    sample.write_text(
        "import pyoxigraph as ox\n"
        "import rdflib\n"
        "from rdflib import Graph\n"
        "g = Graph().parse(data='x', format='json-ld')\n"
        "g.parse('f.ttl')\n"
        "rdflib.Dataset().parse(data='x', format='nquads')\n"
        "Graph.parse(g, data='x')\n"
        "ox.parse(b'', ox.RdfFormat.TURTLE)\n"
        "request.app.state.parse_pool.parse([], None)\n",
        encoding="utf-8",
    )
    assert list(_rdflib_parse_calls(sample)) == [4, 5, 6, 7]


def test_views_are_read_through_domain_functions_not_routes() -> None:
    """A read model (what a view shows) is a domain function: nothing outside ``service/``
    imports a route or a web module (the passport's CLI, crate and page all read
    ``reprokg.evidence``)."""
    found = []
    for module, path in _modules():
        if _layer(module) == "service":
            continue
        for name, line in _imports(path, module):
            if name.startswith(("reprokg.service.routes", "reprokg.service.web")):
                found.append(f"{path.relative_to(REPO)}:{line}: {name}")
    assert found == []


#: what writes documents into the store (``ingest.py``): called only by the adapters
STORE_WRITERS = {"write_result", "write_results", "ingest", "ingest_walk", "ingest_paths"}
#: the layers that decide to store what a user asked for; every other package computes
WRITING_LAYERS = {"cli", "service", "api"}
#: the adapter whose ``save`` and ``load`` are the Python names of ``--save`` and ``reprokg load``
#: (each calls ingest's writer; it stores nothing another way)
PYTHON_API = "api"
#: a saver by its name: a second way to store a result beside ``ingest.write_result``
_SAVER = re.compile(r"^(save|store_result|write_results?)(_|$)")


def _store_writes(path: Path) -> Iterator[tuple[int, str]]:
    """Calls of a store writer, and definitions of a saver or of anything returning what
    ingest returns (``DocumentOutcome``, ``IngestResult``)."""
    for node in _nodes(path):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in STORE_WRITERS:
                yield node.lineno, f"calls {name}"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            returns = ast.unparse(node.returns) if node.returns is not None else ""
            if _SAVER.match(node.name) or re.search(r"\b(DocumentOutcome|IngestResult)\b", returns):
                yield node.lineno, f"defines {node.name}"


def test_results_are_stored_one_way() -> None:
    """``ingest.write_result`` is the one way a computed result is stored (docs/architecture.md,
    Design decisions, Data flow): no package defines a saver of its own, and only the
    adapters (``cli/``, ``service/``, the Python API ``api.py``) call ingest's writers — an
    analysis package computes its result, the command, route or API call that asked stores
    it. The API's ``save`` and ``load`` are defined there as what its users call."""
    found = [
        f"{path.relative_to(REPO)}:{line}: {what}"
        for module, path in _modules()
        if module != "reprokg.ingest"
        for line, what in _store_writes(path)
        if (what.startswith("defines") and _layer(module) != PYTHON_API)
        or _layer(module) not in WRITING_LAYERS
    ]
    assert found == [], "a second way to store a result:\n" + "\n".join(found)


def test_the_store_writes_check_sees_what_it_must(tmp_path: Path) -> None:
    """The check above on a module that does each thing it looks for, and each it allows."""
    sample = tmp_path / "saver_sample.py"
    sample.write_text(
        "from reprokg import ingest\n"
        "from reprokg.ingest import DocumentOutcome, write_result\n"
        "def save_comparison(store, study) -> str:\n"
        "    return str(write_result(store, study).subject)\n"
        "def keep(store, result) -> DocumentOutcome:\n"
        "    return ingest.write_results(store, [result.document()]).documents[0]\n"
        "def save(store, docs):\n"
        "    ingest.ingest(store, docs)\n"
        "def stored_answer(result, outcome: DocumentOutcome) -> dict:\n"
        "    return {'status': outcome.status, 'store': store_location(result)}\n",
        encoding="utf-8",
    )
    assert sorted(_store_writes(sample)) == [
        (3, "defines save_comparison"),
        (4, "calls write_result"),
        (5, "defines keep"),
        (6, "calls write_results"),
        (7, "defines save"),
        (8, "calls ingest"),
    ]


#: the builders of a Document: a source's (the loader contract), a computed result's, and
#: the one that rebuilds a document sent through a pipe (``core.document.unpack``)
DOCUMENT_BUILDERS = {"loaders/reading/contract.py", "core/computed.py", "core/document.py"}


BUILT_BY_HAND = ("Document", "document.Document")


def _documents_built(path: Path) -> Iterator[int]:
    for node in _nodes(path):
        if isinstance(node, ast.Call) and ast.unparse(node.func) in BUILT_BY_HAND:
            yield node.lineno


def test_documents_are_built_by_the_builders() -> None:
    """A computed result's document is made by ``core.results.result_document`` (with its
    provenance), a source's by ``LoaderInfo.document``: a ``Document(...)`` written by hand
    elsewhere (a dispute was) skips the computation's ``prov:Activity``."""
    found = [
        f"{path.relative_to(REPO)}:{line}"
        for _, path in _modules()
        if str(path.relative_to(REPO)) not in DOCUMENT_BUILDERS
        for line in _documents_built(path)
    ]
    assert found == [], "a Document built by hand:\n" + "\n".join(found)


def test_the_document_builder_check_sees_what_it_must(tmp_path: Path) -> None:
    """The check above on a module that builds a document by hand, and one that does not."""
    sample = tmp_path / "document_sample.py"
    sample.write_text(
        "from reprokg.core import document\n"
        "from reprokg.core.document import Document\n"
        "a = Document(kind='x', graph=g, source_name='s', source_bytes=b'')\n"
        "b = document.Document(kind='x', graph=g, source_name='s', source_bytes=b'')\n"
        "c = result.document()\n"
        "d = LoadedDocument(a)\n",
        encoding="utf-8",
    )
    assert sorted(_documents_built(sample)) == [3, 4]
