"""A real HTTP listener on 127.0.0.1 that records every request it receives.

The hostile-reference tests point JSON-LD contexts, XML entities and ``owl:imports`` at it
and assert it heard nothing. It answers every GET with a valid JSON-LD context, so that a
parser that does fetch succeeds and the test fails on the request, not on an error.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CONTEXT = b'{"@context": {"@vocab": "http://example.org/fetched#"}}'


@dataclass
class Listener:
    url: str  # http://127.0.0.1:PORT
    requests: list[str] = field(default_factory=list)


@contextmanager
def loopback_listener() -> Iterator[Listener]:
    listener = Listener(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            listener.requests.append(f"GET {self.path}")
            self.send_response(200)
            self.send_header("Content-Type", "application/ld+json")
            self.send_header("Content-Length", str(len(CONTEXT)))
            self.end_headers()
            self.wfile.write(CONTEXT)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    listener.url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield listener
    finally:
        server.shutdown()
        server.server_close()
