"""A real, migrated store and a flash-like RerankResult for the trace tests."""

from __future__ import annotations

import pytest

from engine.rerank.base import Candidate, RerankResult, Selection
from engine.store.database import connect, db_path, open_engine

FAKE_KEY = "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"


@pytest.fixture
def connection(tmp_path):
    open_engine(tmp_path / "store").dispose()
    made = connect(db_path(tmp_path / "store"))
    yield made
    made.close()


def candidates(n: int = 6) -> list[dict]:
    return [Candidate("topic", i, i, 0.9 - i / 100, 0.5, "2024-05-01", "Команда", 4, 400, f"тема {i}").as_dict()
            for i in range(1, n + 1)]


def flash_result(fallback: str | None = None, tool_calls: list[list[int]] | None = None, usage: dict | None = None,
                 trace: dict | None = None, selected: int = 2) -> RerankResult:
    calls = [[1, 2, 3]] if tool_calls is None else tool_calls
    return RerankResult(
        "flash", [Selection("topic", i, f"причина {i}") for i in range(1, selected + 1)],
        {"retrieved": 6, "kept": selected, "tool_calls": calls, "fallback": fallback,
         "timings_ms": {"turn_1": 300.0, "turn_2": 200.0, "total": 510.0, "overhead": 10.0}},
        fallback=fallback, tool_calls=calls,
        usage={"prompt_tokens": 1200, "completion_tokens": 80, "cost": 0.0015} if usage is None else usage,
        trace=trace if trace is not None else {"settings": {"model": "google/gemini-3-flash-preview"},
                                               "turns": [{"request": {"model": "google/gemini-3-flash-preview"}}]})
