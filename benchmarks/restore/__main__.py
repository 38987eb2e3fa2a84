"""``python -m benchmarks.restore`` runs :mod:`benchmarks.restore.run`."""

from benchmarks.restore.run import main

main()
