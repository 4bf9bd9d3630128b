"""`flashback mcp --http`: what stands between 127.0.0.1 and the SDK's streamable-HTTP app.

`HttpGuard` (ASGI) refuses a foreign Origin (403), a Host that is not this server (421) and a
missing or wrong bearer token (401) before the SDK sees the request, then reads the request's
body itself, bounded in size (`MAX_BODY_BYTES`, 413) and in time (`BODY_SECONDS`, 408), and
hands the SDK the whole body at once. A client that disconnects mid-body is one log line
(the SDK, reading it itself, logged a traceback each time), and so is a request that reaches
a session its client has just closed (`QuietClosedSessions`; the SDK logged two tracebacks).

`MAX_SESSIONS` bounds the SDK's open sessions, hence the memory an unclosed one holds.

`HeaderDeadline` (uvicorn's h11 protocol) closes a connection whose request headers have not
all arrived within `HEADERS_SECONDS` of its opening or of its previous response: uvicorn has
no such timeout, and a client sending a byte a second held its connection for ever (issue 35).
"""

from __future__ import annotations

import asyncio
import hmac
import logging

import anyio
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.mcp_words import from_accept_language, say

log = logging.getLogger(__name__)
HEADERS_SECONDS = 10.0  # a request's headers, from the connection's opening (or its last answer)
BODY_SECONDS = 20.0  # a request's body, from its headers: a JSON-RPC call of a few KB takes milliseconds
# The largest request body: a tool call is a few KB; a query is cut at 2,000 characters anyway
# (app/mcp_memory.py), and the SDK would buffer up to 4 MiB per request.
MAX_BODY_BYTES = 1024 * 1024
# Open MCP sessions at most (the SDK's default is 10,000): each holds ~38 KB (measured: 1,000
# initialize requests never closed added 37.6 MB), and one a client never closes lives until
# the SDK's 30 minutes of idleness end it. A person's assistants open a few; past this, 503.
MAX_SESSIONS = 1000


class HttpGuard:
    """ASGI middleware in front of the SDK's app: a foreign Origin → 403, a wrong Host → 421, a
    missing or wrong bearer token → 401; then the body, read whole within its bounds. Lifespan
    events pass through."""

    def __init__(self, app, token: str, port: int) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{host}" for host in self.hosts}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value for key, value in scope.get("headers", [])}
        language = from_accept_language(headers.get("accept-language", b"").decode("latin-1")) or "en"
        origin = headers.get("origin", b"").decode("latin-1")
        if origin and origin not in self.origins:
            log.warning("refused a request from origin %r", origin[:100])
            await _refuse(send, 403, say("http_origin", language))
            return
        if headers.get("host", b"").decode("latin-1") not in self.hosts:
            await _refuse(send, 421, say("http_host", language))
            return
        if not hmac.compare_digest(headers.get("authorization", b""), self._expected):
            log.warning("refused a request without the right bearer token")
            await _refuse(send, 401, say("http_token", language), [(b"www-authenticate", b'Bearer realm="flashback"')])
            return
        body = await _read_body(receive, send, language)
        if body is None:
            return
        started = finished = False

        async def noting_send(message) -> None:
            nonlocal started, finished
            if finished:  # the SDK's error answer after its 202, when the session had closed: nowhere to go
                return
            started = started or message["type"] == "http.response.start"
            finished = message["type"] == "http.response.body" and not message.get("more_body", False)
            await send(message)
        try:
            await self.app(scope, _replaying(body, receive), noting_send)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            # A request for a session its client was closing (a call cancelled mid-way closes the
            # session while its cancellation is on the way): the SDK raises; one line, an answer.
            log.info("a request came for an MCP session that had just closed")
            if not started:
                await _refuse(send, 404, say("session_gone", language))
        if started and not finished:
            # The SDK gave up on an event stream whose session closed, leaving it open: end it
            # (uvicorn would log an ERROR line for a client that only went away).
            log.info("ended an event stream its MCP session had left open")
            await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _read_body(receive, send, language: str) -> bytes | None:
    """The request's whole body, or None after refusing it (too big, too slow) or when the
    client went away before sending it all."""
    parts: list[bytes] = []
    size = 0
    try:
        with anyio.fail_after(BODY_SECONDS):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    log.info("a client disconnected before sending its whole request (%d bytes came)", size)
                    return None
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    log.warning("refused a request body over %d bytes", MAX_BODY_BYTES)
                    await _refuse(send, 413, say("body_too_large", language, limit=MAX_BODY_BYTES // 2**20))
                    return None
                parts.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(parts)
    except TimeoutError:
        log.warning("timed out a client that sent %d bytes of its request in %.0f s", size, BODY_SECONDS)
        await _refuse(send, 408, say("body_too_slow", language, seconds=round(BODY_SECONDS)),
                      [(b"connection", b"close")])
        return None


def _replaying(body: bytes, receive):
    """`receive` for the app: the body already read, in one message; then the client's own
    events (a disconnect, which the SDK's event stream waits for)."""
    sent = False

    async def replay():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()
    return replay


async def _refuse(send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


class QuietClosedSessions(logging.Filter):
    """The SDK logs a request for a session that had just closed as an ERROR with the traceback
    of the stream it found closed: a client that went away, said in one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, BaseExceptionGroup):  # the SSE response's task group wraps it
            closed, other = error.split((anyio.ClosedResourceError, anyio.BrokenResourceError))
            error = closed.exceptions[0] if closed is not None and other is None else error
        if isinstance(error, anyio.ClosedResourceError | anyio.BrokenResourceError):
            record.msg, record.args = f"{record.getMessage()}: its session had closed ({type(error).__name__})", None
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


class HeaderDeadline(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's headers: `HEADERS_SECONDS` from
    the connection's opening, and again from each response (a kept-alive connection's next
    request). A request whose headers arrived has started a new cycle; if none has by then,
    the connection is closed."""

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as uvicorn's own
        super().connection_made(transport)
        self._wait_for_headers()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._wait_for_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        super().connection_lost(exc)

    def _wait_for_headers(self) -> None:
        self._cancel_deadline()
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a pipelined request already came: its response arms the next deadline
        self._deadline = self.loop.call_later(HEADERS_SECONDS, self._headers_late, self.cycle)

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _headers_late(self, cycle_before) -> None:
        self._deadline = None
        if self.cycle is cycle_before and not self.transport.is_closing():
            log.warning("timed out a client that did not send a request's headers within %.0f s", HEADERS_SECONDS)
            self.transport.close()
