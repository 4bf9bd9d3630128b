"""`flashback runs`: recorded searches (rerank runs), their fallbacks, tokens and cost.

The table and the summary line are for people (rounded, in units); `--json` and
`--show RUN_ID` keep the stored figures exactly, for scripts.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING

from app.cli_options import say
from app.cli_output import at_least, duration, money, words
from engine.api import Flashback, reason_message, reranker_message

if TYPE_CHECKING:  # `runs` loads the traces' module when it runs, not for every command's parser
    from engine.api import RunMetrics


def add_command(commands: argparse._SubParsersAction) -> None:
    runs = commands.add_parser("runs", help="list recorded searches (rerank runs) and their metrics")
    runs.add_argument("--limit", type=at_least(1), default=20, help="how many of the newest runs to list (default 20)")
    runs.add_argument("--show", type=int, metavar="RUN_ID", help="print one run in full (JSON)")
    runs.add_argument("--json", action="store_true", help="print one JSON object")


def _row(run) -> str:
    fallback = "  " + words("runs.row.fallback", reason=reason_message(run.fallback)) if run.fallback else ""
    cost = f"  {money(run.cost)}" if run.cost else ""
    tools = "  " + words("runs.row.tool_calls", count=run.tool_calls) if run.tool_calls else ""
    when = run.created_at[:16].replace("T", " ")
    reranker = say(reranker_message(run.reranker))
    return (f"{run.id:>5}  {when}  {reranker:<13} {run.candidates:>3} → {run.selected:<3}"
            f"{duration(run.duration_ms):>9}{tools}{cost}{fallback}  {run.query[:60]}")


def summary_line(metrics: RunMetrics) -> str:
    """One sentence over every run: counts, fallbacks, latency, tokens, cost (engine.api runs_summary,
    the window's summary too)."""
    from engine.api import runs_summary

    return "; ".join(say(part) for part in runs_summary(metrics.as_json()))


def run_runs(args: argparse.Namespace, service: Flashback) -> int:
    if args.show is not None:
        record = service.runs.get(args.show)
        if record is None:
            sys.stderr.write(words("cli.note", text=words("runs.no_such_run", run_id=args.show)) + "\n")
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
        sys.stdout.write(words("runs.none") + "\n")
        return 0
    for run in runs:
        sys.stdout.write(_row(run) + "\n")
    sys.stdout.write(summary_line(metrics) + "\n")
    return 0
