"""Leaderboard ranks kept by the embedded store (store/leaderboard_ranks.py): after inserts,
revisions, deletes, SPARQL updates and reopening, every board's ranked window equals the first rows
of a full ``ORDER BY`` over the same data (written here, independently of the store's own
reference query), and find-baselines answers the same from the ranks as from the template.
A small window (5 entries in buckets of 2) makes boards overflow it and entries move in
and out."""

from __future__ import annotations

import random
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import XSD

import reprokg.store.leaderboard_ranks as ranks
from reprokg.core.errors import StoreError
from reprokg.core.identifiers import leaderboard_iri
from reprokg.core.namespaces import RK
from reprokg.loaders.qrels import collection_iri
from reprokg.sparql import ranked
from reprokg.sparql.named import get_query
from reprokg.store.base import DocumentWrite, LeaderboardRanks, SelectResult
from reprokg.store.merge import RANKS_GRAPH, RANKS_MARKER, RANKS_MARKER_V1
from reprokg.store.oxigraph import OxigraphStore

EX = "http://example.org/"
MLS_VALUE = URIRef("http://www.w3.org/ns/mls#hasValue")
COLLECTIONS = ["toy/a", "toy/b"]
MEASURES = ["map", "ndcg"]

#: the order find-baselines promises, written out in full (no LIMIT: Python cuts)
FULL = """
SELECT ?value ?score ?run WHERE {{
  ?value <https://w3id.org/reprokg/ontology#onLeaderboard> <{board}> .
  ?value <http://www.w3.org/ns/mls#hasValue> ?score .
  ?run <https://w3id.org/reprokg/ontology#reportedScore> ?value .
}} ORDER BY DESC(?score) ?run ?value
"""


@pytest.fixture(autouse=True)
def small_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ranks, "WINDOW", 5)
    monkeypatch.setattr(ranks, "BUCKET", 2)
    monkeypatch.setattr(OxigraphStore, "ranks_window", 5)


