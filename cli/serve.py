"""``reprokg serve``: run the service with uvicorn (one worker, or several read-only ones).

Kept apart from :mod:`reprokg.cli` so the CLI stays thin and fastapi/uvicorn are only
imported when serving.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
from collections.abc import Callable

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
    store: str,
    workers: int,
    requests: list[str] | None = None,
) -> None:
    from reprokg.service.demo import EXAMPLE_REQUESTS

    out = sys.stderr
    print(f"reprokg serving {store} at {url}  (workers: {workers})", file=out)
    if demo_counts is not None:
        summary = ", ".join(f"{n} {k}" for k, n in sorted(demo_counts.items())) or "nothing"
        print(f"demo data loaded: {summary}", file=out)
    print("try:", file=out)
    for path in requests or EXAMPLE_REQUESTS:
        print(f"  curl '{url}{path}'", file=out)
    q = "SELECT ?type (COUNT(*) AS ?n) WHERE { ?s a ?type } GROUP BY ?type ORDER BY DESC(?n)"
    print(f"  curl '{url}/sparql' --data-urlencode 'query={q}'", file=out)


def serve(args: argparse.Namespace) -> int:
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
        from reprokg.service.demo import demo_store_dir

        store_spec = demo_store_dir(args.store)
        if not args.store:
            atexit.register(shutil.rmtree, store_spec, True)
        overrides["demo"] = True
    if store_spec:
        overrides["store"] = store_spec
    settings = current_settings().with_(**overrides)
    configure(settings)
    demo_counts = requests = None
    if args.demo:
        from reprokg.service.demo import demo_requests, load_demo
        from reprokg.store import open_store

        with open_store(settings.store) as store:
            demo_counts = load_demo(store)
            requests = demo_requests(store)
    url = f"http://{args.host}:{args.port}"
    if args.read_only:
        settings = settings.with_(read_only=True)
    configure(settings)
    # connection limits and timeouts, deliberately (service/http.py)
    uv_log = {"access_log": False, "log_level": "info", **uvicorn_options(settings)}
    if args.workers <= 1:
        app = create_app(settings)
        _print_banner(url, demo_counts, settings.store, 1, requests)
        uvicorn.run(app, host=args.host, port=args.port, **uv_log)
        return 0
    # Several processes: pyoxigraph allows one read-write opener, and a read-only opener
    # next to a writer is undefined behaviour, so every worker opens read-only.
    settings = settings.with_(read_only=True)
    os.environ.update(settings.to_env())
    _print_banner(url, demo_counts, settings.store, args.workers, requests)
    from reprokg.service.workers import BALANCED_LISTENERS, run_workers

    if BALANCED_LISTENERS:  # a listener per worker: the kernel spreads the connections
        return run_workers(
            "reprokg.service.app:app_from_env", args.host, args.port, args.workers, **uv_log
        )
    uvicorn.run(
        "reprokg.service.app:app_from_env",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        **uv_log,
    )
    return 0
