"""ReproDB's ``artifact_availability.json`` -> dated availability observations of artifact
locations (kind ``artifact-availability``).

ReproDB (ReproDB/reprodb.github.io) checks every artifact URL of its ``artifacts.json``
and publishes ``{"summary": {"checked_at": …, …}, "records": [{conference, year, area,
title, url_key, url, platform, accessible}, …]}``. Each record becomes one
``rk:AvailabilityObservation``: the location checked (``rk:checkedLocation``, the same IRI
the ``artifact-evaluation`` loader writes as the artifact's ``rk:artifactLocation``, a
DOI URL as its DOI IRI, so the observation joins the artifact by URL), whether it answered
(``rk:locationAccessible``), when (``rk:checkedAt``, the summary's ``checked_at``: the
records carry no date of their own), the platform and the key as written. The file is one
document (the check is one event); a malformed record is skipped with a located Warning.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from rdflib import RDF, Literal
from rdflib.namespace import PROV, XSD

from reprokg.core.document import Document, Message
from reprokg.core.errors import LoadError
from reprokg.core.hashing import stable_key
from reprokg.core.identifiers import minter
from reprokg.core.namespaces import RK, new_graph
from reprokg.loaders.evidence import describe_source, link
from reprokg.loaders.reading.contract import LoaderInfo
from reprokg.loaders.reading.source import decode_text, parse_json
from reprokg.loaders.reading.summary import LoadSummary

INFO = LoaderInfo(
    kind="artifact-availability", name="reprokg.loaders.artifact_availability", version="1"
)
_FIELDS = ("conference", "year", "title", "url_key", "url", "platform", "accessible")


def sniff(name: str, head: str) -> bool:
    # the summary comes first and is longer than the head: its keys say what the file is
    return (
        head.lstrip().startswith("{")
        and '"checked_at"' in head
        and ('"records"' in head or '"accessible_urls"' in head)
    )


def load(data: bytes, name: str) -> list[Document]:
    return load_with_summary(data, name)[0]


def _checked_at(value: Any, name: str) -> Literal:
    """``2026-05-06 22:15:57 UTC`` (ReproDB's form) or ISO 8601, as an xsd:dateTime."""
    text = value.strip() if isinstance(value, str) else ""
    for fmt in ("%Y-%m-%d %H:%M:%S UTC", "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S%z"):
        try:
            when = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return Literal(when.strftime("%Y-%m-%dT%H:%M:%SZ"), datatype=XSD.dateTime)
    raise LoadError(
        f"summary.checked_at must be the check's date and time (2026-05-06 22:15:57 UTC), "
        f"got {value!r}",
        source=name,
        field="summary.checked_at",
    )


def _lines(text: str, n: int) -> Iterator[int | None]:
    """The line each of the ``n`` records starts on (their ``"conference"`` key), else None."""
    pos = text.find('"records"')
    for _ in range(n):
        pos = text.find("{", pos + 1) if pos >= 0 else -1
        yield text.count("\n", 0, pos) + 1 if pos >= 0 else None


def load_with_summary(data: bytes, name: str) -> tuple[list[Document], LoadSummary]:
    text = decode_text(data, name)
    parsed = parse_json(text, name)
    if not isinstance(parsed, dict) or not isinstance(parsed.get("records"), list):
        raise LoadError("expected ReproDB's {'summary': …, 'records': [...]}", source=name, line=1)
    head = parsed.get("summary")
    when = _checked_at(head.get("checked_at") if isinstance(head, dict) else None, name)
    summary = LoadSummary(name, INFO.kind)
    g = new_graph()
    msgs: list[Message] = []
    node = minter("availability-observation")
    describe_source(g, RK.ReproDB)
    for rec, line in zip(parsed["records"], _lines(text, len(parsed["records"])), strict=True):
        summary.records += 1
        why = _problem(rec)
        url = link(rec["url"]) if why is None else None
        if why is None and url is None:
            why = f"url {rec['url']!r} is not an http(s) URL or a DOI"
        if why is not None or url is None:
            why = why or "no location"
            summary.skip(line, "record", why)
            msgs.append(Message("Warning", "record", f"record skipped: {why}", None, None, line))
            continue
        obs = node(
            stable_key("reprodb-availability", str(when), rec["url_key"], rec["url"],
                       rec["conference"], rec["year"], rec["title"])
        )  # fmt: skip
        g.add((obs, RDF.type, RK.AvailabilityObservation))
        g.add((obs, RDF.type, PROV.Entity))
        g.add((obs, RK.checkedLocation, url))
        g.add((obs, RK.locationAccessible, Literal(rec["accessible"])))
        g.add((obs, RK.checkedAt, when))
        g.add((obs, RK.evidenceSource, RK.ReproDB))
        g.add((obs, RK.locationRole, Literal(rec["url_key"])))
        if isinstance(rec.get("platform"), str) and rec["platform"].strip():
            g.add((obs, RK.hostingPlatform, Literal(rec["platform"].strip())))
        summary.counts["URLs reachable" if rec["accessible"] else "URLs unreachable"] += 1
        if str(url).startswith("https://doi.org/") and not rec["url"].startswith(
            "https://doi.org/"
        ):
            summary.normal("url", "a DOI as written", "DOI IRI")
    summary.documents = 1
    doc = INFO.document(
        g,
        source_name=name,
        source_bytes=data,
        source_key=f"{INFO.kind}:reprodb:{when}",
        messages=msgs,
    )
    return [doc], summary


def _problem(rec: Any) -> str | None:
    if not isinstance(rec, dict):
        return f"expected a JSON object per checked URL, got {type(rec).__name__}"
    missing = [k for k in _FIELDS if k not in rec]
    if missing:
        return f"missing {', '.join(missing)}"
    if not isinstance(rec["url"], str) or not rec["url"].strip():
        return "'url' is missing or not text"
    if not isinstance(rec["url_key"], str):
        return "'url_key' must be text"
    if not isinstance(rec["accessible"], bool):
        return f"'accessible' must be true or false, got {json.dumps(rec['accessible'])}"
    return None
