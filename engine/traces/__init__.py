"""Rerank run history (seed 000's traces and metrics): record, list, inspect, aggregate.

Each run is one row of `rerank_run` (schema 3) holding the query, settings, candidates,
selections, tool calls, timings, the reranker's report and its full trace, with every
string scrubbed of secrets (`engine.scrub`) before it is written.
"""

from __future__ import annotations

from engine.scrub import REDACTED, scrub, scrub_text
from engine.traces.errors import TracesError
from engine.traces.metrics import FALLBACK_REASONS, run_metrics
from engine.traces.runs import RunSummary, delete_runs, get_run, list_runs, save_run

__all__ = ["FALLBACK_REASONS", "REDACTED", "RunSummary", "TracesError", "delete_runs", "get_run", "list_runs",
           "run_metrics", "save_run", "scrub", "scrub_text"]
