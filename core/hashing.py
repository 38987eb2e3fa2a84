"""Content hashes and natural keys: what minted identifiers are made from.

Apart from :mod:`reprokg.core.identifiers` (which builds IRIs, so imports rdflib) so that
the readers of run files, which key their content, stay free of rdflib. ``hashlib`` is
imported by the first hash (its OpenSSL binding costs start-up time of a command that never
hashes, benchmarks/README.md#figures-once-quoted-in-code, such as ``reprokg compare`` without
``--save``).
"""

from __future__ import annotations


def content_hash(data: bytes | str) -> str:
    """sha256 hex of content; text is normalised (UTF-8, LF line ends) first."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if b"\r\n" in data:
        data = data.replace(b"\r\n", b"\n")
    import hashlib

    return hashlib.sha256(data).hexdigest()


def stable_key(*parts: object, length: int = 20) -> str:
    """A short key derived from natural-key parts; the same parts give the same key."""
    joined = "\x1f".join("" if p is None else str(p) for p in parts)
    import hashlib

    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:length]
