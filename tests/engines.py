"""Start real SPARQL engines on loopback for the store contract suite.

Each engine runs from a temp dir on free ports and is stopped (by its own pid) at the
end of the session. Missing binaries skip locally and fail under ``CI=true``
(``need``); ``.ci/run`` installs Virtuoso, the ``[test]`` extra the ``oxigraph`` CLI.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import need

VIRTUOSO_INI = """\
[Database]
DatabaseFile = {d}/virtuoso.db
ErrorLogFile = {d}/virtuoso.log
LockFile = {d}/virtuoso.lck
TransactionFile = {d}/virtuoso.trx
xa_persistent_file = {d}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {d}/virtuoso-temp.db
TransactionFile = {d}/virtuoso-temp.trx
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:{sql_port}
DisableUnixSocket = 1
ServerThreads = 10
CheckpointInterval = 60
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
DirsAllowed = ., {d}
MaxQueryMem = 200M

[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = {d}
ServerThreads = 4
MaxKeepAlives = 10
KeepAliveTimeout = 10

[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = 120
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, proc: subprocess.Popen, log: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"engine exited ({proc.returncode}): {log.read_text()[-2000:]}")
        try:
            r = httpx.post(url, data={"query": "ASK {}"}, timeout=2)
            if r.status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"engine at {url} not ready after {seconds} s: {log.read_text()[-2000:]}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def start_oxigraph_server(workdir: Path) -> tuple[subprocess.Popen, str]:
    exe = shutil.which("oxigraph")
    if exe is None:
        raise FileNotFoundError("oxigraph CLI")
    port = free_port()
    log = workdir / "oxigraph.log"
    proc = subprocess.Popen(
        [exe, "serve", "--location", str(workdir / "db"), "--bind", f"127.0.0.1:{port}"],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/query"
    try:
        _wait_http(url, proc, log)
    except BaseException:
        _stop(proc)
        raise
    return proc, url


def start_virtuoso(workdir: Path) -> tuple[subprocess.Popen, str]:
    exe = shutil.which("virtuoso-t")
    isql = shutil.which("isql-vt") or shutil.which("isql")
    if exe is None or isql is None:
        raise FileNotFoundError("virtuoso-t / isql-vt")
    sql_port, http_port = free_port(), free_port()
    ini = workdir / "virtuoso.ini"
    ini.write_text(VIRTUOSO_INI.format(d=workdir, sql_port=sql_port, http_port=http_port))
    log = workdir / "stdout.log"
    proc = subprocess.Popen(
        [exe, "+foreground", "+configfile", str(ini)],
        cwd=workdir,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{http_port}/sparql"
    try:
        _wait_http(url, proc, log, seconds=120)
        # Let the anonymous SPARQL user update (simpler than Digest auth on /sparql-auth;
        # the engine only listens on loopback and lives for one test session).
        out = subprocess.run(
            [isql, f"127.0.0.1:{sql_port}", "dba", "dba"],
            input='GRANT SPARQL_UPDATE TO "SPARQL";\n',
            capture_output=True,
            text=True,
            timeout=60,
        )
        if out.returncode != 0 or "Error" in out.stdout:
            raise RuntimeError(f"isql grant failed: {out.stdout}{out.stderr}")
    except BaseException:
        _stop(proc)
        raise
    return proc, url


@pytest.fixture(scope="session")
def oxigraph_server() -> Iterator[str]:
    need(shutil.which("oxigraph") is not None, "oxigraph server CLI (pip install '.[test]')")
    with tempfile.TemporaryDirectory(prefix="reprokg-oxs-") as d:
        proc, url = start_oxigraph_server(Path(d))
        try:
            yield url
        finally:
            _stop(proc)


@pytest.fixture(scope="session")
def virtuoso_server() -> Iterator[str]:
    need(shutil.which("virtuoso-t") is not None, "virtuoso-t (apt virtuoso-opensource-7-bin)")
    with tempfile.TemporaryDirectory(prefix="reprokg-virtuoso-") as d:
        proc, url = start_virtuoso(Path(d))
        try:
            yield url
        finally:
            _stop(proc)
