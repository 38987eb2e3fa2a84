"""The SPARQL behind each web view: ``service/web/queries/*.rq`` in the named-query format.

Each file has the header of :mod:`reprokg.sparql.named` (title, description, typed
params, examples), is read and bound by the same code as every query of the package
(:func:`reprokg.sparql.named.package_query`: parameters as RDF terms in a ``VALUES``
block, optional lines dropped). A view may also
read an analysis family's own query by its package path (the stability chart reads the
observations the analysis reads: ``stability/sparql/observations.rq``).
"""

from __future__ import annotations

from reprokg.sparql.named import NamedQuery, package_query

FOLDER = "service/web/queries"


def view_query(name: str) -> NamedQuery:
    """The view query ``NAME`` (``service/web/queries/{name}.rq``), or the package query a
    path names (``stability/sparql/observations.rq``)."""
    return package_query(name if name.endswith(".rq") else f"{FOLDER}/{name}.rq")
