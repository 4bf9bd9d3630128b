"""The engine's one surface (issue 22): sub-services, typed records, what changed, and a search
that never fails because its run could not be recorded."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

from engine.api import Changes, Flashback, RunRecord, SearchRequest, make_reranker
from tests.cli_run import copy_data

ROOT = Path(__file__).resolve().parents[2]


def test_writes_and_watcher_say_what_changed(built_demo, tmp_path):
    data = copy_data(built_demo, tmp_path)
    service = Flashback(data, origin="command")
    before = service.store.change_token()
    request = SearchRequest("hotel in Lisbon", reranker=make_reranker("threshold"), record=True)
    outcome = service.search.search_sync(request)
    changes, after = service.store.changes_since(before)
    assert changes == Changes(runs=True)
    assert service.store.changes_since(after)[0] == Changes()
    record = service.runs.get(outcome.run_id)
    assert isinstance(record, RecordType) and record.query == "hotel in Lisbon" and record.client == ""


RecordType = RunRecord

_HOLD_THE_STORE = textwrap.dedent("""
    import sqlite3, sys, time
    from pathlib import Path
    from engine.store.database import db_path
    from engine.store.lock import StoreWriteLock
    data = Path(sys.argv[1])
    with StoreWriteLock(data, "build", "command"):
        connection = sqlite3.connect(db_path(data), isolation_level=None)
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("UPDATE topic SET summary = summary WHERE id = (SELECT min(id) FROM topic)")
        print("holding", flush=True)
        time.sleep(float(sys.argv[2]))
        connection.execute("ROLLBACK")
""")


def test_a_search_whose_run_cannot_be_recorded_still_returns_its_results(built_demo, tmp_path):
    """A build in another process holds the write transaction past the 1 s a search waits to
    record: the search returns its results with a note (it failed with TracesError before)."""
    data = copy_data(built_demo, tmp_path)
    service = Flashback(data, origin="window")
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_THE_STORE, str(data), "6"], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        started = time.monotonic()
        request = SearchRequest("hotel in Lisbon", reranker=make_reranker("threshold"), record=True)
        outcome = service.search.search_sync(request)
        assert time.monotonic() - started < 5
    finally:
        holder.kill()
        holder.wait()
    assert outcome.result.selected and outcome.run_id is None
    assert [note.code for note in outcome.notes] == ["search.not_recorded"]
    assert "не записан" in outcome.notes[0].render("ru")
