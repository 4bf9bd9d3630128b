"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests (no internet, no patching).

Tests queue responses per path, or install a handler; the server records every request
(headers included) so tests can check what the client sent and that the key stays out of
places it must not reach.

    with FakeOpenAI() as server:
        server.script("/v1/chat/completions", FakeResponse(json=chat_reply("hi")))
        client = SomeClient(base_url=server.base_url, ...)

Unscripted `/v1/embeddings` requests get deterministic vectors (`default_embedding`), so
embedding tests need no script unless they test failures.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


@dataclass
class FakeResponse:
    status: int = 200
    json: Any = None
    body: bytes | None = None  # raw body (wins over json), e.g. broken JSON
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (timeouts, responsiveness)
    drop: bool = False  # close the connection without answering
    # A chat completion asked for with "stream": true goes as server-sent events, its content
    # and tool arguments cut into pieces of `piece_chars`, `event_delay` seconds apart (a real
    # server's pace); `stream=False` answers with the whole JSON anyway (a server that ignores it).
    stream: bool = True
    event_delay: float = 0.0
    piece_chars: int = 6


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it was not JSON


Handler = Callable[[RecordedRequest], FakeResponse]


def default_embedding(text: str, dim: int = 16) -> list[float]:
    """A unit vector derived from the text: equal texts give equal vectors."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(dim)
    return (vector / np.linalg.norm(vector)).tolist()


def embeddings_reply(request: RecordedRequest, dim: int = 16) -> FakeResponse:
    inputs = request.body.get("input", [])
    if isinstance(inputs, str):
        inputs = [inputs]
    data = [{"object": "embedding", "index": i, "embedding": default_embedding(t, dim)} for i, t in enumerate(inputs)]
    return FakeResponse(json={"object": "list", "data": data, "model": request.body.get("model"),
                              "usage": {"prompt_tokens": sum(len(t.split()) for t in inputs), "total_tokens": 0}})


def chat_reply(content: str | None = None, tool_calls: list[dict] | None = None,
               usage: dict | None = None, finish_reason: str = "stop") -> dict:
    """The JSON body of a chat completion with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
        finish_reason = "tool_calls"
    return {"id": "chatcmpl-fake", "object": "chat.completion", "model": "fake",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": usage or {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


def tool_call(name: str, arguments: dict | str, call_id: str = "call_1") -> dict:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


class FakeOpenAI:
    """Start with `with FakeOpenAI() as server:`; `server.base_url` ends in `/v1`."""

    def __init__(self, embedding_dim: int = 16) -> None:
        self.embedding_dim = embedding_dim
        self.requests: list[RecordedRequest] = []
        # Paths whose reply has been written (or dropped) in full: a test that checks an answer
        # never shows waits on this, not on a guess of when it would have come.
        self.served: list[str] = []
        self._scripts: dict[str, deque[FakeResponse | Handler]] = defaultdict(deque)
        self._handlers: dict[str, Handler] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._make_handler())
        self._server.daemon_threads = True
        # A short poll interval: shutdown() waits up to one interval (0.5 s by default).
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def script(self, path: str, *responses: FakeResponse | Handler) -> None:
        """Queue one-shot responses for `path` (e.g. "/v1/chat/completions"), used in order."""
        with self._lock:
            self._scripts[path].extend(responses)

    def handle(self, path: str, handler: Handler) -> None:
        """Answer every request to `path` not covered by a script with `handler`."""
        self._handlers[path] = handler

    def reset(self) -> None:
        """Forget requests, scripts and handlers (one server shared by many tests)."""
        with self._lock:
            self.requests.clear()
            self.served.clear()
            self._scripts.clear()
            self._handlers.clear()

    def requests_to(self, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == path]

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _respond(self, request: RecordedRequest) -> FakeResponse:
        with self._lock:
            self.requests.append(request)
            queue = self._scripts.get(request.path)
            scripted = queue.popleft() if queue else None
        if callable(scripted):
            return scripted(request)
        if scripted is not None:
            return scripted
        if request.path in self._handlers:
            return self._handlers[request.path](request)
        if request.path.endswith("/embeddings") and isinstance(request.body, dict):
            return embeddings_reply(request, self.embedding_dim)
        return FakeResponse(status=404, json={"error": {"message": f"no script for {request.path}"}})

    def _make_handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class RequestHandler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body are written separately; with Nagle on, the body waits for the
            # client's delayed ACK (~43 ms per request measured here, ~1 ms without).
            disable_nagle_algorithm = True

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self._serve(None)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8", "replace")
                try:
                    body = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    body = raw
                self._serve(body)

            def _serve(self, body: Any) -> None:
                try:
                    self._answer(body)
                finally:
                    fake.served.append(self.path.split("?")[0])

            def _answer(self, body: Any) -> None:
                request = RecordedRequest(self.command, self.path.split("?")[0], dict(self.headers.items()), body)
                response = fake._respond(request)
                if response.delay:
                    time.sleep(response.delay)
                if response.drop:
                    self.close_connection = True
                    return
                if (response.stream and response.status == 200 and response.body is None
                        and isinstance(body, dict) and body.get("stream") and isinstance(response.json, dict)
                        and response.json.get("choices")):
                    self._stream(response, body)
                    return
                payload = response.body if response.body is not None else json.dumps(response.json).encode()
                self.send_response(response.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in response.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout or cancel): that is what the test wanted

            def _stream(self, response: FakeResponse, request_body: dict) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for event in sse_events(response.json, response.piece_chars, request_body):
                        data = f"data: {event}\n\n".encode()
                        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                        self.wfile.flush()
                        if response.event_delay:
                            time.sleep(response.event_delay)
                    self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return RequestHandler


