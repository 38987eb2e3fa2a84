"""Results of named queries kept per process, keyed by (query, parameters, result format,
store version): a repeated request is answered without evaluating (find-baselines from
the cache in a sixth of its evaluated time: benchmarks/README.md#figures-once-quoted-in-code).
Benchmarks report it next to the uncached figures, never instead.

Invalidation is by the key: the store's version
(:meth:`~reprokg.store.base.Counters.version`) changes with every committed write, so an
entry made before a write is never found after it. The version is read *before*
evaluating; a result computed while a write commits is filed under the old version and
never served after the write. A store opened read-only is a snapshot (its version never
moves): entries live until evicted. Stores without a version (remote engines, which
others may write) are not cached. Bounded by entries and bytes, least recently used out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

from reprokg.store.base import Counters

Key = tuple[Hashable, ...]
#: response headers kept with a body (a named query's page: total, next link)
Headers = tuple[tuple[str, str], ...]


class ResultCache:
    """Serialised results (body bytes, media type) by key; thread-safe (pool threads
    share it)."""

    def __init__(self, max_bytes: int = 64 << 20, max_entries: int = 4096) -> None:
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self._d: OrderedDict[Key, tuple[bytes, str, Headers]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def key(self, store: object, *parts: Hashable) -> Key | None:
        """The full key of ``parts`` on ``store`` now; ``None``: not cacheable there."""
        if self.max_bytes <= 0 or not isinstance(store, Counters):
            return None
        return (*parts, store.version())

    def get(self, key: Key | None) -> tuple[bytes, str, Headers] | None:
        if key is None:
            return None
        with self._lock:
            hit = self._d.get(key)
            if hit is None:
                self.misses += 1
            else:
                self._d.move_to_end(key)
                self.hits += 1
            return hit

    def put(self, key: Key | None, body: bytes, media_type: str, headers: Headers = ()) -> None:
        """Keep ``body`` (one result is at most a sixteenth of the budget)."""
        if key is None or len(body) > self.max_bytes // 16:
            return
        with self._lock:
            if key in self._d:
                return
            self._d[key] = (body, media_type, headers)
            self._bytes += len(body)
            while len(self._d) > self.max_entries or self._bytes > self.max_bytes:
                _, (old, _type, _headers) = self._d.popitem(last=False)
                self._bytes -= len(old)

    def __len__(self) -> int:
        return len(self._d)
