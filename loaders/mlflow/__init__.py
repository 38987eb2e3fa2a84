"""MLflow tracking data: the loader (:mod:`.loader`: file stores, their ZIPs, the REST
API's JSON) and MLflow's SQLite tracking database (:mod:`.sqlite`).

The package is the registered loader of kind ``mlflow``: it exposes what :mod:`.loader`
does for the registry (``INFO``, ``sniff``, ``load``; a binary, folder and database
loader: ``sniff_bytes``, ``load_folder``, ``is_database``, ``load_database``).
"""

from reprokg.loaders.mlflow.loader import (
    INFO,
    is_database,
    load,
    load_database,
    load_folder,
    sniff,
    sniff_bytes,
)

__all__ = [
    "INFO",
    "is_database",
    "load",
    "load_database",
    "load_folder",
    "sniff",
    "sniff_bytes",
]
