"""The optional first step: restate the query using the recent messages (seed 000 step 1).

One short call with the seed's "don't guess" rule. It only helps, never blocks: any
failure or odd answer leaves the original query in place, and the trace says why.
"""

from __future__ import annotations

import time
from typing import Any

from engine.llm import ChatClient, Deadline, LLMError
from engine.rerank.flash.prompt import contextualize_messages
from engine.rerank.flash.settings import FlashSettings
from engine.rerank.flash.trace import RunRecorder

MAX_GROWTH_CHARS = 300  # a rewrite longer than the query plus this is an answer, not a query


def clean_rewrite(text: str | None, query: str) -> tuple[str, str | None]:
    """(query to use, why the rewrite was not used or None)."""
    if not text or not text.strip():
        return query, "empty answer"
    lines = [line.strip() for line in text.strip().strip("`").splitlines() if line.strip()]
    lines = [line for line in lines if line.lower() not in ("text", "plaintext")]  # a fence's language tag
    if not lines:
        return query, "empty answer"
    rewritten = lines[0].strip().strip('"«»“”\'').strip()
    if not rewritten:
        return query, "empty answer"
    if len(rewritten) > len(query) * 4 + MAX_GROWTH_CHARS:
        return query, "answer too long to be a query"
    return rewritten, None


async def contextualize(client: ChatClient, settings: FlashSettings, language: str, query: str, recent: str,
                        deadline: Deadline, recorder: RunRecorder) -> tuple[str | None, dict[str, Any]]:
    """(the restated query, or None when it adds nothing; the trace entry)."""
    messages = contextualize_messages(language, query, recent)
    timeout = deadline.turn_timeout(settings.per_turn_timeout)
    started = time.perf_counter()
    try:
        result = await client.complete(messages, model=settings.model, timeout=timeout)
    except LLMError as exc:
        entry = recorder.call("contextualize", time.perf_counter() - started, error=str(exc),
                              intended={"model": settings.model, "messages": messages})
        entry.update(query=query, rewritten=None, used=False, note=f"failed ({type(exc).__name__}); kept the query")
        return None, entry
    entry = recorder.call("contextualize", time.perf_counter() - started, result=result)
    rewritten, problem = clean_rewrite(result.content, query)
    used = problem is None and rewritten.strip() != query.strip()
    note = problem or (None if used else "unchanged")
    entry.update(query=query, rewritten=rewritten if used else None, used=used, note=note)
    return (rewritten if used else None), entry
