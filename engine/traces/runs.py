"""Recording rerank runs (table `rerank_run`, schema 3) and reading them back.

Every function takes the raw autocommit connection of `engine.store.database.connect`;
`save_run` and `delete_runs` write in one `BEGIN IMMEDIATE` transaction each. Times are
stored as UTC epoch seconds and shown as ISO 8601 (UTC).
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from engine.messages import Message, duration_message, msg
from engine.rerank.base import RerankResult
from engine.scrub import scrub_text, scrubbed_json
from engine.store.transaction import write_transaction
from engine.traces.errors import TracesError

# A query longer than this is stored cut (a search's own words; a pasted page is not one): the MCP
# server cuts what it searches shorter still (app/mcp_memory.py), the CLI and the window do not.
STORED_QUERY_CHARS = 4000
_JSON_COLUMNS = ("settings", "candidates", "selected", "tool_calls", "timings_ms", "report", "trace")
_SUMMARY_COLUMNS = ("id, created_at, query, reranker, model, candidates_count, selected_count, tool_calls_count, "
                    "fallback, duration_ms, prompt_tokens, completion_tokens, cost")
# Who asked (an assistant over MCP, issue 24), kept in the settings JSON rather than a column of
# its own: runs recorded before it, and stores written by older versions, read as "".
_CLIENT = "CASE WHEN json_valid(settings) THEN json_extract(settings, '$.client') END"
_INSERT = (
    "INSERT INTO rerank_run (created_at, query, reranker, model, candidates_count, selected_count, "
    "tool_calls_count, fallback, duration_ms, prompt_tokens, completion_tokens, cost, "
    f"{', '.join(_JSON_COLUMNS)}) VALUES ({', '.join('?' * 19)})"
)


@dataclass(frozen=True)
class RunSummary:
    """One line of `flashback runs`."""

    id: int
    created_at: str  # ISO 8601, UTC
    query: str
    reranker: str
    model: str | None
    candidates: int
    selected: int
    tool_calls: int
    fallback: str | None
    duration_ms: float
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    client: str = ""  # the assistant that asked over MCP; "" for the window and the CLI

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")


def _failed(action: Message, exc: sqlite3.Error) -> TracesError:
    """`action` is what could not be done ("traces.action.*": "record the rerank run")."""
    if "no such table" in str(exc):
        return TracesError(msg("traces.failed_old_store", action=action))
    return TracesError(msg("traces.failed", action=action, detail=sqlite_detail(exc)))


def sqlite_detail(exc: sqlite3.Error) -> str | Message:
    """SQLite's own words, except the one a person meets in normal use (another process writing),
    which gets a code so the window says it in its language (English text unchanged)."""
    return msg("traces.database_locked") if str(exc) == "database is locked" else str(exc)


def _model(settings: Mapping[str, Any], result: RerankResult) -> str | None:
    """The LLM's name: from the reranker's own trace when it has one (what it really used),
    else the caller's settings, flat (`model`) or as the service nests them (`reranker.model`)."""
    places = [(result.trace or {}).get("settings"), settings, settings.get("reranker")]
    for place in places:
        model = place.get("model") if isinstance(place, Mapping) else None
        if model:
            return str(model)
    return None


def _total_ms(timings_ms: Mapping[str, Any], result: RerankResult) -> float:
    """The run's duration: `total` from the caller (the service measures stage 1 + rerank:
    what the user waited, seed 000's E2E latency), else from the reranker's report, else
    the sum of the caller's parts (which then are stages, not nested spans)."""
    for source in (timings_ms, result.report.get("timings_ms") or {}):
        total = source.get("total") if isinstance(source, Mapping) else None
        if isinstance(total, int | float):
            return float(total)
    return float(sum(v for v in timings_ms.values() if isinstance(v, int | float)))


def _number(usage: Mapping[str, Any], key: str) -> float | None:
    value = usage.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _scrubbed(text: str | None, secrets: Sequence[str]) -> str | None:
    return None if text is None else scrub_text(text, secrets)


def stored_query(query: str) -> str:
    """The query as Run history keeps it: its first `STORED_QUERY_CHARS` characters, and "…" when
    cut (issue 35: queries of megabytes, over MCP, were each stored whole)."""
    return query if len(query) <= STORED_QUERY_CHARS else query[:STORED_QUERY_CHARS] + "…"


