"""Formal concepts of a small context and covering pairs of a finite order.

Ganter's NextClosure over attribute bitmasks: every intent is produced once, in lectic
order, each from one closure (derivation of objects, then of attributes), so the cost is
linear in the number of concepts times the context size. The audit contexts are tiny
(publications × 34 attributes). The PyPI libraries were evaluated for this
(``benchmarks/studies/fca_libraries.py``): ``fcapy`` 0.1.4.5 and ``caspailleur`` 0.2.2 are
GPL-3 (not for an MIT package) and pull scikit-mine, pandas and more; ``concepts`` 0.9.2
(MIT; its last release, June 2020, still for Python 2.7; it pulls bitsets and graphviz)
finds the same concepts but several times slower (benchmarks/README.md#figures-once-quoted-in-code).
So the few lines below are kept instead, tested against brute-force closure.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar


@dataclass(frozen=True)
class Concept:
    """A formal concept: the objects sharing exactly ``intent`` and nothing more."""

    extent: tuple[str, ...]
    intent: tuple[str, ...]


def concepts(
    objects: Sequence[str], attributes: Sequence[str], incidence: Mapping[str, Iterable[str]]
) -> list[Concept]:
    """All formal concepts of (objects, attributes, incidence), intents in lectic order.

    ``incidence[g]`` lists the attributes of object g (unknown attributes are ignored).
    Extents and intents keep the order of ``objects`` and ``attributes``.
    """
    m = len(attributes)
    pos = {a: i for i, a in enumerate(attributes)}
    rows = []
    for g in objects:
        mask = 0
        for a in incidence.get(g, ()):
            if a in pos:
                mask |= 1 << (m - 1 - pos[a])  # attribute 0 is the most significant bit
        rows.append(mask)
    full = (1 << m) - 1

    def extent_of(intent: int) -> int:
        ext = 0
        for i, row in enumerate(rows):
            if row & intent == intent:
                ext |= 1 << i
        return ext

    def intent_of(extent: int) -> int:
        out = full
        i = 0
        while extent:
            if extent & 1:
                out &= rows[i]
            extent >>= 1
            i += 1
        return out

    def closure(intent: int) -> int:
        return intent_of(extent_of(intent))

    found: list[tuple[int, int]] = []
    intent = closure(0)
    while True:
        found.append((extent_of(intent), intent))
        if intent == full:
            break
        intent = _next_closure(intent, m, closure)

    def names(mask: int, items: Sequence[str], width: int, msb_first: bool) -> tuple[str, ...]:
        if msb_first:
            return tuple(items[i] for i in range(width) if mask >> (width - 1 - i) & 1)
        return tuple(items[i] for i in range(width) if mask >> i & 1)

    return [
        Concept(names(e, objects, len(objects), False), names(i, attributes, m, True))
        for e, i in found
    ]


def _next_closure(a: int, m: int, closure: Callable[[int], int]) -> int:
    """The lectically next closed set after ``a`` (Ganter 1984); bit m−1−i is attribute i."""
    for i in range(m - 1, -1, -1):
        bit = 1 << (m - 1 - i)
        if a & bit:
            a &= ~bit
            continue
        b = closure(a | bit)
        # b is the next one when it adds no attribute smaller than i
        higher = ~((bit << 1) - 1) & ((1 << m) - 1)  # bits of attributes 0..i-1
        if (b & ~a) & higher == 0:
            return b
    raise AssertionError("no next closure: the full set was not reached")


H = TypeVar("H", bound=Hashable)


def covering_pairs(elements: Sequence[H], leq: Callable[[H, H], bool]) -> list[tuple[H, H]]:
    """Hasse diagram of a finite partial order: pairs (x, y), x < y, nothing strictly between.

    ``leq`` must be reflexive, antisymmetric and transitive on ``elements``. Quadratic in
    pairs plus a cubic check for in-between elements; meant for tens of elements.
    """
    less = {(x, y) for x in elements for y in elements if x != y and leq(x, y) and not leq(y, x)}
    return [
        (x, y)
        for (x, y) in sorted(less, key=lambda p: (elements.index(p[0]), elements.index(p[1])))
        if not any((x, z) in less and (z, y) in less for z in elements)
    ]


def concept_lattice_edges(found: Sequence[Concept]) -> list[tuple[int, int]]:
    """Covering pairs (i, j) of the concept order: concept i's extent ⊂ concept j's."""
    extents = [frozenset(c.extent) for c in found]
    idx = list(range(len(found)))
    return covering_pairs(idx, lambda i, j: extents[i] <= extents[j])
