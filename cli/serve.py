"""``reprokg serve``: run the service with uvicorn (one worker, or several read-only ones).

Kept apart from :mod:`reprokg.cli` so the CLI stays thin and fastapi/uvicorn are only
imported when serving.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import socket

    from reprokg.core.settings import Settings

Handler = Callable[[argparse.Namespace], int]


def register(command: Callable[[str, str, Handler], argparse.ArgumentParser]) -> None:
    p = command("serve", "Run the HTTP service (documents, named queries, SPARQL).", serve)
    p.add_argument(
        "--store",
        metavar="DIR|URL",
        default=None,
        help="embedded store directory or SPARQL endpoint URL "
        "(default: $REPROKG_STORE or ./reprokg-data; with --demo a fresh temp dir)",
    )
    p.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--demo",
        action="store_true",
        help="load the bundled example data into a fresh store first",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="uvicorn worker processes; more than one opens the embedded store read-only "
        "in each (HTTP writes off; see docs/service.md)",
    )
    p.add_argument(
        "--read-only",
        action="store_true",
        help="open the store read-only (HTTP writes off); implied by --workers > 1",
    )
    p.add_argument(
        "--in-memory",
        action="store_true",
        help="with --read-only or --workers > 1: copy the store into memory in each worker "
        "and answer named queries and /id lookups from the copy",
    )
    p.add_argument(
        "--no-access-log", action="store_true", help="no JSON-lines access log on stderr"
    )


def _print_banner(
    url: str,
    demo_counts: dict[str, int] | None,
    settings: Settings,
    workers: int,
    requests: list[str] | None = None,
    temporary: bool = False,
) -> None:
    from reprokg.service.demo import EXAMPLE_REQUESTS
    from reprokg.service.deps import how_to_write

    out = sys.stderr
    print(f"reprokg serving {settings.store} at {url}  (workers: {workers})", file=out)
    if demo_counts is not None:
        summary = ", ".join(f"{n} {k}" for k, n in sorted(demo_counts.items())) or "nothing"
        print(f"demo data loaded: {summary}", file=out)
    if temporary:
        print("the demo store is temporary: removed when the server stops", file=out)
    print(how_to_write(settings) + ".", file=out)
    print("try:", file=out)
    for path in requests or EXAMPLE_REQUESTS:
        print(f"  curl '{url}{path}'", file=out)
    q = "SELECT ?type (COUNT(*) AS ?n) WHERE { ?s a ?type } GROUP BY ?type ORDER BY DESC(?n)"
    print(f"  curl '{url}/sparql' --data-urlencode 'query={q}'", file=out)


class Terminated(SystemExit):
    """SIGTERM, as an exception: ``serve`` ends through its ``finally`` (which removes a
    temporary demo store) as on Ctrl+C. uvicorn re-raises the signal after its graceful
    shutdown, and Python's default action would end the process without running it."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated(128 + signum)


def _listen_socket(host: str, port: int, workers: int) -> socket.socket:
    """The address, bound before anything is loaded: a port in use fails at once, not
    after the demo has loaded (and stays reserved while it loads)."""
    import socket  # here: every other command builds this module's parser

    from reprokg.core.errors import UsageError
    from reprokg.service.workers import BALANCED_LISTENERS, reuse_port_socket

    try:
        if workers > 1 and BALANCED_LISTENERS:
            return reuse_port_socket(host, port)  # the workers join its SO_REUSEPORT group
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
        except OSError:
            sock.close()
            raise
        return sock
    except OSError as exc:
        raise UsageError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc} "
            "(another server on that port? choose one with --port)"
        ) from exc


def serve(args: argparse.Namespace) -> int:
    """Bind, load (the demo), serve; a temporary demo store is removed however it ends."""
    sock = _listen_socket(args.host, args.port, args.workers)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if main_thread else None
    temporary: str | None = None
    try:
        if args.demo and not args.store:
            from reprokg.service.demo import demo_store_dir

            temporary = demo_store_dir(None)
        return _serve(args, sock, temporary)
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
        sock.close()
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)


def _serve(args: argparse.Namespace, sock: socket.socket, temporary: str | None) -> int:
    import uvicorn

    from reprokg.core.settings import configure
    from reprokg.core.settings import settings as current_settings
    from reprokg.service.app import create_app
    from reprokg.service.http import uvicorn_options

    overrides: dict[str, object] = {
        "access_log": not args.no_access_log,
        "memory_mirror": args.in_memory,
    }
    store_spec = args.store
    if args.demo:
        store_spec = args.store or temporary
        overrides["demo"] = True
    if store_spec:
        overrides["store"] = store_spec
    settings = current_settings().with_(**overrides)
    configure(settings)
    demo_counts = requests = None
    if args.demo:
        from reprokg.service.demo import demo_cache_dir, demo_requests, load_demo, prepare_demo

        if args.store:  # the user's store: load into it (it may hold data already)
            from reprokg.store import open_store

            with open_store(settings.store) as store:
                demo_counts = load_demo(store)
                requests = demo_requests(store)
        else:  # a fresh folder: a copy of the demo store built once (service/demo.py)
            demo_counts, requests = prepare_demo(
                settings.store, demo_cache_dir(settings.demo_cache)
            )
    port = sock.getsockname()[1]
    url = f"http://{args.host}:{port}"
    if args.read_only or args.workers > 1:
        # several processes: pyoxigraph allows one read-write opener, and a read-only
        # opener next to a writer is undefined behaviour, so every worker opens read-only
        settings = settings.with_(read_only=True)
    configure(settings)
    # connection limits and timeouts, deliberately (service/http.py)
    uv_log = {"access_log": False, "log_level": "info", **uvicorn_options(settings)}
    banner = (url, demo_counts, settings, max(args.workers, 1), requests, bool(temporary))
    if args.workers <= 1:
        app = create_app(settings)
        _print_banner(*banner)
        server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=port, **uv_log))
        # a signal ends a graceful shutdown, as with uvicorn.run
        with contextlib.suppress(KeyboardInterrupt, Terminated):
            server.run(sockets=[sock])
        return 0 if server.started else 3  # 3: uvicorn's start-up failure
    os.environ.update(settings.to_env())
    _print_banner(*banner)
    from reprokg.service.workers import BALANCED_LISTENERS, run_workers

    if BALANCED_LISTENERS:  # a listener per worker: the kernel spreads the connections
        return run_workers(
            "reprokg.service.app:app_from_env", args.host, port, args.workers, **uv_log
        )
    sock.close()  # uvicorn's supervisor binds the address itself
    uvicorn.run(
        "reprokg.service.app:app_from_env",
        factory=True,
        host=args.host,
        port=port,
        workers=args.workers,
        **uv_log,
    )
    return 0
