"""Several uvicorn worker processes, each accepting on its own ``SO_REUSEPORT`` socket.

uvicorn's ``--workers`` binds one listening socket in the parent and shares it: whichever
worker is awake takes the next connection. Under the find-baselines benchmark (16
keep-alive clients, 2 workers) one worker took every connection and the other stayed
idle (benchmarks/README.md#figures-once-quoted-in-code), so two workers served no more than one.
With a listener per worker in one ``SO_REUSEPORT`` group, Linux spreads connections over the
workers by a hash of their addresses (the change proposed for uvicorn in
encode/uvicorn#2472, not merged). Elsewhere the kernel does not balance such a group,
so :data:`BALANCED_LISTENERS` is false and ``reprokg serve`` keeps uvicorn's supervisor.

The supervisor here restarts a worker that dies after it started serving and stops
everything when one fails to start (a bad store path would fail the same way again).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
import socket
import sys
import threading
import time
from typing import Any

log = logging.getLogger("reprokg.service")

BALANCED_LISTENERS = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")
#: seconds a worker gets to finish its requests after SIGTERM before it is killed
GRACE_SECONDS = 30.0


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` in the address's ``SO_REUSEPORT`` group."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _worker(app: str, host: str, port: int, uvicorn_kwargs: dict[str, Any], serving: Any) -> None:
    """One worker (spawned): its own listener, uvicorn on it; ``serving`` is set once the
    app has started (the parent tells a failed start from a later crash by it)."""
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                serving.set()

    config = uvicorn.Config(app, factory=True, **uvicorn_kwargs)
    config.configure_logging()
    sock = reuse_port_socket(host, port)
    sock.listen(config.backlog)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C reaches the whole group
        Server(config).run(sockets=[sock])


def run_workers(app: str, host: str, port: int, workers: int, **uvicorn_kwargs: Any) -> int:
    """Serve ``app`` (an import string of an app factory) from ``workers`` processes.

    The parent binds the address first without listening: a port in use fails here, the
    port stays reserved while the workers run, and port 0 is resolved once for all of
    them. It does not accept, so the kernel never queues a connection to it.
    """
    probe = reuse_port_socket(host, port)
    port = probe.getsockname()[1]
    spawn = multiprocessing.get_context("spawn")
    stop = threading.Event()
    status = 0

    def start_one() -> tuple[multiprocessing.process.BaseProcess, Any]:
        serving = spawn.Event()
        proc = spawn.Process(target=_worker, args=(app, host, port, uvicorn_kwargs, serving))
        proc.start()
        return proc, serving

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    procs = [start_one() for _ in range(workers)]
    try:
        while not stop.wait(0.5):
            for i, (proc, serving) in enumerate(procs):
                if proc.is_alive():
                    continue
                if not serving.is_set():
                    log.error("worker %s failed to start (%s); stopping", proc.pid, proc.exitcode)
                    status = 1
                    stop.set()
                    break
                log.warning("worker %s exited (%s); starting another", proc.pid, proc.exitcode)
                time.sleep(1.0)  # no busy loop when a worker dies at once every time
                procs[i] = start_one()
    finally:
        for proc, _ in procs:
            if proc.is_alive():
                proc.terminate()  # SIGTERM: uvicorn finishes the requests in flight
        deadline = time.monotonic() + GRACE_SECONDS
        for proc, _ in procs:
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        probe.close()
    return status
