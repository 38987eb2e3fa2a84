"""docs/exchange.md's walk-through, run as written: every ``reprokg`` command of its block
runs on the example inputs under examples/exchange/, and every import adds at least one
document (the store names are kept, under a temporary folder)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from reprokg.cli import main
from tests.conftest import REPO

PAGE = REPO / "docs" / "exchange.md"


def walkthrough() -> list[list[str]]:
    """The commands of the fenced block under "## Walk-through: the example inputs"."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## Walk-through: the example inputs", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return [shlex.split(line)[1:] for line in block.splitlines() if line.startswith("reprokg ")]


def test_the_walkthrough_names_every_format() -> None:
    formats = {args[1] for args in walkthrough() if args[0] == "import"}
    assert formats >= {"mlflow", "openml", "rocrate", "tirex"}


@pytest.mark.slow
def test_every_walkthrough_command_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    commands = walkthrough()
    assert len(commands) >= 5
    for args in commands:
        i = args.index("--store")
        args[i + 1] = str(tmp_path / args[i + 1])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(args)
        assert code == 0, (args, out.getvalue())
        if args[0] == "import":
            added = re.search(r"(\d+) added", out.getvalue())
            assert added and int(added.group(1)) >= 1, out.getvalue()
