"""The papers index (posting lists, title-word prefixes, sort orders) selects what a plain
scan over the records selects."""

from __future__ import annotations

import itertools
import random

import pytest
from rdflib import Literal, URIRef

from reprokg.service.web.papers import Filters, PaperIndex, code_by, select

RK = "https://w3id.org/reprokg/ontology#"


def _rows(n: int = 300, seed: int = 7) -> list[dict]:
    rnd = random.Random(seed)
    words = ["reproducible", "neural", "rendering", "mesh", "graph", "learning", "fast"]
    out = []
    for i in range(n):
        p = URIRef(f"https://doi.org/10.1/{i}")
        out.append({"paper": p, "key": Literal("paper"), "value": Literal("")})
        title = " ".join(rnd.sample(words, 3)) + f" {i}"
        out.append({"paper": p, "key": Literal("title"), "value": Literal(title)})
        if rnd.random() < 0.9:
            out.append(
                {
                    "paper": p,
                    "key": Literal("year"),
                    "value": Literal(rnd.choice([2014, 2016, 2018])),
                }
            )
        out.append({"paper": p, "key": Literal("venue"), "value": Literal(rnd.choice(["A", "B"]))})
        for t in rnd.sample(["Geometry", "Rendering", "Images"], rnd.randint(0, 2)):
            out.append({"paper": p, "key": Literal("topic"), "value": URIRef(RK + "Topic" + t)})
        for s in rnd.sample(["survey", "gk2018", "audit"], rnd.randint(1, 2)):
            out.append({"paper": p, "key": Literal("source"), "value": Literal(s)})
        for _ in range(rnd.randint(0, 2)):
            out.append({"paper": p, "key": Literal("code"), "value": Literal(rnd.random() < 0.4)})
    return out


@pytest.mark.slow
def test_index_selects_what_a_scan_selects() -> None:
    index = PaperIndex(_rows())
    cases = itertools.product(
        ["", "reproduc", "neural mesh", "zzz"],
        [None, 2018],
        ["", "yes", "no"],
        ["", "Geometry"],
        ["", "audit"],
    )
    for q, year, code, topic, source in cases:
        f = Filters(q=q, year=year, code=code, topic=topic, source=source)
        for sort in ("title", "year", "code"):
            got = [r.iri for r in index.select(f, sort)]
            want = [r.iri for r in select(index.ordered(sort), f)]
            assert got == want, (f, sort)


def test_code_share_counts_known_answers_only() -> None:
    index = PaperIndex(_rows())
    by_year = {p.label: (p.k, p.n) for p in code_by(index.records(), "year")}
    for label, (k, n) in by_year.items():
        recs = [
            r
            for r in index.records()
            if str(r.year) == label or (label == "unknown" and r.year is None)
        ]
        assert n == sum(r.code is not None for r in recs)
        assert k == sum(r.code == "yes" for r in recs)