def sse_events(completion: dict, piece_chars: int, request_body: dict) -> list[str]:
    """A chat completion as the events a streaming server sends (OpenAI's chunk shape):
    the content and each tool call's arguments in pieces, the finish reason, the usage when
    `stream_options.include_usage` asked for it, then [DONE]."""
    choice = completion["choices"][0]
    message = choice.get("message") or {}
    base = {"id": completion.get("id", "chatcmpl-fake"), "object": "chat.completion.chunk",
            "model": completion.get("model", "fake")}

    def chunk(delta: dict, finish: str | None = None) -> str:
        return json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    def pieces(text: str) -> list[str]:
        return [text[i:i + piece_chars] for i in range(0, len(text), piece_chars)] or [""]

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in pieces(message.get("content") or "") if piece]
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") or {}
        events.append(chunk({"tool_calls": [{"index": index, "id": call.get("id"), "type": "function",
                                             "function": {"name": function.get("name"), "arguments": ""}}]}))
        events += [chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                   for piece in pieces(function.get("arguments") or "")]
    events.append(chunk({}, choice.get("finish_reason") or "stop"))
    if (request_body.get("stream_options") or {}).get("include_usage") and completion.get("usage"):
        events.append(json.dumps({**base, "choices": [], "usage": completion["usage"]}))
    if completion.get("error"):  # OpenRouter: a failure after the stream started, as one more event
        events.append(json.dumps({**base, "error": completion["error"]}))
    return [*events, "[DONE]"]


def schema_instance(schema: dict[str, Any], picks: int = 3, reason: str = "matches the query") -> Any:
    """A small value that satisfies `schema` the way a grammar-constrained server's output
    does: enums give their first `picks` values (within maxItems), strings respect maxLength."""
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        return {key: schema_instance(sub, picks, reason) for key, sub in schema.get("properties", {}).items()
                if key in schema.get("required", [])}
    if kind == "array":
        items = schema.get("items", {})
        count = max(schema.get("minItems", 0), min(picks, schema.get("maxItems", picks)))
        if "enum" in items:
            return list(items["enum"][:count])
        # Objects with an enum id (the selection): the first two ids, each once.
        entries = []
        for n in range(min(count, 2)):
            entry = schema_instance(items, picks, reason)
            ids = items.get("properties", {}).get("id", {}).get("enum")
            if isinstance(entry, dict) and ids and n < len(ids):
                entry["id"] = ids[n]
            entries.append(entry)
        return entries
    if kind == "string":
        return reason[: schema.get("maxLength", len(reason))]
    if kind == "integer":
        return 0
    return None


class LocalServerModel:
    """A scripted stand-in for llama-server / llama-cpp-python as measured (docs/llm_servers.md).

    `forces`: which tool_choice values make the "model" call the tool ("required", "named");
    an empty set is llama-server, {"named"} is llama-cpp-python. `response_format`
    json_schema is always obeyed (a grammar); without it the model writes prose.
    `null_content_500`: an assistant message with content null is a 500 (llama-cpp-python).
    """

    def __init__(self, forces: frozenset[str] = frozenset(), null_content_500: bool = False,
                 picks: int = 3, json_schema_500: bool = False) -> None:
        self.forces, self.null_content_500, self.picks = forces, null_content_500, picks
        self.json_schema_500 = json_schema_500  # llama-cpp-python: only json_object (+ schema)

    def __call__(self, request: RecordedRequest) -> FakeResponse:
        body = request.body
        if self.null_content_500 and any(m.get("content") is None for m in body["messages"]):
            return FakeResponse(status=500, json={"error": {"message": "1 validation error for "
                                                  "CreateChatCompletionRequest messages.2.content Input should be "
                                                  "a valid string", "type": "internal_server_error"}})
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_schema" and self.json_schema_500:
            return FakeResponse(status=500, json={"error": {"message": "1 validation error: {'type': 'literal_error', "
                                                  "'loc': ('body', 'response_format', 'type'), 'msg': \"Input should "
                                                  "be 'text' or 'json_object'\"}", "type": "internal_server_error"}})
        schema = fmt["json_schema"]["schema"] if fmt.get("type") == "json_schema" else fmt.get("schema")
        if schema:  # either form: a grammar
            return FakeResponse(json=chat_reply(json.dumps(schema_instance(schema, self.picks))))
        if fmt.get("type") == "json_object":  # JSON, any shape: the topics it was shown last
            read = [int(i) for i in re.findall(r"=== Topic (\d+) ===", body["messages"][-1].get("content") or "")]
            value = {"topic_ids": [{"id": i, "reason": "matches the query"} for i in read[:2]]}
            return FakeResponse(json=chat_reply(json.dumps(value)))
        choice = body.get("tool_choice")
        forced = (choice == "required" and "required" in self.forces) or \
                 (isinstance(choice, dict) and "named" in self.forces)
        if forced and not any(m["role"] == "tool" for m in body["messages"]):
            shown = [int(i) for i in re.findall(r"\[Topic:(\d+)\]", body["messages"][1]["content"])]
            return FakeResponse(json=chat_reply(tool_calls=[tool_call("get_topics_content",
                                                                      {"topic_ids": shown[: self.picks]})]))
        return FakeResponse(json=chat_reply("Sure! The most relevant topics are about the budget."))