def _board(i: int) -> URIRef:
    return leaderboard_iri(collection_iri(COLLECTIONS[i % 2]), MEASURES[i // 2 % 2])


def _scores(doc: int, rng: random.Random, n: int = 3) -> Graph:
    """A document reporting ``n`` scores of its runs on random boards (scores repeat, so
    ties are broken by run, then value; integers and decimals mixed)."""
    g = Graph()
    for k in range(n):
        run = URIRef(f"{EX}run{rng.randrange(12)}")
        v = URIRef(f"{EX}doc{doc}/score{k}")
        g.add((run, RK.reportedScore, v))
        g.add((run, RK.runTag, Literal(f"tag-{run[-2:]}")))
        g.add((v, RK.onLeaderboard, _board(rng.randrange(4))))
        x = rng.choice([1, 2, 3]) if rng.random() < 0.3 else rng.randrange(40) / 8
        g.add(
            (
                v,
                MLS_VALUE,
                Literal(str(x), datatype=XSD.integer if isinstance(x, int) else XSD.decimal),
            )
        )
    return g


def _rows(store: OxigraphStore, sparql: str) -> list[tuple]:
    res = store.query(sparql)
    assert isinstance(res, SelectResult)
    return res.rows


def _full(store: OxigraphStore, board: str) -> list[tuple[str, str, str]]:
    """The board's entries in full order, as N-Triples (pyoxigraph's own terms)."""
    return [tuple(str(t) for t in r) for r in store._store.query(FULL.format(board=board))]


def _check(store: OxigraphStore) -> None:
    q = get_query("find-baselines")
    for i in range(4):
        board = str(_board(i))
        full = _full(store, board)
        assert store.ranked_entries(board) == min(len(full), ranks.WINDOW)
        # the board's count kept with its ranks: every entry, beyond the window too, as
        # the template's own count (what a page said before the count was kept) says
        assert store.board_entries(board) == len(full), f"board {i}"
        whole = {"collection": COLLECTIONS[i % 2], "measure": MEASURES[i // 2 % 2]}
        counted = _rows(store, q.count_sparql(whole))[0][0]
        assert ranked.known_total(q, whole, store) == int(counted) == len(full)
        window = [r[:3] for r in ranks.read_window(store._store, board)]
        assert window == full[: ranks.WINDOW], f"board {i}"
        assert [(r, s) for r, s, _tags in store.ranked_top(board, 3, {}) or []] == [
            (r, s) for _v, s, r in full[:3]
        ]
        params = {"collection": COLLECTIONS[i % 2], "measure": MEASURES[i // 2 % 2], "limit": "4"}
        # a score to beat: the windows keep no score to compare, the template answers
        above = {**params, "above": "2"}
        assert not ranked.plan(q, above, store).startswith(ranked.RANKED_MARK)
        beaten = sum(1 for _v, score, _r in full if float(score.split('"')[1]) > 2)
        assert int(_rows(store, q.count_sparql(above))[0][0]) == beaten
        planned = ranked.planned(q, params, store)
        assert planned.sparql.startswith(ranked.RANKED_MARK) and not planned.reads_store
        assert _rows(store, planned.sparql) == _rows(store, q.bind(params))
        # it reads no data: on an empty store, the same bytes as on the store
        json = ox.QueryResultsFormat.JSON
        assert store.native_query(planned.sparql, reads_store=False).serialize(
            format=json
        ) == store.native_query(planned.sparql).serialize(format=json)


@pytest.mark.slow
def test_ranks_follow_inserts_revisions_deletes_and_updates(tmp_path: Path) -> None:
    rng = random.Random(17)
    store = OxigraphStore(tmp_path / "db")
    assert isinstance(store, LeaderboardRanks)
    docs: dict[int, URIRef] = {}
    _check(store)
    # inserts: fresh batches (the N-Quads load path)
    for batch in range(3):
        writes = [
            DocumentWrite(URIRef(f"{EX}doc{d}"), list(_scores(d, rng)))
            for d in range(batch * 4, batch * 4 + 4)
        ]
        store.write_documents(writes)
        docs.update({int(str(w.iri)[len(EX) + 3 :]): w.iri for w in writes})
        _check(store)
    for step in range(25):
        op = rng.choice(["revise", "revise", "rename", "delete", "insert", "update", "score"])
        d = rng.choice(sorted(docs))
        if op == "revise":  # same graph rewritten: scores change, move boards, vanish
            store.add_document(docs[d], _scores(d + 100 * step, rng, rng.randrange(0, 4)))
        elif op == "rename":  # a revision under a new IRI
            new = URIRef(f"{EX}doc{d}v{step}")
            store.replace_document(new, _scores(d + 100 * step, rng), docs[d])
            docs[d] = new
        elif op == "delete":
            assert store.delete_document(docs.pop(d))
        elif op == "insert":
            n = 1000 + step
            docs[n] = URIRef(f"{EX}doc{n}")
            store.add_document(docs[n], _scores(n, rng))
        elif op == "score":  # an update adds a score: its value is found only after it
            v = URIRef(f"{docs[d]}/added{step}")
            store.update(
                f"INSERT DATA {{ GRAPH <{docs[d]}> {{ <{EX}run{step % 12}> "
                f"<{RK.reportedScore}> <{v}> . <{v}> <{RK.onLeaderboard}> <{_board(step)}> . "
                f"<{v}> <{MLS_VALUE}> {step % 5} }} }}"
            )
        else:  # a SPARQL Update on a named graph: a score changed in place
            store.update(
                f"DELETE {{ GRAPH <{docs[d]}> {{ ?v <{MLS_VALUE}> ?x }} }} "
                f"INSERT {{ GRAPH <{docs[d]}> {{ ?v <{MLS_VALUE}> 9.5 }} }} "
                f"WHERE {{ GRAPH <{docs[d]}> {{ ?v <{MLS_VALUE}> ?x }} }}"
            )
        _check(store)
        if not docs:
            break
    store.close()
    store = OxigraphStore(tmp_path / "db")  # reopened: the ranks are the stored ones
    _check(store)
    store.rebuild_merge()  # ranked again from scratch: the same
    _check(store)
    store.close()


@pytest.mark.slow
def test_a_store_without_ranks_is_ranked_at_open_and_stale_boards_are_repaired(
    tmp_path: Path,
) -> None:
    rng = random.Random(3)
    store = OxigraphStore(tmp_path / "db")
    store.write_documents(
        [DocumentWrite(URIRef(f"{EX}doc{d}"), list(_scores(d, rng, 6))) for d in range(6)]
    )
    board = str(_board(0))
    store._store.extend(ranks.stale_quads([board]))  # a crash after a write, before its ranks
    assert store.ranked_entries(board) is None
    q = get_query("find-baselines")
    params = {"collection": COLLECTIONS[0], "measure": MEASURES[0]}
    assert not ranked.plan(q, params, store).startswith(ranked.RANKED_MARK)  # the template
    store.close()
    store = OxigraphStore(tmp_path / "db")  # the writable open re-ranks the stale board
    assert store.maintenance["ranks"] == {"repaired": True}
    _check(store)
    # a store from before the ranks (no marker, no windows): ranked at its first open
    store._store.update(f"DROP SILENT GRAPH <{RANKS_GRAPH}> ; DROP SILENT GRAPH <{RANKS_MARKER}>")
    assert store.ranked_entries(board) is None
    store.close()
    store = OxigraphStore(tmp_path / "db")
    assert store.maintenance["ranks"]["boards"] == 4
    _check(store)
    # a store whose ranks are of the form before (v1 marker): ranked again, v1 dropped
    store._store.update(f"DROP GRAPH <{RANKS_MARKER}> ; CREATE GRAPH <{RANKS_MARKER_V1}>")
    assert store.ranked_entries(board) is None
    store.close()
    store = OxigraphStore(tmp_path / "db")
    assert store.maintenance["ranks"]["boards"] == 4
    assert not store._store.contains_named_graph(ox.NamedNode(RANKS_MARKER_V1))
    assert str(RANKS_MARKER_V1) not in {str(d) for d in store.documents()}
    _check(store)
    # ranks kept before counts were: a full window's board has no count (the template
    # counts its pages) until a write to it counts it again
    store._store.update(
        f"DELETE WHERE {{ GRAPH <{RANKS_GRAPH}> {{ ?b <{ranks.RKS}entryCount> ?n }} }}"
    )
    assert store.ranked_entries(board) == ranks.WINDOW
    assert store.board_entries(board) is None
    assert ranked.known_total(q, params, store) is None
    written = _scores(99, rng, 8)
    touched = {str(b) for b in written.objects(None, RK.onLeaderboard)}
    store.write_documents([DocumentWrite(URIRef(f"{EX}doc99"), list(written))])
    for i in range(4):  # the written boards are counted again, a full other one not
        b = str(_board(i))
        if b in touched:
            assert store.board_entries(b) == len(_full(store, b)), f"board {i}"
        else:
            assert store.board_entries(b) in (None, len(_full(store, b)))
    store.close()


def test_a_bulk_restore_is_ranked_and_a_failed_one_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restore big enough for the bulk loader cannot mark its boards one by one: the
    ranks are suspended (marker dropped) and rebuilt after it. A restore that fails mid-way
    (a syntax error at the dump's end) writes nothing and the ranks stay as they were."""
    import io

    import reprokg.store.oxigraph as embedded

    monkeypatch.setattr(embedded, "BULK_MIN_QUADS", 10)
    rng = random.Random(9)
    store = OxigraphStore(tmp_path / "db")
    store.write_documents(
        [DocumentWrite(URIRef(f"{EX}doc{d}"), list(_scores(d, rng, 6))) for d in range(4)]
    )
    source = OxigraphStore(None)
    source.write_documents(
        [DocumentWrite(URIRef(f"{EX}doc{d}"), list(_scores(d, rng, 6))) for d in range(4, 10)]
    )
    buf = io.BytesIO()
    source.dump(buf)
    dump = buf.getvalue()
    assert dump.count(b"\n") >= 10
    before = set(store._store)
    with pytest.raises(StoreError, match="cannot restore"):
        store.restore(io.BytesIO(dump + b"<broken"))
    assert "restore" not in store.maintenance
    assert set(store._store) == before  # nothing written, the ranks marker back
    assert store.document_count() == 4
    _check(store)
    store.restore(io.BytesIO(dump))
    assert store.maintenance["restore"]["ranks"]["boards"] == 4
    assert store.document_count() == 10
    _check(store)
    store.close()
    assert not list((tmp_path / "db").glob("bulk-*.sst"))


def test_filtered_requests_on_full_windows_read_the_ranks_when_the_window_suffices(
    tmp_path: Path,
) -> None:
    """A filter on a board larger than the window: answered from the ranks when at least
    ``limit`` window entries pass it (then they are the board's first ``limit`` that do),
    else by the template; the rows equal the template's either way."""
    from reprokg.core.namespaces import SCHEMA

    rng = random.Random(5)
    store = OxigraphStore(tmp_path / "db")
    writes = []
    for d in range(8):
        g = _scores(d, rng, 6)
        for run in {s for s, _p, _o in g.triples((None, RK.reportedScore, None))}:
            name = "anserini" if int(str(run)[len(EX) + 3 :]) % 3 == 0 else "terrier"
            platform, software = URIRef(f"{run}/platform"), URIRef(f"{run}/software")
            toolkit = URIRef(f"{EX}toolkit/{name}")
            g.add((run, RK.platform, platform))
            g.add((platform, RK.software, software))
            g.add((software, RK.retrievalToolkit, toolkit))
            g.add((toolkit, SCHEMA.name, Literal(name)))
        writes.append(DocumentWrite(URIRef(f"{EX}doc{d}"), list(g)))
    store.write_documents(writes)
    q = get_query("find-baselines")
    used = {True: 0, False: 0}
    for i in range(4):
        board = str(_board(i))
        assert store.ranked_entries(board) == ranks.WINDOW  # every board overflows it
        full = _rows(store, FULL.format(board=board))
        assert len(full) > ranks.WINDOW
        for toolkit in ("anserini", "terrier"):
            for limit in ("1", "2", "4"):
                params = {
                    "collection": COLLECTIONS[i % 2],
                    "measure": MEASURES[i // 2 % 2],
                    "toolkit": toolkit,
                    "limit": limit,
                }
                planned = ranked.plan(q, params, store)
                # written out: how many window entries pass, from the full order here
                passing = sum(
                    1
                    for _v, _s, run in full[: ranks.WINDOW]
                    if (int(str(run)[len(EX) + 3 :]) % 3 == 0) == (toolkit == "anserini")
                )
                from_ranks = planned.startswith(ranked.RANKED_MARK)
                assert from_ranks == (passing >= int(limit)), (board, toolkit, limit)
                used[from_ranks] += 1
                assert _rows(store, planned) == _rows(store, q.bind(params))
    assert used[True] and used[False]  # both ways were taken
    store.close()


def _header(run: URIRef, toolkits: list[str], method: str, os_name: str, tag: str | None) -> Graph:
    """What a run header says of its run on find-baselines' filter paths: a platform per
    toolkit (two platforms naming one toolkit are two solutions of the path), the
    toolkit a shared node named in a document of its own; maybe a second tag."""
    g = Graph()
    if tag is not None:
        g.add((run, RK.runTag, Literal(tag)))
    for k, tk in enumerate(toolkits):
        platform, software = URIRef(f"{run}/platform{k}"), URIRef(f"{run}/software{k}")
        g.add((run, RK.platform, platform))
        g.add((platform, RK.software, software))
        g.add((software, RK.retrievalToolkit, URIRef(f"{EX}toolkit/{tk}")))
        g.add((platform, RK.operatingSystem, URIRef(f"{run}/os{k}")))
        g.add((URIRef(f"{run}/os{k}"), RK.distribution, Literal(os_name)))
    g.add((run, RK.method, URIRef(f"{run}/method")))
    g.add((URIRef(f"{run}/method"), RK.retrievalStage, URIRef(f"{run}/stage")))
    g.add((URIRef(f"{run}/stage"), RK.stageMethod, Literal(method)))
    return g


@pytest.mark.slow
def test_filtered_answers_follow_changes_to_the_runs_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The names a window keeps for its filters and the runs' tags follow writes that
    change only the runs' paths (a header revised or deleted, a toolkit renamed in its own
    document, a path made through a node another document adds, a tag added), not the
    scores: every request is answered from the ranks with the template's rows in its
    order, duplicates included."""
    from reprokg.core.namespaces import SCHEMA

    monkeypatch.setattr(ranks, "WINDOW", 50)  # whole boards: the ranks answer every request
    monkeypatch.setattr(OxigraphStore, "ranks_window", 50)
    rng = random.Random(11)
    store = OxigraphStore(tmp_path / "db")
    names = {"anserini": "anserini", "terrier": "terrier", "pyserini": "pyserini"}
    store.write_documents(
        [DocumentWrite(URIRef(f"{EX}doc{d}"), list(_scores(d, rng, 5))) for d in range(8)]
        + [
            DocumentWrite(
                URIRef(f"{EX}tkdoc/{tk}"),
                [(URIRef(f"{EX}toolkit/{tk}"), SCHEMA.name, Literal(name))],
            )
            for tk, name in names.items()
        ]
    )

    def header(k: int) -> Graph:
        tks = rng.sample(sorted(names), rng.choice([1, 1, 2]))
        if rng.random() < 0.2:
            tks = [tks[0], tks[0]]  # one toolkit on two platforms: two solutions
        tag = rng.choice([None, None, f"alias-{rng.randrange(3)}", f"tag-n{k}"])
        return _header(URIRef(f"{EX}run{k}"), tks, rng.choice(["bm25", "dpr"]), "debian", tag)

    for k in range(12):
        store.add_document(URIRef(f"{EX}header/{k}"), header(k))
    q = get_query("find-baselines")
    answered = 0

    def check() -> None:
        nonlocal answered
        for i in range(4):
            for extra in (
                {},
                {"toolkit": "anserini"},
                {"toolkit": "terrier"},
                {"toolkit": "Anserini"},
                {"method": "bm25"},
                {"platform": "debian"},
                {"toolkit": "pyserini", "method": "dpr"},
            ):
                for limit in ("1", "3", "9"):
                    params = {
                        "collection": COLLECTIONS[i % 2],
                        "measure": MEASURES[i // 2 % 2],
                        "limit": limit,
                        **extra,
                    }
                    planned = ranked.plan(q, params, store)
                    assert planned.startswith(ranked.RANKED_MARK), params
                    assert _rows(store, planned) == _rows(store, q.bind(params)), params
                    answered += 1

    check()
    for step in range(30):
        op = rng.choice(["revise", "revise", "delete", "rename", "rename", "scores", "via", "tag"])
        k = rng.randrange(12)
        if op == "revise":
            store.add_document(URIRef(f"{EX}header/{k}"), header(k))
        elif op == "delete":
            store.delete_document(URIRef(f"{EX}header/{k}"))
        elif op == "rename":  # a toolkit's name changes in its own document (depth 3)
            tk = rng.choice(sorted(names))
            names[tk] = rng.choice(["anserini", "Anserini", "terrier", "pyserini"])
            g = Graph()
            g.add((URIRef(f"{EX}toolkit/{tk}"), SCHEMA.name, Literal(names[tk])))
            store.add_document(URIRef(f"{EX}tkdoc/{tk}"), g)
        elif op == "scores":
            store.add_document(URIRef(f"{EX}doc{k % 8}"), _scores(k + 100 * step, rng, 5))
        elif op == "tag":  # another tag for a run, in a document of its own
            g = Graph()
            g.add((URIRef(f"{EX}run{k}"), RK.runTag, Literal(f"alias-{step}")))
            store.add_document(URIRef(f"{EX}tagdoc/{k % 3}"), g)
        else:  # a document links an existing platform to another software node (depth 1)
            g = Graph()
            sw = URIRef(f"{EX}extra/software{step}")
            g.add((URIRef(f"{EX}run{k}/platform0"), RK.software, sw))
            g.add((sw, RK.retrievalToolkit, URIRef(f"{EX}toolkit/{rng.choice(sorted(names))}")))
            store.add_document(URIRef(f"{EX}extra/{step}"), g)
        check()
    assert answered == 31 * 4 * 7 * 3
    store.close()


def test_the_windows_filter_paths_are_the_templates() -> None:
    """The paths whose names a window keeps are those find-baselines' optional lines
    walk (queries/find-baselines.rq): the ranks would answer another filter otherwise."""
    import re

    q = get_query("find-baselines")
    prefixes = dict(re.findall(r"PREFIX (\w+): <([^>]+)>", q.sparql))
    for name, path in ranks.FILTER_PATHS.items():
        lines = q.optional_lines(name)
        steps = [
            prefixes[p] + local for line in lines for p, local in re.findall(r" (\w+):(\w+) ", line)
        ]
        assert tuple(steps) == path, name
        assert "sameTerm(" in lines[-1] and f"?{name})" in lines[-1]
