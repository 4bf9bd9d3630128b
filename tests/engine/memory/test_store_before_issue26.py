"""A store built before issue 26 still opens and searches (tests/data/store_before_issue26.zip:
tests/data/store_before_issue26.jsonl imported and built by the commit before issue 26's:
the built-in embedder's vectors cached as float32, a 1,024-dimension index, sidecars without
the binary's identity). Its index is searched as it is; the next build remakes it as a
256-dimension sketch with the vectors beside it, drops the cache rows, and makes BM25's
table contentless (issue 26's second round)."""

from __future__ import annotations

import sqlite3
import zipfile
from contextlib import closing
from pathlib import Path

import pytest

from engine.api import Flashback
from engine.index.sidecar import read_sidecar
from engine.memory.lexical_index import topic_fts_is_current
from tests.cli_run import flashback

OLD_STORE = Path(__file__).resolve().parents[2] / "data" / "store_before_issue26.zip"


@pytest.fixture
def old_store(tmp_path) -> Path:
    data_dir = tmp_path / "data"
    with zipfile.ZipFile(OLD_STORE) as archive:
        archive.extractall(data_dir)
    return data_dir


def _cached(data_dir: Path) -> int:
    with closing(sqlite3.connect(data_dir / "flashback.sqlite3")) as connection:
        return connection.execute("SELECT count(*) FROM embedding_cache WHERE model_id LIKE 'builtin:%'").fetchone()[0]


def _top(service: Flashback, query: str) -> str:
    topics = [c for c in service.search.candidates(query).candidates if c.kind == "topic"]
    assert topics, query
    return topics[0].summary


def test_an_old_store_is_searched_as_it_is_then_remade_by_the_next_build(old_store):
    assert read_sidecar(old_store / "index" / "topics.hnsw").meta.dim == 1024 and _cached(old_store) > 0
    service = Flashback(old_store)
    assert not service.memory.status().needs_build  # nothing to do before a search: it searches the old index
    stage1 = service.search.candidates("ferry to Zanzibar")
    assert not stage1.rebuilt  # no stand-in, no note: the old index is current for its store
    before = _top(service, "ferry to Zanzibar")
    assert "Zanzibar" in before or "ferry" in before

    report = service.memory.build()

    assert "dimension" in report.rebuilt["topic"]  # remade as a sketch, from the cached vectors
    assert report.embedded == 0  # nothing was embedded again
    assert _cached(old_store) == 0
    saved = read_sidecar(old_store / "index" / "topics.hnsw").meta
    assert saved.dim == 256 and saved.params["vectors"]["bytes"] == (old_store / "index" / "topics.vec").stat().st_size
    with closing(sqlite3.connect(old_store / "flashback.sqlite3")) as connection:  # BM25's table made contentless
        assert topic_fts_is_current(connection)
        copies = connection.execute("SELECT count(*) FROM sqlite_master WHERE name = 'topic_fts_content'").fetchone()
        assert copies == (0,)
    again = Flashback(old_store)
    assert _top(again, "ferry to Zanzibar") == before
    assert "Postgres" in _top(again, "postgres upgrade friday")


def test_the_cli_searches_and_builds_an_old_store(old_store):
    searched = flashback("search", "turbine report", data_dir=old_store)
    assert searched.returncode == 0 and "turbine" in searched.stdout.lower(), searched.stderr
    built = flashback("build", data_dir=old_store)
    assert built.returncode == 0, built.stderr
    # the old cache rows went (vacuumed only when worth a rewrite)
    assert "Dropping the cached vectors no longer needed: 12 / 12" in built.stderr
    after = flashback("search", "turbine report", data_dir=old_store)
    assert after.stdout.splitlines()[:-1] == searched.stdout.splitlines()[:-1]  # the same candidates (not timing)
