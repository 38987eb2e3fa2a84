"""NextClosure (``reprokg.studies.fca``) against the PyPI library ``concepts`` on random
formal contexts: the same concepts, and how long each takes.

    python -m venv /tmp/fca && /tmp/fca/bin/pip install concepts && /tmp/fca/bin/pip install -e .
    /tmp/fca/bin/python benchmarks/studies/fca_libraries.py

``concepts`` is not a dependency of reprokg (an evaluation, run in a throw-away
environment). fcapy and caspailleur were not timed: they are GPL-3, so they cannot be
used by an MIT package whatever their speed.
"""

from __future__ import annotations

import random
import time

from concepts import Context

from reprokg.studies import fca

CONTEXTS = [(4, 34, 0.3), (50, 30, 0.3), (200, 40, 0.2)]


def main() -> None:
    random.seed(1)
    for no, na, p in CONTEXTS:
        objs = [f"o{i}" for i in range(no)]
        atts = [f"a{j}" for j in range(na)]
        rows = [tuple(random.random() < p for _ in atts) for _ in objs]
        incidence = {
            o: {a for a, v in zip(atts, r, strict=True) if v}
            for o, r in zip(objs, rows, strict=True)
        }
        t0 = time.perf_counter()
        ours = fca.concepts(objs, atts, incidence)
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        lattice = Context(objs, atts, rows).lattice
        theirs = {(frozenset(c.extent), frozenset(c.intent)) for c in lattice}
        t_theirs = time.perf_counter() - t0
        same = {(frozenset(c.extent), frozenset(c.intent)) for c in ours} == theirs
        print(
            f"{no}x{na} p={p}: {len(ours)} concepts; NextClosure {t_ours:.3f} s, "
            f"concepts {t_theirs:.3f} s; same concepts: {same}"
        )


if __name__ == "__main__":
    main()
