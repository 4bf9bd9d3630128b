"""A streamed chat completion (`"stream": true`, server-sent events) read back into one body.

Every OpenAI-compatible server streams the same way: `data: {chunk}` events, each chunk's
`choices[0].delta` holding the next piece of the content, of the reasoning, or of a tool
call's arguments (keyed by the call's `index`; its id and name come in its first piece),
`finish_reason` in the last chunk with a choice, the usage in a final chunk of its own
(OpenAI with `stream_options.include_usage`, OpenRouter always; llama.cpp beside the last
choice), then `data: [DONE]`. `Assembler` turns those chunks into the body a non-streamed
call returns, so everything after the HTTP exchange (parsing, degrading, the trace) is the
same either way, and tells the caller what the reply says so far (`StreamDelta`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any

import httpx

DONE = "[DONE]"


@dataclass(frozen=True)
class StreamDelta:
    """The reply so far: its text, and the first tool call's arguments (JSON, likely unfinished)."""

    content: str
    arguments: str


OnDelta = Callable[[StreamDelta], None]


class Assembler:
    def __init__(self) -> None:
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}  # index → {"id", "name", "arguments": [pieces]}
        self._finish: str | None = None
        self._usage: Any = None
        self._model: str | None = None
        self._error: Any = None
        self.chunks = 0

    def feed(self, chunk: Any) -> bool:
        """Take one event's JSON; True when the content or the first call's arguments grew."""
        if not isinstance(chunk, dict):
            return False
        self.chunks += 1
        if chunk.get("error"):  # OpenRouter reports a failure after the stream started this way
            self._error = chunk["error"]
        if isinstance(chunk.get("model"), str):
            self._model = chunk["model"]
        if chunk.get("usage"):
            self._usage = chunk["usage"]
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return False
        choice = choices[0]
        if isinstance(choice.get("finish_reason"), str):
            self._finish = choice["finish_reason"]
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return False
        grew = False
        if isinstance(delta.get("content"), str) and delta["content"]:
            self._content.append(delta["content"])
            grew = True
        thought = delta.get("reasoning") or delta.get("reasoning_content")
        if isinstance(thought, str):
            self._reasoning.append(thought)
        for position, piece in enumerate(delta.get("tool_calls") or []):
            if isinstance(piece, dict):
                grew = self._feed_call(piece, position) or grew
        return grew

    def _feed_call(self, piece: dict[str, Any], position: int) -> bool:
        given_index = piece.get("index")
        index = given_index if isinstance(given_index, int) else position
        call = self._calls.setdefault(index, {"id": None, "name": None, "arguments": []})
        if isinstance(piece.get("id"), str):
            call["id"] = piece["id"]
        given_function = piece.get("function")
        function = given_function if isinstance(given_function, dict) else {}
        if isinstance(function.get("name"), str) and function["name"]:
            call["name"] = function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            call["arguments"].append(arguments)
            return index == min(self._calls)
        if isinstance(arguments, dict):  # a server that sends the whole object at once
            call["arguments"].append(json.dumps(arguments, ensure_ascii=False))
            return index == min(self._calls)
        return False

    def delta(self) -> StreamDelta:
        first = self._calls[min(self._calls)] if self._calls else None
        return StreamDelta("".join(self._content), "".join(first["arguments"]) if first else "")

    def body(self) -> dict[str, Any]:
        """The body a non-streamed call would have returned."""
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self._content) or None}
        if self._reasoning:
            message["reasoning_content"] = "".join(self._reasoning)
        if self._calls:
            message["tool_calls"] = [
                {"id": call["id"] or f"call_{index}", "type": "function",
                 "function": {"name": call["name"] or "", "arguments": "".join(call["arguments"])}}
                for index, call in sorted(self._calls.items())]
        body: dict[str, Any] = {"object": "chat.completion", "streamed": True,
                                "choices": [{"index": 0, "message": message, "finish_reason": self._finish}]}
        if self._model is not None:
            body["model"] = self._model
        if self._usage is not None:
            body["usage"] = self._usage
        if self._error is not None:
            body["error"] = self._error
        return body


async def events(response: httpx.Response) -> AsyncGenerator[Any, None]:
    """Each event's JSON (an event whose data is not JSON is skipped), until `[DONE]`.

    Comment lines (": OPENROUTER PROCESSING", a keep-alive) and fields other than `data` are
    ignored; an event's several `data:` lines are joined with newlines, as the SSE spec says."""
    data: list[str] = []
    done = False
    # Read to the body's end even after [DONE]: leaving httpx's line iterator suspended makes
    # it be closed later by the garbage collector, outside the event loop's task.
    async for line in response.aiter_lines():
        if done or line.startswith(":"):
            continue
        if line.strip():
            field, _, value = line.partition(":")
            if field == "data":
                data.append(value[1:] if value.startswith(" ") else value)
            continue
        if not data:
            continue
        payload, data = "\n".join(data), []
        if payload.strip() == DONE:
            done = True
            continue
        try:
            yield json.loads(payload)
        except ValueError:
            continue
    if data and not done and "\n".join(data).strip() != DONE:  # the last event without its blank line
        try:
            yield json.loads("\n".join(data))
        except ValueError:
            return


async def read_stream(response: httpx.Response, on_delta: OnDelta) -> dict[str, Any]:
    """The whole streamed reply as one completion body, `on_delta` told each time it grew."""
    assembler = Assembler()
    async with contextlib.aclosing(events(response)) as chunks:  # closed here on a cancel too
        async for chunk in chunks:
            if assembler.feed(chunk):
                on_delta(assembler.delta())
    return assembler.body()


def is_event_stream(response: httpx.Response) -> bool:
    return response.headers.get("content-type", "").split(";")[0].strip().lower() == "text/event-stream"
