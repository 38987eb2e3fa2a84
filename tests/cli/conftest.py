"""Shared helpers of the command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest


def make_unreadable(monkeypatch: pytest.MonkeyPatch, locked: Path) -> None:
    """Reading ``locked`` raises ``PermissionError`` as it does for a user without the
    permission (as root a file cannot be made unreadable by its mode)."""
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
