"""ir_metadata (PRIMAD) run headers: the loader (:mod:`.loader`), the YAML export back from
the graph (:mod:`.export`) and annotating run files with headers (:mod:`.annotate`).

The package is the registered loader of kind ``run``: it exposes ``INFO``, ``sniff`` and
``load`` of :mod:`.loader`.
"""

from reprokg.loaders.ir_metadata.loader import INFO, load, sniff

__all__ = ["INFO", "load", "sniff"]
