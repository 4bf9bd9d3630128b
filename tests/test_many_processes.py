"""Issue 12, findings 1 and 2: several processes on one data folder.

Each test runs real `flashback` processes next to another process (this test process
holding the store's write lock as a build or import would, or a second `flashback`).
Assertions are about order and outcomes, never about how long anything took.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
import time
from contextlib import closing
from pathlib import Path

from engine.store.database import db_path, open_engine
from engine.store.lock import StoreWriteLock, current_holder
from tests.cli_run import DEMO, ROOT, copy_data, flashback

QUERY = "день рождения"


def _popen(*args: str, data_dir: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "app", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**_env(), "FLASHBACK_DATA_DIR": str(data_dir)})


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}


def _messages(data_dir: Path) -> int:
    with closing(sqlite3.connect(db_path(data_dir))) as connection, connection:
        return connection.execute("SELECT count(*) FROM message").fetchone()[0]


def test_an_import_waits_for_another_writer_and_says_who(tmp_path):
    data_dir = tmp_path / "data"
    open_engine(data_dir).dispose()  # an existing store: a new one's schema creation waits silently
    with StoreWriteLock(data_dir, "build", origin="window"):
        child = _popen("import", str(DEMO), "--json", data_dir=data_dir)
        first = child.stderr.readline()  # blocks until the child says it waits: it cannot go on before
        assert "waiting for the build in another Flashback window" in first
        assert child.poll() is None  # still waiting for us
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert json.loads(out)["stats"]["messages"] == _messages(data_dir) > 0


def test_schema_is_created_once_when_two_processes_open_a_new_folder(tmp_path):
    """A second process arriving while the first creates the schema used to report "table
    message_fts already exists" as a damaged store."""
    data_dir = tmp_path / "data"
    creator = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from sqlmodel import create_engine
        from engine.store.database import MIGRATIONS, SCHEMA_VERSION, _create_private, connect, db_path
        from engine.store.lock import StoreWriteLock
        folder = Path({str(data_dir)!r}); path = db_path(folder)
        _create_private(folder, path)
        with StoreWriteLock(folder, "schema"):
            connection = connect(path)
            engine = create_engine(f"sqlite:///{{path}}")
            MIGRATIONS[1](connection, engine)  # half-way: the tables exist, user_version is still 0
            print("created", flush=True)
            sys.stdin.readline()
            for target in range(2, SCHEMA_VERSION + 1):
                MIGRATIONS[target](connection, engine)
            connection.execute(f"PRAGMA user_version={{SCHEMA_VERSION}}")
        """)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert creator.stdout.readline().strip() == "created"
    importer = _popen("import", str(DEMO), "--json", data_dir=data_dir)
    time.sleep(2)  # let it reach the store (it passes either way; before the fix it failed here)
    creator.communicate("go\n", timeout=60)
    out, err = importer.communicate(timeout=120)
    assert creator.returncode == 0
    assert importer.returncode == 0, err
    assert "already exists" not in err and json.loads(out)["errors"] == []


def test_two_imports_into_a_new_folder_at_once_both_succeed(tmp_path):
    from tests.ui.conftest import write_jsonl

    data_dir = tmp_path / "data"
    other = write_jsonl(tmp_path / "other.jsonl", 3000)
    children = [_popen("import", str(path), "--json", data_dir=data_dir) for path in (DEMO, other)]
    results = [child.communicate(timeout=180) for child in children]
    for child, (out, err) in zip(children, results, strict=True):
        assert child.returncode == 0, err
        assert "Traceback" not in err and json.loads(out)["errors"] == []
    assert _messages(data_dir) == 434 + 3000


def test_build_during_a_real_import_waits_and_both_finish(tmp_path):
    from bench.synth_telegram import write_export

    export = tmp_path / "result.json"
    write_export(export, 120_000, seed=3)
    data_dir = tmp_path / "data"
    importer = _popen("import", str(export), "--json", data_dir=data_dir)
    while current_holder(data_dir) is None or current_holder(data_dir).operation != "import":
        assert importer.poll() is None, importer.communicate()[1]
        time.sleep(0.05)
    builder = _popen("build", "--json", data_dir=data_dir)
    searcher = _popen("stats", "--json", data_dir=data_dir)  # a reader: never waits, never fails
    import_out, import_err = importer.communicate(timeout=600)
    build_out, build_err = builder.communicate(timeout=600)
    stats_out, stats_err = searcher.communicate(timeout=120)
    assert importer.returncode == 0, import_err
    assert builder.returncode == 0, build_err
    assert searcher.returncode == 0, stats_err
    assert "database is locked" not in build_err + import_err + stats_err
    assert json.loads(build_out)["vectors"]["topic"] > 0
    if "waiting for" in build_err:  # it came while the import ran: it built what the import added
        with closing(sqlite3.connect(db_path(data_dir))) as connection, connection:
            waiting = connection.execute("SELECT count(*) FROM message WHERE is_service = 0 AND topic_id IS NULL")
            assert waiting.fetchone()[0] == 0
        assert json.loads(build_out)["messages_assigned"] > 0


def test_a_search_during_an_import_shows_results_and_says_the_run_was_not_recorded(built_demo, tmp_path):
    data_dir = copy_data(built_demo, tmp_path)
    connection = sqlite3.connect(db_path(data_dir), isolation_level=None)
    with StoreWriteLock(data_dir, "import", origin="command"):
        connection.execute("BEGIN IMMEDIATE")  # what an import holds for its whole length
        result = flashback("search", QUERY, "--json", data_dir=data_dir)
        connection.execute("ROLLBACK")
    connection.close()
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["candidates"] and "run_id" not in outcome
    assert any("not recorded" in note for note in outcome["notes"])
    assert "not recorded" in result.stderr


def _index_files(data_dir: Path) -> dict[str, bytes]:
    return {name: (data_dir / "index" / name).read_bytes() for name in ("topics.hnsw", "topics.hnsw.json")}


def test_a_search_never_writes_an_index_another_process_is_building(built_demo, tmp_path):
    """Finding 2: a search during a build rebuilt the topic index itself and saved it over
    the build's newer one. Now it searches what is there and says the index is being rebuilt;
    rebuilding is left to builds even when no build runs."""
    data_dir = copy_data(built_demo, tmp_path)
    # What a build's first commits do: the index is stale.
    with closing(sqlite3.connect(db_path(data_dir))) as connection, connection:
        topic = connection.execute("SELECT entity_id FROM vector_item WHERE kind = 'topic' LIMIT 1").fetchone()[0]
        connection.execute("DELETE FROM vector_item WHERE kind = 'topic' AND entity_id = ?", (topic,))
    before = _index_files(data_dir)
    with StoreWriteLock(data_dir, "build", origin="command"):
        during = flashback("search", QUERY, "--json", data_dir=data_dir)
        assert _index_files(data_dir) == before  # not rebuilt, not saved
    assert during.returncode == 0, during.stderr
    outcome = json.loads(during.stdout)
    assert outcome["candidates"]
    assert all(c["id"] != topic for c in outcome["candidates"] if c["kind"] == "topic")  # gone from the store
    assert any("topic index is being rebuilt by `flashback build`" in note for note in outcome["notes"])
    after = flashback("search", QUERY, "--json", data_dir=data_dir)  # nobody builds now: still never written
    assert after.returncode == 0 and _index_files(data_dir) == before
    assert any("`flashback build` (or Build memory) remakes it" in note for note in json.loads(after.stdout)["notes"])
    assert flashback("build", data_dir=data_dir).returncode == 0  # builds own index rebuilds
    assert _index_files(data_dir) != before
    assert "notes" not in json.loads(flashback("search", QUERY, "--json", data_dir=data_dir).stdout)


def test_a_search_over_a_missing_index_file_scores_the_store_exactly_and_writes_nothing(built_demo, tmp_path):
    from engine.api import Flashback

    data_dir = copy_data(built_demo, tmp_path)
    expected = [(c.kind, c.id) for c in Flashback(data_dir).search.candidates(QUERY).candidates]
    (data_dir / "index" / "topics.hnsw").unlink()
    stage1 = Flashback(data_dir).search.candidates(QUERY)
    assert [(c.kind, c.id) for c in stage1.candidates] == expected  # exact scores: the same ranking on a small store
    assert "missing" in str(stage1.rebuilt["topic"]) and not (data_dir / "index" / "topics.hnsw").exists()


def test_a_writer_killed_with_sigkill_leaves_no_stale_lock(tmp_path):
    data_dir = tmp_path / "data"
    open_engine(data_dir).dispose()
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from engine.store.lock import StoreWriteLock
        with StoreWriteLock({str(data_dir)!r}, "import", origin="command"):
            print("held", flush=True)
            time.sleep(600)
        """)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    assert current_holder(data_dir).operation == "import"
    holder.kill()  # SIGKILL: no cleanup runs
    holder.wait(timeout=30)
    holder.stdout.close()
    assert current_holder(data_dir) is None  # the OS let go of it with the process
    result = flashback("import", str(DEMO), data_dir=data_dir)
    assert result.returncode == 0 and "waiting" not in result.stderr, result.stderr
