"""A recording HTTP proxy on 127.0.0.1 for wire-level tests against a real server: every
request Flashback sends is forwarded as it is to the upstream server and kept (path and JSON
body), and the upstream's answer is passed back as it arrives (streamed replies included).
Nothing of the code under test is patched: Flashback talks real HTTP to this proxy, which
talks real HTTP to the server.

`hold_when`: a request arriving while it returns True waits for `release()` before it is
forwarded (or dropped), so a test can stop a client mid-run at a known point: a kill while a
call is open, never between the last call and the end."""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection", "upgrade"}


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    body: dict[str, Any]


class RecordingProxy:
    def __init__(self, upstream: str, hold_when: Callable[[], bool] | None = None,
                 hold_timeout_s: float = 900.0) -> None:
        parts = urlsplit(upstream)
        self.upstream_host, self.upstream_port = parts.hostname or "127.0.0.1", parts.port or 80
        self.requests: list[Recorded] = []
        self.hold_when, self.hold_timeout_s = hold_when, hold_timeout_s
        self.held = 0
        self._forward_held = True
        self._released = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def to(self, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.path == path]

    def release(self, forward: bool = True) -> None:
        """Let held requests go on to the server (`forward`), or close them unanswered (their
        client is gone: the server need not spend minutes on them)."""
        self.hold_when = None
        self._forward_held = forward
        self._released.set()

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()

    def _record(self, method: str, path: str, raw: bytes) -> None:
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        with self._lock:
            self.requests.append(Recorded(method, path, body if isinstance(body, dict) else {"_json": body}))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet: pytest shows failures, not traffic
                pass

            def _forward(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                proxy._record(self.command, self.path, raw)
                hold = proxy.hold_when
                if hold is not None and hold():
                    proxy.held += 1
                    proxy._released.wait(proxy.hold_timeout_s)
                    if not proxy._forward_held:
                        self.close_connection = True
                        return
                upstream = http.client.HTTPConnection(proxy.upstream_host, proxy.upstream_port, timeout=900)
                done = threading.Event()
                threading.Thread(target=self._drop_when_client_leaves, args=(upstream, done), daemon=True).start()
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP | {"host"}}
                    upstream.request(self.command, self.path, body=raw or None, headers=headers)
                    reply = upstream.getresponse()
                    self.send_response(reply.status)
                    for key, value in reply.getheaders():
                        if key.lower() not in _HOP_BY_HOP:
                            self.send_header(key, value)
                    self.send_header("Connection", "close")  # the body ends when the connection does
                    self.end_headers()
                    while chunk := reply.read1(65_536):
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError, OSError):  # the client left mid-reply
                    pass
                finally:
                    done.set()
                    upstream.close()
                    self.close_connection = True

            def _drop_when_client_leaves(self, upstream: http.client.HTTPConnection, done: threading.Event) -> None:
                """A client that gives up (its timeout, a kill) closes its connection: close the
                server's too, as a direct connection would, so the server stops generating."""
                while not done.is_set():
                    readable, _, _ = select.select([self.connection], [], [], 0.5)
                    if readable and not done.is_set():
                        try:
                            left = self.connection.recv(1, socket.MSG_PEEK) == b""
                        except OSError:
                            left = True
                        if left:
                            if upstream.sock is not None:
                                upstream.sock.shutdown(socket.SHUT_RDWR)
                            return
                        done.wait(0.5)  # bytes the client sent ahead (none expected): look again later

            def do_GET(self) -> None:  # noqa: N802  (http.server's name)
                self._forward()

            def do_POST(self) -> None:  # noqa: N802  (http.server's name)
                self._forward()

        return Handler