def save_run(connection: sqlite3.Connection, *, query: str, reranker: str, settings: dict, candidates: list[dict],
             result: RerankResult, timings_ms: dict, secrets: Sequence[str] = ()) -> int:
    """Record one rerank in one transaction and return its id. Every string stored (query
    and JSON alike) is scrubbed of `secrets` and of credential-shaped tokens; the query is
    kept to `STORED_QUERY_CHARS`."""
    usage = result.usage or {}
    cost = _number(usage, "cost")
    row = (
        time.time(), scrub_text(stored_query(query), secrets), scrub_text(reranker, secrets),
        _scrubbed(_model(settings, result), secrets), len(candidates), len(result.selected), len(result.tool_calls),
        _scrubbed(result.fallback, secrets), round(_total_ms(timings_ms, result), 3),
        int(_number(usage, "prompt_tokens") or 0), int(_number(usage, "completion_tokens") or 0), cost,
        scrubbed_json(settings, secrets), scrubbed_json(candidates, secrets),
        scrubbed_json([s.as_dict() for s in result.selected], secrets), scrubbed_json(result.tool_calls, secrets),
        scrubbed_json(timings_ms, secrets), scrubbed_json(result.report, secrets),
        None if result.trace is None else scrubbed_json(result.trace, secrets),
    )
    storable = tuple(_storable(value) if isinstance(value, str) else value for value in row)
    run_id = _write(connection, _INSERT, storable, msg("traces.action.record")).lastrowid
    assert run_id is not None  # set by every INSERT
    return run_id


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _storable(text: str) -> str:
    """SQLite takes UTF-8 only: a lone surrogate (undecodable bytes from a command line,
    decoded with surrogateescape) would fail the whole insert, so it becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def _write(connection: sqlite3.Connection, sql: str, params: tuple, what: Message) -> sqlite3.Cursor:
    """One statement in its own write transaction; a failure rolls back and says `what` failed."""
    try:
        with write_transaction(connection):
            cursor = connection.execute(sql, params)
    except sqlite3.Error as exc:
        raise _failed(what, exc) from exc
    return cursor


def _summary(row: tuple) -> RunSummary:
    (run_id, created_at, query, reranker, model, candidates, selected, tool_calls, fallback, duration_ms,
     prompt_tokens, completion_tokens, cost, client) = row  # _SUMMARY_COLUMNS, then _CLIENT
    return RunSummary(run_id, iso(created_at), query, reranker, model, candidates, selected, tool_calls, fallback,
                      duration_ms, prompt_tokens, completion_tokens, cost,
                      client=client if isinstance(client, str) else "")


def list_runs(connection: sqlite3.Connection, limit: int = 50, offset: int = 0) -> list[RunSummary]:
    """Recorded runs, newest first."""
    try:
        rows = connection.execute(
            f"SELECT {_SUMMARY_COLUMNS}, {_CLIENT} FROM rerank_run ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
            (max(0, limit), max(0, offset))).fetchall()
    except sqlite3.Error as exc:
        raise _failed(msg("traces.action.read_history"), exc) from exc
    return [_summary(row) for row in rows]


def get_run(connection: sqlite3.Connection, run_id: int) -> dict[str, Any] | None:
    """Everything stored about one run: the summary fields (`created_at` as ISO, plus
    `created_at_epoch`) and the JSON columns parsed back; None when there is no such run."""
    try:
        cursor = connection.execute(f"SELECT {_SUMMARY_COLUMNS}, {', '.join(_JSON_COLUMNS)} FROM rerank_run "
                                    "WHERE id = ?", (run_id,))
        row = cursor.fetchone()
    except sqlite3.Error as exc:
        raise _failed(msg("traces.action.read_run", run_id=run_id), exc) from exc
    if row is None:
        return None
    names = [d[0] for d in cursor.description]
    run = dict(zip(names, row, strict=True))
    for column in _JSON_COLUMNS:
        run[column] = None if run[column] is None else json.loads(run[column])
    run["created_at_epoch"] = run["created_at"]
    run["created_at"] = iso(run["created_at"])
    return run


def delete_runs(connection: sqlite3.Connection, before: float | datetime | None = None) -> int:
    """Delete runs recorded before `before` (epoch seconds or an aware datetime), or all of
    them when it is None; returns how many went."""
    if isinstance(before, datetime):
        before = before.timestamp()
    sql, params = ("DELETE FROM rerank_run", ()) if before is None else \
        ("DELETE FROM rerank_run WHERE created_at < ?", (float(before),))
    return _write(connection, sql, params, msg("traces.action.delete")).rowcount


def _listed(parts: Sequence[Message]) -> Message:
    """Messages as one comma-separated list, each rendered in the face's language."""
    listed = parts[-1]
    for part in reversed(parts[:-1]):
        listed = msg("runs.list", first=part, then=listed)
    return listed


def runs_summary(metrics: Mapping[str, Any]) -> list[Message]:
    """`run_metrics` (engine/traces/metrics.py) for a person, in parts each face joins its own way:
    runs by reranker, the fallbacks by reason (empty answers are not failures), latency, tool
    calls, tokens and cost; every reranker and reason in words (issue 31), never as stored."""
    from engine.messages import reason_message, reranker_message

    runs = int(metrics.get("runs") or 0)
    by = [msg("runs.summary.named_count", name=reranker_message(name), count=count)
          for name, count in (metrics.get("by_reranker") or {}).items()]
    parts = [msg("runs.summary.count_by", runs=runs, by=_listed(by)) if by else msg("runs.summary.count", runs=runs)]
    failed = {reason: count for reason, count in (metrics.get("fallbacks") or {}).items()
              if count and reason not in ("none", "model_empty")}
    if failed:
        reasons = [msg("runs.summary.reason_count", reason=reason_message(reason), count=count)
                   for reason, count in sorted(failed.items(), key=lambda item: (-item[1], item[0]))]
        parts.append(msg("runs.summary.fallbacks", count=sum(failed.values()),
                         rate=float(metrics.get("fallback_rate") or 0), reasons=_listed(reasons)))
    elif runs:
        parts.append(msg("runs.summary.no_fallbacks"))
    if runs:
        parts.append(msg("runs.summary.latency", p50=duration_message(metrics.get("latency_ms_p50")),
                         p95=duration_message(metrics.get("latency_ms_p95"))))
    if metrics.get("tool_calls_total"):
        parts.append(msg("runs.summary.tool_calls", mean=float(metrics.get("tool_calls_mean") or 0)))
    prompt, completion = metrics.get("prompt_tokens_total") or 0, metrics.get("completion_tokens_total") or 0
    if prompt or completion:
        parts.append(msg("runs.summary.tokens", prompt=prompt, completion=completion))
    if metrics.get("runs_with_cost"):
        parts.append(msg("runs.summary.cost", cost=money_text(metrics.get("cost_total"))))
    return parts


def money_text(usd: float | None) -> str:
    """Dollars as the providers bill them: "$0", "$0.0123", "$12.50"."""
    if not usd:
        return "$0"
    return f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"
