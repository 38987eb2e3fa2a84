"""Test collections named by their ir_datasets id, from the ``ir-datasets`` package's catalogue.

A run header names its test collection as ``data.test collection.ir_datasets``
(``https://ir-datasets.com/nyt``), a qrels file in a comment line, a user on the command
line (``--param collection=nyt``). A collection the ir_datasets catalogue knows is the IRI
``https://ir-datasets.com/<id>`` however it was written, so what a user passes and what
reprokg prints are the same name; any other collection keeps a node minted from its name
(``{base}collection/{hash}``).

The catalogue is ``loaders/data/ir_datasets.json``: the dataset ids and their documents,
queries and qrels counts as the package's own ``ir_datasets/etc/metadata.json`` states them
(the licence file the package ships, Apache-2.0, though its classifier says MIT:
``loaders/data/LICENSE.ir_datasets``), bundled so nothing is fetched at run
time. Regenerate it from an installed ``ir-datasets`` with
``python -m reprokg.loaders.ir_datasets`` (it prints the version and the number of ids).
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reprokg.core.resources import data_dir

if TYPE_CHECKING:
    from rdflib import URIRef

#: the IRI prefix of a collection the catalogue knows (how ir_metadata headers write one)
IR_DATASETS = "https://ir-datasets.com/"
CATALOGUE = "ir_datasets.json"


@functools.cache
def catalogue() -> dict[str, dict[str, Any]]:
    """ir_datasets id -> its counts (``docs``, ``queries``, ``qrels`` where stated)."""
    data = json.loads(data_dir("loaders").joinpath("data", CATALOGUE).read_text("utf-8"))
    datasets: dict[str, dict[str, Any]] = data["datasets"]
    return datasets


def dataset_id(text: str) -> str:
    """An ir_datasets id as written (``nyt``, ``https://ir-datasets.com/nyt``,
    ``ir-datasets.com/nyt.html``), reduced to the id it spells (not checked)."""
    t = text.strip().rstrip("/")
    low = t.lower()
    for prefix in ("https://", "http://", "www.", "ir-datasets.com/"):
        if low.startswith(prefix):
            t, low = t[len(prefix) :], low[len(prefix) :]
    return t.removesuffix(".html")


def known_id(text: str) -> str | None:
    """The catalogue's id for ``text`` when the ir_datasets catalogue lists it."""
    ident = dataset_id(text)
    known = catalogue()
    if ident in known:
        return ident
    return ident.lower() if ident.lower() in known else None


def collection_iri(collection: str) -> URIRef:
    """The test collection node shared by every run header and qrels document naming it:
    ``https://ir-datasets.com/<id>`` for an id of the catalogue, else minted from the name."""
    from rdflib import URIRef  # here: naming a collection (display_name) needs no rdflib

    from reprokg.core.hashing import stable_key
    from reprokg.core.identifiers import mint

    ident = known_id(collection)
    if ident is not None:
        return URIRef(IR_DATASETS + ident)
    return mint("collection", stable_key("test-collection", collection.strip()))


def display_name(collection: str) -> str:
    """How a collection reads: its ir_datasets id (``nyt``) when the catalogue lists it,
    else the name as written."""
    return known_id(collection) or collection.strip()


def _refresh(target: Path) -> int:
    """Write the catalogue from the installed ``ir-datasets`` package's metadata."""
    from importlib import metadata, util

    # found, not imported: the package's import pulls in its many dependencies
    spec = util.find_spec("ir_datasets")
    if spec is None or not spec.submodule_search_locations:
        print("ir-datasets is not installed (pip install ir-datasets)", file=sys.stderr)
        return 1
    folder = Path(next(iter(spec.submodule_search_locations)))
    meta = json.loads((folder / "etc" / "metadata.json").read_text("utf-8"))

    def count(entry: dict[str, Any], part: str) -> int | None:
        seen: set[str] = set()
        while isinstance(entry.get(part), dict) and "_ref" in entry[part]:
            ref = entry[part]["_ref"]
            if ref in seen or ref not in meta:
                return None
            seen.add(ref)
            entry = meta[ref]
        value = entry.get(part, {}).get("count") if isinstance(entry.get(part), dict) else None
        return value if isinstance(value, int) else None

    datasets = {}
    for ident in sorted(meta):
        counts = {p: count(meta[ident], p) for p in ("docs", "queries", "qrels")}
        datasets[ident] = {p: n for p, n in counts.items() if n is not None}
    version = metadata.version("ir-datasets")
    head = {
        "source": f"ir-datasets {version}, ir_datasets/etc/metadata.json",
        "licence": "LICENSE.ir_datasets",
    }
    lines = [json.dumps(head)[:-1] + ', "datasets": {']  # one line per dataset: small diffs
    lines += [f"{json.dumps(i)}: {json.dumps(c, sort_keys=True)}," for i, c in datasets.items()]
    lines[-1] = lines[-1].rstrip(",")
    target.write_text("\n".join([*lines, "}}"]) + "\n", encoding="utf-8")
    print(f"ir-datasets {version}: {len(datasets)} ids -> {target}")
    return 0


if __name__ == "__main__":  # pragma: no cover - the maintainer's regeneration step
    sys.exit(_refresh(Path(__file__).parent / "data" / CATALOGUE))
