"""`flashback runs`: recorded searches (rerank runs), their fallbacks, tokens and cost.

The table and the summary line are for people (rounded, in units); `--json` and
`--show RUN_ID` keep the stored figures exactly, for scripts.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from app.cli_output import at_least, duration, money, plural
from engine.api import Flashback, RunMetrics


def add_command(commands: argparse._SubParsersAction) -> None:
    runs = commands.add_parser("runs", help="list recorded searches (rerank runs) and their metrics")
    runs.add_argument("--limit", type=at_least(1), default=20, help="how many of the newest runs to list (default 20)")
    runs.add_argument("--show", type=int, metavar="RUN_ID", help="print one run in full (JSON)")
    runs.add_argument("--json", action="store_true", help="print one JSON object")


def _row(run) -> str:
    fallback = f"  fallback {run.fallback}" if run.fallback else ""
    cost = f"  {money(run.cost)}" if run.cost else ""
    tools = f"  {plural(run.tool_calls, 'tool call')}" if run.tool_calls else ""
    when = run.created_at[:16].replace("T", " ")
    return (f"{run.id:>5}  {when}  {run.reranker:<9} {run.candidates:>3} → {run.selected:<3}"
            f"{duration(run.duration_ms):>9}{tools}{cost}{fallback}  {run.query[:60]}")


def summary_line(metrics: RunMetrics) -> str:
    """One sentence over every run: counts, fallbacks, latency, tokens, cost."""
    runs = metrics.runs
    by = ", ".join(f"{name} {count:,}" for name, count in metrics.by_reranker.items())
    parts = [plural(runs, "run") + (f" ({by})" if by else "")]
    failed = {reason: n for reason, n in metrics.fallbacks.items()
              if n and reason not in ("none", "model_empty")}
    if failed:
        reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(failed.items()))
        parts.append(f"fallbacks {sum(failed.values()):,} ({(metrics.fallback_rate or 0):.0%}: {reasons})")
    parts.append(f"latency median {duration(metrics.latency_ms_p50)}, "
                 f"95th percentile {duration(metrics.latency_ms_p95)}")
    prompt, completion = metrics.prompt_tokens_total, metrics.completion_tokens_total
    if prompt or completion:
        parts.append(f"tokens {prompt:,} in, {completion:,} out")
    if metrics.runs_with_cost:
        parts.append(f"cost {money(metrics.cost_total)}")
    return "; ".join(parts)


def run_runs(args: argparse.Namespace, service: Flashback) -> int:
    if args.show is not None:
        record = service.runs.get(args.show)
        if record is None:
            sys.stderr.write(f"flashback: there is no run {args.show}; `flashback runs` lists them.\n")
            return 1
        sys.stdout.write(json.dumps(record.as_dict(), ensure_ascii=False, indent=2) + "\n")
        return 0
    runs = service.runs.list(args.limit)
    metrics = service.runs.metrics()
    if args.json:
        payload = {"runs": [asdict(r) for r in runs], "metrics": metrics.as_json()}
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
        return 0
    if not runs:
        sys.stdout.write("No runs yet: `flashback search QUERY` records one.\n")
        return 0
    for run in runs:
        sys.stdout.write(_row(run) + "\n")
    sys.stdout.write(summary_line(metrics) + "\n")
    return 0
