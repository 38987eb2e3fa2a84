"""ir_metadata (PRIMAD) run headers: the loader (:mod:`.loader`), the YAML export back from
the graph (:mod:`.export`) and annotating run files with headers (:mod:`.annotate`).

The package is the registered loader of kind ``run``: it exposes ``KIND``, ``sniff`` and
``load`` of :mod:`.loader`.
"""

from reprokg.loaders.ir_metadata.loader import KIND, LOADER_NAME, LOADER_VERSION, load, sniff

__all__ = ["KIND", "LOADER_NAME", "LOADER_VERSION", "load", "sniff"]
