"""``python -m benchmarks.ingest`` runs :mod:`benchmarks.ingest.run`."""

from benchmarks.ingest.run import main

main()
