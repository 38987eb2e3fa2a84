"""Software Heritage identifiers (SWHIDs, ISO/IEC 18670): read as the sources write them,
and recomputed from local files.

A SWHID names an object of the Software Heritage archive by its intrinsic hash:
``swh:1:<type>:<40 hex digits>`` (the *core* form; types ``cnt`` content, ``dir``
directory, ``rev`` revision, ``rel`` release, ``snp`` snapshot), optionally followed by
qualifiers (``;origin=…;visit=swh:1:snp:…;anchor=swh:1:…;path=…;lines=…``). Two sources
naming the same core SWHID name the same bytes: the loaders store it as the IRI
:func:`Swhid.iri` so that the two records join on it (docs/evidence.md, Software Heritage
identifiers).

Reading is done here, by the grammar of the specification, so that every install reads the
same sources to the same graph; the tests hold it to ``swh.model`` (the Software Heritage
reference implementation) on every SWHID of the field's data. Recomputing a SWHID from
files (:func:`swhid_of_path`) uses ``swh.model.from_disk``, imported when asked: it is
GPL-3.0 and an optional extra (``pip install 'reprokg[swh]'``), never needed to load data.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from reprokg.core.errors import IdentifierError, UsageError

#: the archive's resolver: a SWHID appended to it is the object's page (and our IRI for it)
RESOLVER = "https://archive.softwareheritage.org/"
#: the object types of a core SWHID (ISO/IEC 18670, section "Core identifiers")
TYPES = ("cnt", "dir", "rev", "rel", "snp")
#: the qualifiers a SWHID may carry, in the order the specification writes them
QUALIFIERS = ("origin", "visit", "anchor", "path", "lines")
EXPECTED = "swh:1:<cnt|dir|rev|rel|snp>:<40 lower-case hex digits>[;qualifier=value…]"

_CORE_RE = re.compile(r"^swh:1:(cnt|dir|rev|rel|snp):([0-9a-f]{40})$")
_LINES_RE = re.compile(r"^[1-9][0-9]*(?:-[1-9][0-9]*)?$")


@dataclass(frozen=True)
class Swhid:
    """A SWHID read: its core (type and hash) and its qualifiers as written."""

    object_type: str
    object_id: str
    qualifiers: tuple[tuple[str, str], ...] = ()

    @property
    def core(self) -> str:
        """``swh:1:<type>:<hash>``: what names the object, whatever the qualifiers."""
        return f"swh:1:{self.object_type}:{self.object_id}"

    @property
    def iri(self) -> str:
        """The archive's page of the object (the core SWHID on the resolver): the node two
        sources recording one SWHID share."""
        return RESOLVER + self.core

    def __str__(self) -> str:
        return self.core + "".join(f";{k}={v}" for k, v in self.qualifiers)


def parse_swhid(text: str) -> Swhid:
    """A SWHID as the sources write it: the core or qualified form, also behind the
    archive's resolver (``https://archive.softwareheritage.org/swh:1:…``), and two
    spellings the field's data holds (a trailing ``;``, the ``swh:`` prefix left out:
    ``1:dir:…``). Raises :class:`IdentifierError` saying what was expected."""
    s = text.strip()
    for prefix in (RESOLVER, "http://archive.softwareheritage.org/"):
        if s.startswith(prefix):
            s = s[len(prefix) :]
            break
    s = s.rstrip(";")
    if s.startswith("1:"):
        s = "swh:" + s
    core, *parts = s.split(";")
    if not parts:
        core = core.rstrip("/")  # the resolver's page, as a browser writes it
    m = _CORE_RE.match(core)
    if m is None:
        raise IdentifierError(f"{text!r} is not a SWHID: expected {EXPECTED}")
    qualifiers: list[tuple[str, str]] = []
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or key not in QUALIFIERS or not value:
            raise IdentifierError(
                f"{text!r}: qualifier {part!r} is not one of "
                f"{', '.join(q + '=…' for q in QUALIFIERS)}"
            )
        if key in dict(qualifiers):
            raise IdentifierError(f"{text!r}: qualifier {key!r} given twice")
        if key == "visit" and not (_CORE_RE.match(value) and value.startswith("swh:1:snp:")):
            raise IdentifierError(f"{text!r}: visit= must be a snapshot SWHID (swh:1:snp:…)")
        if key == "anchor" and not (_CORE_RE.match(value) and ":cnt:" not in value):
            raise IdentifierError(f"{text!r}: anchor= must be a dir, rev, rel or snp SWHID")
        if key == "lines" and not _LINES_RE.match(value):
            raise IdentifierError(f"{text!r}: lines= must be N or N-M")
        qualifiers.append((key, value))
    return Swhid(m.group(1), m.group(2), tuple(qualifiers))


def swhid_of_path(path: str | Path) -> Swhid:
    """The SWHID of a local file (``cnt``) or folder (``dir``), by ``swh.model.from_disk``:
    the hash git gives the same blob or tree (symbolic links as links, not followed)."""
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise UsageError(f"{path}: no such file or folder")
    try:
        from swh.model import from_disk
    except ImportError:
        raise UsageError(
            "computing a SWHID needs swh.model (GPL-3.0, an optional extra): "
            "pip install 'reprokg[swh]'"
        ) from None
    raw = os.fsencode(p)
    obj = (
        from_disk.Directory.from_disk(path=raw, max_content_length=None)
        if p.is_dir() and not p.is_symlink()
        else from_disk.Content.from_file(path=raw, max_content_length=None)
    )
    return parse_swhid(str(obj.swhid()))
