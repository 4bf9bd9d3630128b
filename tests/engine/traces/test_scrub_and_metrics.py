"""Credential patterns, and seed 000's metrics over several runs with different fallbacks."""

from __future__ import annotations

import pytest

from engine.rerank.base import RerankResult
from engine.traces import FALLBACK_REASONS, REDACTED, run_metrics, save_run, scrub, scrub_text
from tests.engine.traces.conftest import FAKE_KEY, candidates, flash_result


def test_credential_shapes_are_redacted_and_ordinary_words_are_not():
    assert scrub_text(f"key={FAKE_KEY}.") == f"key={REDACTED}."
    assert scrub_text("sk-proj-AbCdEf0123456789_xyzXYZ and sk-learn, task-0123456789abcdef0123") == \
        f"{REDACTED} and sk-learn, task-0123456789abcdef0123"
    assert scrub_text("authorization: bearer eyJhbGciOi.J9.abc") == f"authorization: bearer {REDACTED}"
    assert scrub_text("a bearer of bad news") == "a bearer of bad news"
    assert scrub_text("forbearer abcdefgh12345 Bearer abcdefgh12345") == f"forbearer abcdefgh12345 Bearer {REDACTED}"
    assert scrub_text("token hunter2hunter2 here", ["hunter2hunter2", "x"]) == f"token {REDACTED} here"
    assert scrub({"X-Api-Key": "v", "password": "", "n": (1, 2), "s": {3}, "b": b"xx"}) == \
        {"X-Api-Key": REDACTED, "password": "", "n": [1, 2], "s": [3], "b": "<2 bytes>"}


def _run(connection, reranker="flash", fallback=None, calls=(), usage=None, total=100.0, n_candidates=6,
         selected=2) -> None:
    if reranker == "flash":
        result = flash_result(fallback=fallback, tool_calls=[list(c) for c in calls], usage=usage, selected=selected)
    else:
        result = RerankResult(reranker, [], {})
    save_run(connection, query="q", reranker=reranker, settings={}, candidates=candidates(n_candidates),
             result=result, timings_ms={"total": total})


def test_metrics_follow_seed_000(connection):
    _run(connection, calls=[[1, 2], [3]], usage={"prompt_tokens": 1000, "completion_tokens": 100, "cost": 0.002},
         total=400.0)
    _run(connection, fallback="timeout", usage={"prompt_tokens": 500, "completion_tokens": 0}, total=60000.0,
         selected=5)
    _run(connection, fallback="model_empty", calls=[[1]], usage={"prompt_tokens": 900, "completion_tokens": 20,
                                                                 "cost": 0.001}, total=800.0, selected=0)
    _run(connection, fallback="protocol_violation", usage={"prompt_tokens": 600, "completion_tokens": 10,
                                                           "cost": 0.003}, total=1200.0, selected=5)
    _run(connection, reranker="threshold", total=2.0, n_candidates=10)
    metrics = run_metrics(connection)
    assert metrics["runs"] == 5 and metrics["by_reranker"] == {"flash": 4, "threshold": 1}
    assert metrics["fallbacks"] == {"none": 2, **dict.fromkeys(FALLBACK_REASONS, 0), "timeout": 1,
                                    "model_empty": 1, "protocol_violation": 1}
    assert metrics["fallback_rate"] == pytest.approx(2 / 5)  # model_empty is a valid answer
    assert metrics["tool_calls_total"] == 3 and metrics["tool_calls_mean"] == pytest.approx(3 / 5)
    assert metrics["tool_calls_histogram"] == {"0": 3, "1": 1, "2": 1}
    assert metrics["candidates_in_mean"] == pytest.approx(34 / 5)
    assert metrics["candidates_out_mean"] == pytest.approx(12 / 5)
    assert (metrics["prompt_tokens_total"], metrics["completion_tokens_total"]) == (3000, 130)
    assert metrics["cost_total"] == pytest.approx(0.006) and metrics["runs_with_cost"] == 3
    assert metrics["cost_mean"] == pytest.approx(0.002)
    assert metrics["latency_ms_p50"] == 800.0 and metrics["latency_ms_max"] == 60000.0
    assert metrics["latency_ms_p95"] == pytest.approx(1200.0 + 0.8 * (60000.0 - 1200.0))

    flash = run_metrics(connection, reranker="flash")
    assert flash["runs"] == 4 and flash["prompt_tokens_mean"] == 750.0 and flash["fallbacks"]["none"] == 1
    assert flash["latency_ms_p50"] == pytest.approx(1000.0)


def test_metrics_of_an_empty_history(connection):
    metrics = run_metrics(connection)
    assert metrics["runs"] == 0 and metrics["tool_calls_histogram"] == {} and metrics["cost_total"] == 0.0
    assert metrics["fallbacks"] == {"none": 0, **dict.fromkeys(FALLBACK_REASONS, 0)}
    for key in ("fallback_rate", "tool_calls_mean", "candidates_in_mean", "prompt_tokens_mean", "cost_mean",
                "latency_ms_p50", "latency_ms_p95", "latency_ms_max"):
        assert metrics[key] is None, key
