"""Links without shared identifiers, measured on the pairs the sources link by identifier.

    python benchmarks/linkage/run.py [--data DATA] [--json out.json] [--readme]

Each source's raw file is read here (not through the loaders) into records the matcher sees
(title, year, venue, authors, URLs) and the identifier that links it to another source, kept
apart: the paper's DOI (GRSI stamps, the SIGGRAPH survey's curated per-paper files and its
consolidated 2020 data, the ReScience C bibliography and the MLRC headers, whose article
URLs — Zenodo record numbers, the DOI in other words — are hidden too), or the artifact's
URLs (ReproDB's artifacts and the sysartifacts/secartifacts results pages they consolidate:
the URLs are hidden, the pages give no DOI). Per source pair the records holding the
identifier on both sides are matched with the identifiers hidden
(:func:`reprokg.evidence.candidate_matches.propose`), and the links accepted at each
threshold are compared with the pairs sharing an identifier: precision, recall, and how many
*hard negatives* (pairs of the two sources sharing two title words or more but no
identifier, counted over every pair, not the matcher's blocks) were accepted. ``--readme``
rewrites the "Links without shared identifiers" section of benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import sys
import time
from itertools import product
from pathlib import Path
from typing import Any

import yaml

from reprokg.evidence.candidate_matches import (
    STOPWORDS,
    THRESHOLD,
    LinkRecord,
    family_names,
    link_keys,
    propose,
)
from reprokg.loaders.evidence import normalise_title

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
THRESHOLDS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99)
#: a record and the identifiers that link it to other sources (hidden from the matcher)
Entry = tuple[LinkRecord, frozenset[str]]


def _doi(text: Any) -> str | None:
    found = re.search(r"10\.\d{4,9}/[^\s\"<>]+", str(text or ""))
    return found.group().rstrip(".,;/").casefold() if found else None


def _int(value: Any) -> int | None:
    found = re.search(r"\b(?:19|20)\d{2}\b", str(value or ""))
    return int(found.group()) if found else None


def grsi(data: Path) -> list[Entry]:
    rows = json.loads(
        (data / "surveys/grsi_isenberg/publication_data/grsi_paper_data.json").read_text()
    )
    out = []
    for i, r in enumerate(rows):
        doi = _doi(r.get("doi"))
        rec = LinkRecord(
            f"grsi:{i}",
            "grsi",
            r["title"],
            None,
            r.get("journal"),
            family_names(r.get("authors")),
            link_keys([r.get("repo_url") or ""]),
        )
        out.append((rec, frozenset({doi} if doi else ())))
    return out


def per_paper(data: Path) -> list[Entry]:
    out = []
    for f in sorted(glob.glob(str(data / "replicability_graphics/per_paper/*/*.json"))):
        variants = json.loads(Path(f).read_text())
        v = next((v for v in variants if v.get("Is master variant (boolean)")), variants[0])
        urls = [
            str(v.get(k) or "")
            for k in ("PDF URL", "Arxiv/OAI page URL", "Project URL", "Code URL", "Code URL2")
        ]
        venue = Path(f).parent.name.split("-")[0]
        doi = _doi(v.get("DOI"))
        rec = LinkRecord(
            f"per_paper:{Path(f).stem}",
            "per_paper",
            v["Title"],
            _int(v.get("Year")),
            venue,
            frozenset(),
            link_keys(urls),
        )
        out.append((rec, frozenset({doi} if doi else ())))
    return out


def consolidated(data: Path) -> list[Entry]:
    rows = json.loads((data / "replicability_graphics/consolidatedData.json").read_text())
    out = []
    for i, r in enumerate(rows):
        urls = [
            str(r.get(k) or "")
            for k in ("arXiv (page URL)", "code URL", "code URL  2", "PDF URL", "Project URL")
        ]
        doi = _doi(r.get("DOI"))
        rec = LinkRecord(
            f"consolidated:{i}",
            "consolidated",
            r["Title"],
            _int(r.get("Year")),
            "SIGGRAPH",
            _crossref_names(r.get("Paper authors")),
            link_keys(urls),
        )
        out.append((rec, frozenset({doi} if doi else ())))
    return out


def _crossref_names(authors: Any) -> frozenset[str]:
    """The consolidated data's ``Paper authors`` (Crossref's ``given``/``family`` objects)."""
    if not isinstance(authors, list):
        return family_names(str(authors or ""))
    return family_names([str(a.get("family", "")) for a in authors if isinstance(a, dict)])


def rescience(data: Path) -> list[Entry]:
    import bibtexparser

    bib = bibtexparser.parse_string(
        (data / "surveys/rescience/journal_bib/_bibliography/published.bib").read_text()
    )
    out = []
    for e in bib.entries:
        f = {k: str(v.value if hasattr(v, "value") else v) for k, v in e.fields_dict.items()}
        title = f.get("title", "").replace("{", "").replace("}", "")
        doi = _doi(f.get("doi"))
        rec = LinkRecord(
            f"rescience:{e.key}",
            "rescience",
            title,
            _int(f.get("year")),
            "ReScience C",
            family_names(f.get("author")),
            link_keys([f.get("code_url", "")]),
        )
        out.append((rec, frozenset({doi} if doi else ())))
    return out


def _items(value: Any) -> dict[str, Any]:
    """MLRC's YAML lists of one-key mappings as one mapping."""
    return {k: v for d in (value or []) if isinstance(d, dict) for k, v in d.items()}


