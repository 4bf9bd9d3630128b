"""save_run / list_runs / get_run / delete_runs on a real store, and secret scrubbing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.rerank.base import RerankResult
from engine.traces import REDACTED, TracesError, delete_runs, get_run, list_runs, save_run
from tests.engine.traces.conftest import FAKE_KEY, candidates, flash_result

SETTINGS = {"model": "google/gemini-3-flash-preview", "max_tool_calls": 3, "total_timeout": 60.0}


def _save(connection, query="где отчёт?", result=None, timings=None, settings=None, **kwargs) -> int:
    return save_run(connection, query=query, reranker=(result or flash_result()).reranker,
                    settings=SETTINGS if settings is None else settings, candidates=candidates(),
                    result=result or flash_result(), timings_ms={"stage1": 40.0, "total": 560.0}
                    if timings is None else timings, **kwargs)


def test_round_trip_keeps_everything(connection):
    result = flash_result(tool_calls=[[1, 2, 3], [4]])
    run_id = _save(connection, result=result)
    [summary] = list_runs(connection)
    assert summary.as_dict() | {"created_at": None} == {
        "id": run_id, "created_at": None, "query": "где отчёт?", "reranker": "flash",
        "model": "google/gemini-3-flash-preview", "candidates": 6, "selected": 2, "tool_calls": 2, "fallback": None,
        "duration_ms": 560.0, "prompt_tokens": 1200, "completion_tokens": 80, "cost": 0.0015, "client": ""}
    created = datetime.fromisoformat(summary.created_at)
    assert created.tzinfo is not None and abs((datetime.now(UTC) - created).total_seconds()) < 60
    run = get_run(connection, run_id)
    assert run["settings"] == SETTINGS and run["candidates"] == candidates()
    assert run["selected"] == [s.as_dict() for s in result.selected]
    assert run["tool_calls"] == [[1, 2, 3], [4]] and run["report"] == result.report
    assert run["trace"] == result.trace and run["timings_ms"] == {"stage1": 40.0, "total": 560.0}
    assert run["created_at"] == summary.created_at and isinstance(run["created_at_epoch"], float)
    assert get_run(connection, run_id + 1) is None


def test_threshold_runs_have_no_model_usage_or_trace(connection):
    result = RerankResult("threshold", [], {"retrieved": 6, "kept": 0})
    run_id = _save(connection, result=result, settings={"threshold": 0.5}, timings={"stage1": 12.5, "rerank": 0.5})
    run = get_run(connection, run_id)
    assert (run["model"], run["trace"], run["cost"], run["prompt_tokens"]) == (None, None, None, 0)
    assert run["duration_ms"] == 13.0  # no "total" anywhere: the parts add up


def test_newest_first_with_paging(connection):
    ids = [_save(connection, query=f"q{i}") for i in range(5)]
    assert [r.id for r in list_runs(connection)] == ids[::-1]
    assert [r.id for r in list_runs(connection, limit=2, offset=1)] == ids[3:1:-1]
    assert list_runs(connection, limit=10, offset=10) == []


def test_delete_runs_before_a_time_or_all(connection):
    old = _save(connection, query="old")
    connection.execute("UPDATE rerank_run SET created_at = created_at - 86400 * 40 WHERE id = ?", (old,))
    kept = _save(connection, query="new")
    assert delete_runs(connection, before=datetime.now(UTC).timestamp() - 86400 * 30) == 1
    assert [r.id for r in list_runs(connection)] == [kept]
    assert delete_runs(connection, before=datetime(2000, 1, 1, tzinfo=UTC)) == 0
    assert delete_runs(connection) == 1 and list_runs(connection) == []


def test_secrets_never_reach_the_database_file(connection):
    local_token = "local-server-token-4242"
    trace = {
        "settings": {"model": "m", "api_key": "anything-at-all-here", "base_url": "http://127.0.0.1:8080/v1"},
        "system_prompt": "You are a reranker.",
        "turns": [{"request": {"messages": [{"role": "user", "content": f"my key is {FAKE_KEY}"}],
                               "extra": {"nested": [f"Authorization: Bearer {FAKE_KEY}", local_token]}},
                   "response": {"choices": []}, "error": f"401 for key {FAKE_KEY[:20]}… header Bearer abcdef0123456789",
                   "duration_ms": 12.0}],
        f"odd key {local_token}": 1,
    }
    result = flash_result(fallback="llm_error", tool_calls=[], trace=trace)
    run_id = _save(connection, query=f"why {FAKE_KEY}", result=result,
                   settings={"model": "m", "api_key": FAKE_KEY, "headers": {"Authorization": f"Bearer {FAKE_KEY}"}},
                   secrets=[FAKE_KEY, local_token, "", "ab"])
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = Path(connection.execute("PRAGMA database_list").fetchone()[2])
    on_disk = b"".join(p.read_bytes() for p in (path, path.with_name(path.name + "-wal")) if p.exists())
    assert f"why {REDACTED}".encode() in on_disk  # the run is really in what was read
    for secret in (FAKE_KEY, FAKE_KEY[:20], local_token, "abcdef0123456789", "anything-at-all-here"):
        assert secret.encode() not in on_disk
    run = get_run(connection, run_id)
    assert run["query"] == f"why {REDACTED}"
    assert run["settings"] == {"model": "m", "api_key": REDACTED, "headers": {"Authorization": REDACTED}}
    assert run["trace"]["turns"][0]["request"]["extra"]["nested"] == [f"Authorization: Bearer {REDACTED}", REDACTED]
    assert run["trace"]["settings"]["base_url"] == "http://127.0.0.1:8080/v1"  # not a secret: kept
    assert f"odd key {REDACTED}" in run["trace"]


def test_a_store_without_the_table_gives_a_clear_error(connection):
    connection.execute("DROP TABLE rerank_run")
    with pytest.raises(TracesError, match="open it with Flashback once"):
        list_runs(connection)
    with pytest.raises(TracesError, match="record the rerank run"):
        _save(connection)


def test_model_is_found_where_the_service_nests_it(connection):
    result = RerankResult("flash", [], {}, trace={"turns": []})
    run_id = _save(connection, result=result, settings={"retrieval": {}, "reranker": {"name": "flash", "model": "x/y"}})
    assert get_run(connection, run_id)["model"] == "x/y"


def test_the_list_names_the_assistant_that_asked(connection):
    """An MCP call keeps its client's name in the settings (issue 24); the list reads it from there,
    and a row whose settings are not JSON (hand-edited, an old store) reads as the window's."""
    window = _save(connection, query="window")
    assistant = _save(connection, query="assistant", settings={**SETTINGS, "client": "Claude Desktop"})
    odd = _save(connection, query="odd")
    connection.execute("UPDATE rerank_run SET settings = 'not json' WHERE id = ?", (odd,))
    assert {run.id: run.client for run in list_runs(connection)} == {window: "", assistant: "Claude Desktop", odd: ""}
