"""A local HTTP server for the tests that fetch (jku, URL sources): on 127.0.0.1 only, started per test.

Routes are plain functions of the request handler; the helpers below make the
answers the fetch limits are tested with (slow, dripping, oversized, endless,
redirecting).
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


class LocalServer:
    """An HTTP server on 127.0.0.1 (never beyond it); routes are ``path -> handler(request)``, others are 404."""

    def __init__(self) -> None:
        self.routes: dict[str, Callable[[BaseHTTPRequestHandler], None]] = {}
        self.hits: Counter[str] = Counter()
        self.stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                server.hits[self.path] += 1
                route = server.routes.get(self.path)
                if route is None:
                    self.send_error(404)
                else:
                    try:
                        route(self)
                    except (BrokenPipeError, ConnectionResetError):
                        pass

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)  # quick to stop

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def json(self, path: str, value: Any) -> str:
        def answer(request: BaseHTTPRequestHandler) -> None:
            body = json.dumps(value).encode()
            request.send_response(200)
            request.send_header("Content-Type", "application/json")
            request.send_header("Content-Length", str(len(body)))
            request.end_headers()
            request.wfile.write(body)
        self.routes[path] = answer
        return self.url(path)


@pytest.fixture
def server() -> Any:
    """A started :class:`LocalServer`, stopped after the test (its slow answers end at once)."""
    jwks = LocalServer()
    jwks.thread.start()
    yield jwks
    jwks.stop.set()
    jwks.httpd.shutdown()
    jwks.httpd.server_close()




def slow(seconds: float, stop: threading.Event) -> Callable[[BaseHTTPRequestHandler], None]:
    def answer(request: BaseHTTPRequestHandler) -> None:
        stop.wait(seconds)
        request.send_response(200)
        request.end_headers()
    return answer


def drip(stop: threading.Event) -> Callable[[BaseHTTPRequestHandler], None]:
    def answer(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Length", "1000")
        request.end_headers()
        for _ in range(1000):  # one byte every 50 ms: each read is quick, the whole is not
            if stop.wait(0.05):
                return
            request.wfile.write(b" ")
            request.wfile.flush()
    return answer


def sized(size: int, declare: bool) -> Callable[[BaseHTTPRequestHandler], None]:
    def answer(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        if declare:
            request.send_header("Content-Length", str(size))
        request.end_headers()
        for _ in range(size // 1000):
            request.wfile.write(b" " * 1000)
    return answer


def status(code: int, location: str = "") -> Callable[[BaseHTTPRequestHandler], None]:
    def answer(request: BaseHTTPRequestHandler) -> None:
        request.send_response(code)
        if location:
            request.send_header("Location", location)
        request.send_header("Content-Length", "0")
        request.end_headers()
    return answer


def endless(stop: threading.Event) -> Callable[[BaseHTTPRequestHandler], None]:
    """A 200 answer with no length whose body never ends (until the client hangs up or the test ends)."""
    def answer(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.end_headers()
        while not stop.is_set():
            request.wfile.write(b" " * 65536)
    return answer


def text(body: bytes, content_type: str = "application/json") -> Callable[[BaseHTTPRequestHandler], None]:
    """A 200 answer with ``body``."""
    def answer(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", content_type)
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)
    return answer