def mlrc(data: Path) -> list[Entry]:
    out = []
    for f in sorted(
        glob.glob(str(data / "surveys/rescience/mlrc_metadata/*/*/journal/metadata.yaml"))
    ):
        y = yaml.safe_load(Path(f).read_text())
        doi = _doi(_items(y.get("article")).get("doi"))
        names = [str(a.get("name", "")) for a in y.get("authors") or [] if isinstance(a, dict)]
        published = _items(y.get("dates")).get("published")
        rec = LinkRecord(
            f"mlrc:{Path(f).parts[-3]}",
            "mlrc",
            str(y.get("title", "")),
            _int(published),
            "ReScience C",
            family_names(names),
            link_keys([str(_items(y.get("code")).get("url") or "")]),
        )
        out.append((rec, frozenset({doi} if doi else ())))
    return out


def reprodb(data: Path) -> list[Entry]:
    rows = json.loads((data / "artifact_evaluation/reprodb/artifacts.json").read_text())
    out = []
    for i, r in enumerate(rows):
        rec = LinkRecord(
            f"reprodb:{i}", "reprodb", r["title"], _int(r.get("year")), r.get("conference")
        )
        out.append((rec, link_keys(r.get("artifact_urls") or [])))
    return out


_ROW = re.compile(r"^\|\s*\[(?P<title>[^\]]+)\]\([^)]*\)\s*\|(?P<badges>[^|]*)\|(?P<rest>.*)$")


def results_pages(data: Path) -> list[Entry]:
    """The results pages' artifacts: a Markdown table's rows (``| [title](paper) | badges |
    [host](url) … |``) or the YAML front matter's ``- title:`` items (read by pattern: the
    pages indent with tabs); every URL of a row or item but the paper's is the artifact's
    (hidden); the venue and year from the file name."""
    out = []
    for f in sorted(glob.glob(str(data / "artifact_evaluation/*artifacts/*-results.md"))):
        name = Path(f).name.removesuffix("-results.md")
        venue, year = re.sub(r"\d{4}$", "", name), _int(name)
        text = Path(f).read_text()
        for n, line in enumerate(text.splitlines()):
            m = _ROW.match(line.strip())
            if m:
                urls = re.findall(r"\]\((https?://[^)\s]+)\)", m["rest"])
                rec = LinkRecord(f"page:{name}:{n}", "results_pages", m["title"], year, venue)
                out.append((rec, link_keys(urls)))
        for n, item in enumerate(re.split(r"\n-\s*title:", text)[1:]):
            title = re.match(r"\s*\"?(.*?)\"?\s*$", item.splitlines()[0])
            urls = re.findall(r"(?<!paper_url:)\s\"?(https?://[^\s\"]+)", item)
            if title:
                rec = LinkRecord(
                    f"page:{name}:item{n}", "results_pages", title.group(1), year, venue
                )
                out.append((rec, link_keys(urls)))
    return out


READERS = {
    "grsi": grsi,
    "per_paper": per_paper,
    "consolidated": consolidated,
    "rescience": rescience,
    "mlrc": mlrc,
    "reprodb": reprodb,
    "results_pages": results_pages,
}
#: the source pairs the sources link by an identifier, and which identifier
PAIRS = (
    ("grsi", "per_paper", "paper DOI"),
    ("grsi", "consolidated", "paper DOI"),
    ("per_paper", "consolidated", "paper DOI"),
    ("rescience", "mlrc", "article DOI (and its Zenodo URL)"),
    ("reprodb", "results_pages", "artifact URLs"),
)


def expected_pairs(left: list[Entry], right: list[Entry]) -> set[tuple[str, str]]:
    """The pairs of the two sources sharing an identifier (from the raw files alone)."""
    by_id: dict[str, list[str]] = {}
    for rec, ids in right:
        for i in ids:
            by_id.setdefault(i, []).append(rec.id)
    return {(rec.id, b) for rec, ids in left for i in ids for b in by_id.get(i, [])}


