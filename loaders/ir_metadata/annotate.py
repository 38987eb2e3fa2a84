"""Writing ir_metadata headers into TREC run files (``reprokg annotate``).

The header is written the way repro_eval 0.5.0 writes and reads it: a first line
``# ir_metadata.start``, every YAML line prefixed by ``# ``, ``# ir_metadata.end``,
then the run lines unchanged. repro_eval reads the header by stripping ``#`` from
both ends of each line, so strings that end in ``#`` are written quoted.

The metadata goes through the loader and back (:mod:`reprokg.loaders.ir_metadata.export`),
so keys come out in their canonical spelling with schema types. An existing header
in the run file is replaced, never stacked. ``complete`` fills what the user did not
give: the Platform from this machine (CPU, cores, RAM, OS, kernel, installed Python
distributions WITH versions) and the Implementation from git (remote, commit,
languages of tracked files). User-given values always win, and a section the user gave
(``cpu``, ``operating system``, ``libraries``) is not completed field by field, since
it may describe another machine; ``implementation.source`` is completed only when it
names no repository or this work tree's remote.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import struct
import subprocess
from pathlib import Path
from typing import Any

import yaml

from reprokg.core.errors import LoadError
from reprokg.loaders.ir_metadata import loader as im
from reprokg.loaders.ir_metadata.export import graph_to_dict
from reprokg.loaders.reading.source import decode_text

META_START = "# ir_metadata.start"
META_END = "# ir_metadata.end"

#: file extension -> language name (the schema's naming convention where it has one)
LANGUAGES = {
    "py": "Python",
    "java": "Java",
    "sh": "Shell",
    "bash": "Shell",
    "c": "C",
    "cc": "C++",
    "cpp": "C++",
    "cxx": "C++",
    "hpp": "C++",
    "r": "R",
    "go": "Go",
    "rb": "Ruby",
    "m": "Matlab",
    "rs": "Rust",
    "js": "JavaScript",
    "ts": "TypeScript",
    "scala": "Scala",
    "kt": "Kotlin",
    "jl": "Julia",
}


class _HeaderDumper(yaml.SafeDumper):
    """Quotes strings that end in ``#`` (repro_eval's ``line.strip('#')`` would eat it)."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "'" if value.rstrip().endswith("#") or value.lstrip().startswith("#") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_HeaderDumper.add_representer(str, _str)


def header_text(metadata: dict[str, Any]) -> str:
    """The commented header block for ``metadata`` (canonical keys, schema types)."""
    text = yaml.dump(
        metadata,
        Dumper=_HeaderDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=4096,
    )
    body = "".join(f"# {line}\n" for line in text.rstrip("\n").split("\n"))
    return f"{META_START}\n{body}{META_END}\n"


def metadata_from_bytes(data: bytes, name: str) -> dict[str, Any]:
    """Normalised metadata of a YAML file or of an annotated run's header."""
    [doc] = im.load(data, name, assume_yaml=True)
    if doc.subject is None:
        raise LoadError("no run metadata found", source=name)
    return graph_to_dict(doc.graph, doc.subject)


def run_lines_of(data: bytes, name: str) -> tuple[str, dict[str, Any] | None]:
    """The run lines of a run file (an existing header cut off) and that header, if any."""
    text = decode_text(data, name)
    parts = im.split_source(text, name)
    if parts.form == "yaml":
        raise LoadError("looks like a metadata YAML file, not a TREC run file", source=name)
    existing = metadata_from_bytes(data, name) if parts.form in ("commented", "bare") else None
    lines = parts.run_text.split("\n") if parts.run_text else []
    while lines and not lines[-1].strip():
        lines.pop()
    return ("\n".join(lines) + "\n") if lines else "", existing


# --------------------------------------------------------------------------- completion


#: Mappings filled only as a whole: a user-given ``cpu`` or ``operating system`` may
#: describe another machine, so this machine's facts are not mixed into it.
CONTAINERS = {"platform", "hardware", "software", "implementation"}


