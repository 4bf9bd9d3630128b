"""A scripted rerank server on 127.0.0.1 for tests: every preset's `/rerank` request checked
and answered in that server's own shape (no internet, no patching).

It is `tests.fake_openai.FakeOpenAI` (the same real HTTP server, request log, scripts and
handlers) with a handler per rerank path that reads the request as the real server would:
a request in another server's shape gets the 422 that server would send.

    with FakeRerank() as server:
        server.serve("tei")                                  # POST /rerank, TEI's shape
        endpoint = RerankEndpoint("tei", server.root)
        ...
        server.requests_to("/rerank")[0].body["texts"]

Scores are the share of the query's words found in the passage (so a passage that repeats
the query scores 1.0), or what `scorer` says. `logits=True` sends them as llama.cpp sends a
bge-reranker's (a logit: 8·(score − 0.5)); `order` "sorted" (best first, as servers do),
"reversed" or "as_sent"; `drop` leaves some indices out of every answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest

# path, passages field, "return at most" field, whether a model is required
SHAPES: dict[str, tuple[str, str, str | None, bool]] = {
    "llamacpp": ("/v1/rerank", "documents", "top_n", False),
    "tei": ("/rerank", "texts", None, False),
    "infinity": ("/rerank", "documents", "top_n", False),
    "vllm": ("/v1/rerank", "documents", "top_n", False),
    "jina": ("/v1/rerank", "documents", "top_n", True),
    "cohere": ("/v2/rerank", "documents", "top_n", True),
    "voyage": ("/v1/rerank", "documents", "top_k", True),
    "custom": ("/v1/rerank", "documents", "top_n", False),
}
_WORD = re.compile(r"\w+")
Scorer = Callable[[str, str], float]


def overlap(query: str, passage: str) -> float:
    """The share of the query's words that the passage holds."""
    words = set(_WORD.findall(query.lower()))
    return len(words & set(_WORD.findall(passage.lower()))) / len(words) if words else 0.0


def reply(preset: str, scored: list[tuple[int, float]], request: dict[str, Any], tokens: int) -> Any:
    """The body `preset`'s server answers with for these (index, score) pairs."""
    model = request.get("model") or "served-model"
    if preset == "tei":
        return [{"index": i, "score": s} for i, s in scored]
    if preset == "voyage":
        return {"object": "list", "data": [{"relevance_score": s, "index": i} for i, s in scored], "model": model,
                "usage": {"total_tokens": tokens}}
    if preset == "cohere":
        return {"id": "rr-1", "results": [{"index": i, "relevance_score": s} for i, s in scored],
                "meta": {"api_version": {"version": "2"}, "billed_units": {"search_units": 1}}}
    if preset == "infinity":
        return {"object": "rerank", "model": model, "id": "infinity-1", "created": 0,
                "results": [{"relevance_score": s, "index": i, "document": None} for i, s in scored],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}
    documents = request.get("documents") or []
    if preset == "vllm":
        return {"id": "rerank-1", "model": model, "usage": {"total_tokens": tokens},
                "results": [{"index": i, "document": {"text": documents[i]}, "relevance_score": s} for i, s in scored]}
    # llama.cpp, Jina and the common shape
    return {"model": model, "object": "list", "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            "results": [{"index": i, "relevance_score": s} for i, s in scored]}


class FakeRerank(FakeOpenAI):
    """Start with `with FakeRerank() as server:`; `server.root` is the address without /v1."""

    @property
    def root(self) -> str:
        return self.base_url.removesuffix("/v1")

    def serve(self, preset: str, scorer: Scorer = overlap, *, logits: bool = False, order: str = "sorted",
              drop: frozenset[int] = frozenset(), delay: float = 0.0) -> str:
        """Answer `preset`'s path as that server does; returns the path."""
        path = SHAPES[preset][0]
        self.handle(path, lambda request: self.answer(preset, request, scorer, logits=logits, order=order,
                                                      drop=drop, delay=delay))
        return path

    def answer(self, preset: str, request: RecordedRequest, scorer: Scorer = overlap, *, logits: bool = False,
               order: str = "sorted", drop: frozenset[int] = frozenset(), delay: float = 0.0) -> FakeResponse:
        _, field, top_field, needs_model = SHAPES[preset]
        body = request.body if isinstance(request.body, dict) else {}
        passages, query = body.get(field), body.get("query")
        if not isinstance(query, str) or not isinstance(passages, list) or not passages:
            return FakeResponse(status=422, json={"error": f"missing field `query` or `{field}`"})
        if needs_model and not body.get("model"):
            return FakeResponse(status=400, json={"message": "model is required"})
        wrong = {"documents", "texts", "top_n", "top_k"} - {field, top_field}
        if wrong & set(body):
            return FakeResponse(status=422, json={"detail": f"unknown fields: {sorted(wrong & set(body))}"})
        top = body.get(top_field, len(passages)) if top_field else len(passages)
        scored = [(i, scorer(query, text)) for i, text in enumerate(passages) if i not in drop]
        if logits:
            scored = [(i, 8.0 * (s - 0.5)) for i, s in scored]
        if order == "sorted":
            scored.sort(key=lambda pair: -pair[1])
        elif order == "reversed":
            scored.sort(key=lambda pair: pair[1])
        tokens = sum(len(_WORD.findall(query + " " + str(text))) for text in passages)
        return FakeResponse(json=reply(preset, scored[:top], body, tokens), delay=delay)