def hard_negatives(left: list[Entry], right: list[Entry]) -> set[tuple[str, str]]:
    """Pairs sharing at least two title words (stop words aside) and no identifier."""
    words = {rec.id: set(normalise_title(rec.title).split()) - STOPWORDS for rec, _ in left + right}
    return {
        (a.id, b.id)
        for (a, ia), (b, ib) in product(left, right)
        if not ia & ib and len(words[a.id] & words[b.id]) >= 2
    }


def evaluate(data: Path, left_name: str, right_name: str) -> dict[str, Any]:
    """Precision and recall of the links accepted at each threshold, for one source pair."""
    left = [e for e in READERS[left_name](data) if e[1]]
    right = [e for e in READERS[right_name](data) if e[1]]
    truth = expected_pairs(left, right)
    negatives = hard_negatives(left, right)
    started = time.process_time()
    links = propose([r for r, _ in left + right], threshold=0.0, floor=0.0)
    seconds = time.process_time() - started
    side = {r.id: left_name for r, _ in left}
    found = {}
    for link in links:
        if not link.accepted:
            continue  # a tie or not the best of both records: never accepted, at any threshold
        key = (link.a, link.b) if side.get(link.a) == left_name else (link.b, link.a)
        found[key] = link.score
    curve = []
    for t in sorted({*THRESHOLDS, THRESHOLD}):
        accepted = {k for k, s in found.items() if s >= t}
        tp = len(accepted & truth)
        curve.append(
            {
                "threshold": t,
                "accepted": len(accepted),
                "true_positives": tp,
                "precision": tp / len(accepted) if accepted else 1.0,
                "recall": tp / len(truth) if truth else 1.0,
                "hard_negatives_accepted": len(accepted & negatives),
            }
        )
    at = next(c for c in curve if c["threshold"] == THRESHOLD)
    missed = sorted(truth - {k for k, s in found.items() if s >= THRESHOLD})
    titles = {r.id: r.title for r, _ in left + right}
    false = sorted({k for k, s in found.items() if s >= THRESHOLD} - truth)
    return {
        "pair": f"{left_name} ↔ {right_name}",
        "records": [len(left), len(right)],
        "identifier_pairs": len(truth),
        "hard_negatives": len(negatives),
        "proposals": len(links),
        "cpu_seconds": round(seconds, 3),
        "at_threshold": at,
        "curve": curve,
        "missed": [[titles[a], titles[b]] for a, b in missed][:10],
        "false_links": [[titles[a], titles[b]] for a, b in false][:10],
    }


def scale(data: Path) -> dict[str, Any]:
    """Every reader's records at once (with or without an identifier) plus ReproDB's
    papers.json and GK2018's evaluations: how many pairs blocking scores, and the time."""
    import csv

    records = [r for reader in READERS.values() for r, _ in reader(data)]
    papers = json.loads((data / "artifact_evaluation/reprodb/papers.json").read_text())
    records += [
        LinkRecord(
            f"papers:{i}", "reprodb_papers", p["title"], _int(p.get("year")), p.get("conference")
        )
        for i, p in enumerate(papers)
    ]
    with open(data / "surveys/gundersen_kjensmo_2018/data/evaluations.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            records.append(
                LinkRecord(
                    f"gk:{row['index']}",
                    "gk2018",
                    row["title"],
                    _int("20" + row["conference"][-2:]),
                    row["conference"][:-3],
                    family_names(row["authors"]),
                    link_keys([row["link"]]),
                )
            )
    from reprokg.evidence.candidate_matches import blocks

    started = time.process_time()
    pairs = blocks(records)
    links = propose(records)
    seconds = time.process_time() - started
    n = len(records)
    return {
        "records": n,
        "all_pairs": n * (n - 1) // 2,
        "pairs_scored": len(pairs),
        "proposals": len(links),
        "accepted": sum(link.accepted for link in links),
        "cpu_seconds": round(seconds, 2),
    }