def _fill(target: dict[str, Any], defaults: dict[str, Any]) -> None:
    """Add what ``target`` lacks from ``defaults``; never overwrite a given value, and
    never complete a given section other than the containers field by field."""
    for key, value in defaults.items():
        if value is None or value == {} or value == []:
            continue
        if key not in target or target[key] in (None, {}, []):
            target[key] = value
        elif key in CONTAINERS and isinstance(target[key], dict) and isinstance(value, dict):
            _fill(target[key], value)


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _ram() -> str | None:
    try:
        size = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    return f"{round(size / 1024**3, 2)} GB"


def _distribution() -> str | None:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


def python_libraries() -> list[str]:
    """``name==version`` of every installed distribution, sorted by name."""
    seen: dict[str, str] = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name and name.lower() not in seen:
            seen[name.lower()] = f"{name}=={dist.version}"
    return [seen[k] for k in sorted(seen)]


def _prune(value: Any) -> Any:
    """Drop unknown (None) and empty values so the header holds only what was found."""
    if isinstance(value, dict):
        out = {k: _prune(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, {}, [])}
    return value


def platform_metadata() -> dict[str, Any]:
    """This machine as ir_metadata ``platform`` (what repro_eval's completion reads, plus
    library versions)."""
    return _prune(
        {
            "hardware": {
                "cpu": {
                    "model": _cpu_model(),
                    "architecture": platform.machine() or None,
                    "operation mode": f"{struct.calcsize('P') * 8}-bit",
                    "number of cores": os.cpu_count(),
                },
                "ram": _ram(),
            },
            "operating system": {
                "platform": platform.system() or None,
                "kernel": platform.release() or None,
                "distribution": _distribution(),
            },
            "software": {"libraries": {"python": python_libraries()}},
        }
    )


def _git(repo: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def implementation_metadata(repo: Path) -> dict[str, Any]:
    """``implementation.source`` from the git work tree at ``repo`` (empty if none)."""
    commit = _git(repo, "rev-parse", "HEAD")
    if commit is None:
        return {}
    remote = _git(repo, "remote", "get-url", "origin")
    if remote is None:
        remotes = (_git(repo, "remote") or "").split()
        remote = _git(repo, "remote", "get-url", remotes[0]) if remotes else None
    files = (_git(repo, "ls-files") or "").splitlines()
    langs = sorted({LANGUAGES[e] for f in files if (e := Path(f).suffix[1:].lower()) in LANGUAGES})
    return _prune({"source": {"lang": langs, "repository": remote, "commit": commit}})


def complete(metadata: dict[str, Any], repo: Path | None = None) -> dict[str, Any]:
    """``metadata`` with Platform and Implementation filled in where not given."""
    out = dict(metadata)
    _fill(out, {"platform": platform_metadata()})
    found = implementation_metadata(repo or Path.cwd())
    given = out.get("implementation")
    source = given.get("source") if isinstance(given, dict) else None
    # the user's source is completed field by field only when it is this work tree
    if (
        isinstance(source, dict)
        and found.get("source")
        and _same_repository(source.get("repository"), found["source"].get("repository"))
    ):
        merged = dict(source)
        _fill(merged, found["source"])
        out["implementation"] = {**(given or {}), "source": merged}
        return out
    _fill(out, {"implementation": found})
    return out


def _same_repository(given: Any, found: Any) -> bool:
    """No repository given, or the same URL up to a trailing ``/`` or ``.git``."""
    if given is None:
        return True
    if found is None:
        return False

    def norm(url: Any) -> str:
        u = str(url).strip().rstrip("/")
        return (u[:-4] if u.endswith(".git") else u).lower()

    return norm(given) == norm(found)


# --------------------------------------------------------------------------- annotate


def annotate(
    run: bytes,
    run_name: str,
    metadata: bytes | None = None,
    metadata_name: str = "metadata.yaml",
    *,
    complete_metadata: bool = False,
    repo: Path | None = None,
) -> str:
    """The annotated run file: one header (replacing any existing one), then the run lines."""
    lines, existing = run_lines_of(run, run_name)
    if metadata is not None:
        meta = metadata_from_bytes(metadata, metadata_name)
    elif existing is not None:
        meta = existing
    else:
        raise LoadError("no metadata: give --metadata or a run file with a header", source=run_name)
    if complete_metadata:
        meta = complete(meta, repo)
    return header_text(meta) + lines
