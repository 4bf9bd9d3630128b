"""Aggregates over recorded runs: seed 000's metrics table, computed from the store.

The seed exports Prometheus series (`reranker_duration_seconds`, `tool_calls_total`,
`candidates_input`, `candidates_output`, `cost_usd_total`, `fallback_total{reason}`);
Flashback has no metrics server, so `run_metrics` answers the same questions from
`rerank_run` on demand. Its keys are stable (the CLI's `--json` and the UI read them):

- `runs`: how many runs are counted; `by_reranker`: {reranker name: runs}.
- `fallbacks`: {reason: runs}. Always has `none` (the reranker's own choice stood) and
  every reason in `FALLBACK_REASONS` (0 when unseen), plus any other reason recorded.
  `fallback_rate`: share of runs with a reason other than none and `model_empty` (an
  empty answer is a valid choice, not a failure).
- `tool_calls_total`, `tool_calls_mean`, `tool_calls_histogram`: {"0": runs, "1": …}
  with every count from 0 to the largest seen (string keys, so JSON keeps them as-is).
- `candidates_in_mean`, `candidates_out_mean`: candidates shown (every kind) and selections kept.
- `prompt_tokens_total`, `completion_tokens_total`, `prompt_tokens_mean`, `completion_tokens_mean`.
- `cost_total` (USD; 0.0 when no run reported a cost), `cost_mean` (over `runs_with_cost`,
  the runs whose provider reported one), `runs_with_cost`.
- `latency_ms_p50`, `latency_ms_p95`, `latency_ms_mean`, `latency_ms_max`: run durations
  (`duration_ms`, the caller's `timings_ms["total"]`: end to end when the service records
  it), percentiles by linear interpolation between the closest ranks. The reranker's own
  per-turn times stay in each run's `timings_ms` and `report`.

Means and latencies are None when no run is counted (and `cost_mean` when none had a cost).
`reranker` restricts everything to one reranker: token and cost means over all runs would
be diluted by the threshold reranker's free runs.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.messages import msg
from engine.rerank.base import FALLBACK_REASONS as RERANK_FALLBACKS
from engine.rerank.base import MODEL_EMPTY
from engine.traces.errors import TracesError
from engine.traces.runs import sqlite_detail

# Every reason a run can record (the rerankers' list, engine.rerank.base), "model_empty" included.
FALLBACK_REASONS = (*RERANK_FALLBACKS, MODEL_EMPTY)
_NOT_FAILURES = (None, MODEL_EMPTY)


def percentile(values: Sequence[float], fraction: float) -> float | None:
    """numpy's percentile at `fraction` (0.95 → p95); None for no values."""
    return float(np.percentile(values, fraction * 100)) if len(values) else None


def _mean(total: float, count: int) -> float | None:
    return total / count if count else None


def run_metrics(connection: sqlite3.Connection, reranker: str | None = None) -> dict[str, Any]:
    """The metrics described in the module docstring, over every run (or `reranker`'s)."""
    where, params = ("WHERE reranker = ?", (reranker,)) if reranker is not None else ("", ())
    try:
        rows = connection.execute(
            "SELECT reranker, fallback, tool_calls_count, candidates_count, selected_count, duration_ms, "
            f"prompt_tokens, completion_tokens, cost FROM rerank_run {where}", params).fetchall()
    except sqlite3.Error as exc:
        action = msg("traces.action.read_history")
        raise TracesError(msg("traces.failed", action=action, detail=sqlite_detail(exc))) from exc
    runs = len(rows)
    fallbacks: dict[str, int] = {"none": 0, **dict.fromkeys(FALLBACK_REASONS, 0)}
    for row in rows:
        key = row[1] or "none"
        fallbacks[key] = fallbacks.get(key, 0) + 1
    tool_calls = Counter(row[2] for row in rows)
    histogram = {str(n): tool_calls.get(n, 0) for n in range(max(tool_calls, default=-1) + 1)}
    costs = [row[8] for row in rows if row[8] is not None]
    durations = [row[5] for row in rows]
    prompt_total = sum(row[6] for row in rows)
    completion_total = sum(row[7] for row in rows)
    failed = sum(1 for row in rows if row[1] not in _NOT_FAILURES)
    return {
        "runs": runs,
        "by_reranker": dict(sorted(Counter(row[0] for row in rows).items())),
        "fallbacks": fallbacks,
        "fallback_rate": _mean(failed, runs),
        "tool_calls_total": sum(row[2] for row in rows),
        "tool_calls_mean": _mean(sum(row[2] for row in rows), runs),
        "tool_calls_histogram": histogram,
        "candidates_in_mean": _mean(sum(row[3] for row in rows), runs),
        "candidates_out_mean": _mean(sum(row[4] for row in rows), runs),
        "prompt_tokens_total": prompt_total,
        "completion_tokens_total": completion_total,
        "prompt_tokens_mean": _mean(prompt_total, runs),
        "completion_tokens_mean": _mean(completion_total, runs),
        "cost_total": float(sum(costs)),
        "cost_mean": _mean(sum(costs), len(costs)),
        "runs_with_cost": len(costs),
        "latency_ms_p50": percentile(durations, 0.50),
        "latency_ms_p95": percentile(durations, 0.95),
        "latency_ms_mean": _mean(sum(durations), runs),
        "latency_ms_max": max(durations, default=None),
    }