def markdown(results: list[dict[str, Any]], scaled: dict[str, Any]) -> str:
    lines = [
        "## Links without shared identifiers (issue 42)",
        "",
        "`python benchmarks/linkage/run.py --readme --data DATA` (the field's raw files, DATA laid",
        "out as the tests' `REPROKG_SHARED_DATA`, read by the",
        "benchmark itself; the matcher is `evidence/candidate_matches.py`'s `propose`, the",
        f"declared threshold {THRESHOLD}). Per source pair, the records holding the identifier",
        "on both sides, matched with it hidden; *identifier pairs* are the pairs sharing it",
        "(the truth), *hard negatives* the pairs sharing two title words or more and no",
        "identifier (every pair counted, not only the matcher's blocks).",
        "",
        f"At the declared threshold {THRESHOLD}:",
        "",
        "| source pair (identifier hidden) | records | identifier pairs | hard negatives | "
        "accepted | precision | recall | hard negatives accepted |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r, (_, _, ident) in zip(results, PAIRS, strict=True):
        a = r["at_threshold"]
        lines.append(
            f"| {r['pair']} ({ident}) | {r['records'][0]} + {r['records'][1]} | "
            f"{r['identifier_pairs']} | {r['hard_negatives']} | {a['accepted']} | "
            f"{a['precision']:.3f} | {a['recall']:.3f} | {a['hard_negatives_accepted']} |"
        )
    tp = sum(r["at_threshold"]["true_positives"] for r in results)
    acc = sum(r["at_threshold"]["accepted"] for r in results)
    truth = sum(r["identifier_pairs"] for r in results)
    lines += [
        f"| all pairs | | {truth} | {sum(r['hard_negatives'] for r in results)} | {acc} | "
        f"{tp / acc:.3f} | {tp / truth:.3f} | "
        f"{sum(r['at_threshold']['hard_negatives_accepted'] for r in results)} |",
        "",
        "The curve: precision / recall (hard negatives accepted) of the links accepted at each",
        "threshold.",
        "",
        "| threshold | " + " | ".join(r["pair"] for r in results) + " |",
        "|---" * (len(results) + 1) + "|",
    ]
    for k, t in enumerate(results[0]["curve"]):
        cells = []
        for r in results:
            c = r["curve"][k]
            cells.append(
                f"{c['precision']:.3f} / {c['recall']:.3f} ({c['hard_negatives_accepted']})"
            )
        mark = " (declared)" if t["threshold"] == THRESHOLD else ""
        lines.append(f"| {t['threshold']}{mark} | " + " | ".join(cells) + " |")
    lines += ["", "Identifier pairs not linked at the threshold (at most three per pair):", ""]
    for r in results:
        for a, b in r["missed"][:3]:
            lines.append(f"- {r['pair']}: «{a}» / «{b}»")
    lines += [
        "",
        "Links accepted between records of different identifiers (at most three per pair):",
        "",
    ]
    any_false = False
    for r in results:
        for a, b in r["false_links"][:3]:
            any_false = True
            lines.append(f"- {r['pair']}: «{a}» / «{b}»")
    if not any_false:
        lines.append("- none")
    lines += [
        "",
        f"Blocking at scale: every reader's records plus ReproDB's papers.json and GK2018 — "
        f"{scaled['records']:,} records, {scaled['all_pairs']:,} pairs if "
        f"compared all with all; the rarest-title-word blocks score {scaled['pairs_scored']:,} "
        f"of them ({scaled['proposals']:,} proposals, {scaled['accepted']:,} accepted) in "
        f"{scaled['cpu_seconds']} s of CPU.",
        "",
        "Not measured, because no two sources link them by an identifier: ReproDB artifacts",
        "without a paper DOI ↔ papers with DOIs of other sources (ReproDB's 374 paper DOIs",
        "meet no other source's DOI), MLRC originals ↔ works of the graph (the originals'",
        "DOIs are held by no other source), GK2018 ↔ Papers with Code (the PwC checklist rows",
        "carry a repository URL and no title; GK2018 samples AAAI/IJCAI 2013–2016, PwC NeurIPS",
        "2019).",
        "",
    ]
    return "\n".join(lines)


def write_readme(section: str, readme: Path) -> None:
    text = readme.read_text()
    head = "## Links without shared identifiers"
    if head in text:
        start = text.index(head)
        nxt = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[nxt + 1 :] if nxt != -1 else "")
    else:
        anchor = text.find("\n## Figures once quoted in code")
        text = (
            text[: anchor + 1] + section + "\n" + text[anchor + 1 :]
            if anchor != -1
            else text + "\n" + section
        )
    readme.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--readme", action="store_true", help="rewrite benchmarks/README.md's section"
    )
    args = parser.parse_args(argv)
    results = [evaluate(args.data, a, b) for a, b, _ in PAIRS]
    scaled = scale(args.data)
    section = markdown(results, scaled)
    sys.stdout.write(section)
    if args.json:
        args.json.write_text(json.dumps({"pairs": results, "scale": scaled}, indent=2))
    if args.readme:
        write_readme(section, Path(__file__).resolve().parents[1] / "README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
