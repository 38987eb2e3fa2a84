"""Nothing acknowledged is lost: a mixed load, ``kill -9`` of the server mid-load, a restart.

    python -m benchmarks.load.acknowledged --clients 16 --seconds 300 --kill-at 150

A real ``reprokg serve`` on loopback (one process, embedded store, parse workers) gets
``--clients`` threads of reads (``/health``, ``/documents``, a document, SPARQL COUNT) and
writes: new ir_metadata run headers, revisions of them (same source key, new content),
deletes, and writes that must fail (a document with SHACL violations: 422; broken YAML:
400). At ``--kill-at`` seconds the server's whole process group gets SIGKILL mid-load; it is
restarted on the same store and the load goes on until ``--seconds``. Then:

* every write answered 201 is in the store (unless a later acknowledged revision or delete
  of the same source key replaced it), every acknowledged delete is gone;
* no write answered with an error is in the store (its source key holds what it held before);
* the merged default graph equals a rebuild of it from the documents (``rebuild_merge``).

Each client owns its source keys and works on them one request at a time, so the expected
store is known exactly; a request that got no answer (the kill) may or may not have been
applied, so its key is left alone afterwards (``uncertain``, counted). Exit status 1 when a
check fails; ``--json`` writes the report.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # benchmarks.ingest.generate

from benchmarks.ingest.generate import header  # noqa: E402

TOKEN = "load-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``reprokg serve`` in its own process group (so SIGKILL reaches its workers too)."""

    def __init__(self, store: Path, port: int, log: Path) -> None:
        self.store, self.port, self.log = store, port, log
        self.proc: subprocess.Popen | None = None
        self.url = f"http://127.0.0.1:{port}"

    def start(self, timeout: float = 180.0) -> None:
        env = {**os.environ, "REPROKG_WRITE_TOKEN": TOKEN, "REPROKG_ACCESS_LOG": "0"}
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "reprokg",
                    "serve",
                    "--store",
                    str(self.store),
                    "--port",
                    str(self.port),
                ],
                env=env,
                stdout=out,
                stderr=out,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"reprokg serve exited with {self.proc.returncode}")
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("reprokg serve did not start")

    def kill9(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


@dataclass
class Key:
    """One source key a client owns: what the store must hold for it."""

    name: str
    index: int
    current: str | None = None  # the document id the store must hold, None: none
    revision: int = 0
    uncertain: bool = False
    history: list[str] = field(default_factory=list)


@dataclass
class Report:
    requests: Counter = field(default_factory=Counter)
    keys: list[Key] = field(default_factory=list)
    errors_answered: list[Key] = field(default_factory=list)  # fresh keys refused
    problems: list[str] = field(default_factory=list)
    killed_at: float | None = None
    restarted_after: float | None = None
    restarted: bool = False
    acknowledged_after_restart: int = 0


def _source_key(k: Key) -> str:
    return f"run:gen-run-{k.index:05d}:{k.name}"


def _body(k: Key, revision: int, *, bad: str | None = None) -> bytes:
    text = header(k.index).decode()
    if revision:
        text = text.replace("run-version: 1.0", f"run-version: 1.{revision}")
    if bad == "violation":
        text = text.replace("0000-0002-0661-7189", "0000-0002-0661-7188")
    elif bad == "syntax":
        text += "\nbroken: [unclosed\n"
    return text.encode()


def _wait_for(http: httpx.Client, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            if http.get("/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)


def client(
    n: int, server: Server, stop: threading.Event, report: Report, lock: threading.Lock, seed: int
) -> None:
    rng = random.Random(seed * 1000 + n)
    keys: list[Key] = []
    counter = 0
    http = httpx.Client(base_url=server.url, timeout=60)

    def new_key() -> Key:
        nonlocal counter
        counter += 1
        k = Key(name=f"c{n:02d}-k{counter:05d}.yaml", index=n * 100_000 + counter)
        keys.append(k)
        return k

    def post(k: Key, body: bytes) -> httpx.Response | None:
        try:
            return http.post(
                "/documents",
                params={"name": k.name, "kind": "run"},
                content=body,
                headers={**AUTH, "Content-Type": "application/yaml"},
            )
        except httpx.HTTPError:
            return None

    while not stop.is_set():
        live = [k for k in keys if k.current and not k.uncertain]
        roll = rng.random()
        op = (
            "read"
            if roll < 0.4
            else "new"
            if roll < 0.7
            else "revise"
            if roll < 0.85
            else "delete"
            if roll < 0.95
            else "bad"
        )
        if op in ("revise", "delete") and not live:
            op = "new"
        try:
            if op == "read":
                what = rng.choice(["health", "documents", "document", "sparql"])
                if what == "health":
                    http.get("/health")
                elif what == "documents":
                    http.get("/documents")
                elif what == "document" and live:
                    http.get(f"/documents/{rng.choice(live).current}")
                else:
                    http.get("/sparql", params={"query": "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"})
                with lock:
                    report.requests["read"] += 1
                continue
        except httpx.HTTPError:
            with lock:
                report.requests["read (no answer)"] += 1
            _wait_for(http, stop)
            continue
        if op == "new":
            k = new_key()
            r = post(k, _body(k, 0))
        elif op == "revise":
            k = rng.choice(live)
            r = post(k, _body(k, k.revision + 1))
        elif op == "delete":
            k = rng.choice(live)
            try:
                r = http.delete(f"/documents/{k.current}", headers=AUTH)
            except httpx.HTTPError:
                r = None
        else:
            k = new_key()
            r = post(k, _body(k, 0, bad=rng.choice(["violation", "syntax"])))
        with lock:
            if r is None:
                report.requests[f"{op} (no answer)"] += 1
                k.uncertain = True
                k.history.append(f"{op}: no answer")
            else:
                report.requests[f"{op} {r.status_code}"] += 1
                k.history.append(f"{op}: {r.status_code}")
                if report.restarted and r.status_code in (201, 204):
                    report.acknowledged_after_restart += 1
                if op == "bad" and r.status_code < 400:
                    report.problems.append(f"{k.name}: a bad document was answered {r.status_code}")
                if op in ("new", "revise", "bad") and r.status_code == 201:
                    k.current = r.json()["documents"][0]["id"]
                    if op == "revise":
                        k.revision += 1
                elif op == "delete" and r.status_code == 204:
                    k.current = None
                elif r.status_code >= 500 and r.status_code != 503:  # 503: busy, retry later
                    report.problems.append(
                        f"{k.name}: {op} answered {r.status_code}: {r.text[:200]}"
                    )
                elif op == "bad":
                    report.errors_answered.append(k)
        if r is None:
            _wait_for(http, stop)  # the server is down: wait for the restart, spend no keys
    http.close()
    with lock:
        report.keys.extend(keys)


def verify(server: Server, report: Report) -> None:
    """The store (through the API, then offline) against what was acknowledged."""
    docs: list[dict] = []
    url: str | None = server.url + "/documents"
    while url:  # every page
        page = httpx.get(url, timeout=120).json()
        docs += page["documents"]
        url = page["next"]
    by_key: dict[str, set[str]] = {}
    for d in docs:
        by_key.setdefault(d.get("source_key", ""), set()).add(d["id"])
    for k in report.keys:
        if k.uncertain:
            continue
        held = by_key.get(_source_key(k), set())
        expected = {k.current} if k.current else set()
        if held != expected:
            report.problems.append(
                f"{k.name}: the store holds {sorted(held)}, acknowledged {sorted(expected)} "
                f"({'; '.join(k.history)})"
            )


def merge_equals_rebuild(store_dir: Path) -> tuple[bool, int]:
    from reprokg.store import open_store
    from reprokg.store.base import GraphResult, MergeMaintenance

    q = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"
    with open_store(store_dir) as store:
        assert isinstance(store, MergeMaintenance)
        res = store.query(q)
        assert isinstance(res, GraphResult)
        before = {tuple(map(str, t)) for t in res.graph}
        store.rebuild_merge()
        res = store.query(q)
        assert isinstance(res, GraphResult)
        after = {tuple(map(str, t)) for t in res.graph}
    return before == after, len(before)


def run(
    store_dir: Path,
    *,
    clients: int = 16,
    seconds: float = 60.0,
    kill_at: float = 30.0,
    seed: int = 0,
    log: Path | None = None,
    kill_after: int = 0,
    then: int = 0,
) -> dict:
    """The load; the kill comes at ``kill_at`` s and once ``kill_after`` writes were
    acknowledged, the end at ``seconds`` and once ``then`` more were acknowledged after the
    restart (so a short run on a slow machine still kills mid-load, not before any write)."""
    log = log or store_dir.parent / "server.log"
    server = Server(store_dir, free_port(), log)
    server.start()
    report = Report()
    stop = threading.Event()
    lock = threading.Lock()
    threads = [
        threading.Thread(target=client, args=(i, server, stop, report, lock, seed))
        for i in range(clients)
    ]
    t0 = time.monotonic()
    for t in threads:
        t.start()

    def acked() -> int:
        with lock:
            return sum(v for k, v in report.requests.items() if k.endswith((" 201", " 204")))

    try:
        time.sleep(kill_at)
        give_up = time.monotonic() + 600  # a server that acknowledges nothing fails the run
        while acked() < kill_after and time.monotonic() < give_up:
            time.sleep(0.1)
        server.kill9()
        report.killed_at = time.monotonic() - t0
        server.start()
        report.restarted = True
        report.restarted_after = time.monotonic() - t0 - report.killed_at
        time.sleep(max(0.0, seconds - (time.monotonic() - t0)))
        give_up = time.monotonic() + 600
        while report.acknowledged_after_restart < then and time.monotonic() < give_up:
            time.sleep(0.1)
    finally:
        stop.set()
        for t in threads:
            t.join(120)
    try:
        verify(server, report)
    finally:
        server.stop()
    same, triples = merge_equals_rebuild(store_dir)
    if not same:
        report.problems.append("the merged default graph differs from a rebuild")
    acknowledged = sum(v for k, v in report.requests.items() if k.endswith((" 201", " 204")))
    return {
        "clients": clients,
        "seconds": round(time.monotonic() - t0, 1),
        "killed_at": round(report.killed_at or 0, 1),
        "restart_seconds": round(report.restarted_after or 0, 1),
        "requests": dict(sorted(report.requests.items())),
        "acknowledged_writes": acknowledged,
        "acknowledged_after_restart": report.acknowledged_after_restart,
        "keys": len(report.keys),
        "keys_uncertain": sum(k.uncertain for k in report.keys),
        "keys_live": sum(bool(k.current) and not k.uncertain for k in report.keys),
        "error_answered_writes": len(report.errors_answered),
        "merge_triples": triples,
        "merge_equals_rebuild": same,
        "problems": report.problems,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--kill-at", type=float, default=150)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kill-after", type=int, default=0, help="acknowledged writes before")
    ap.add_argument("--then", type=int, default=0, help="acknowledged writes after restart")
    ap.add_argument("--store", type=Path, default=None, help="a fresh directory (default: temp)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="reprokg-load-"))
    store = args.store or base / "kg"
    out = run(
        store,
        clients=args.clients,
        seconds=args.seconds,
        kill_at=args.kill_at,
        seed=args.seed,
        log=base / "server.log",
        kill_after=args.kill_after,
        then=args.then,
    )
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    sys.exit(1 if out["problems"] else 0)


if __name__ == "__main__":
    main()
