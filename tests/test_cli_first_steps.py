"""A new user's first steps (issue 23): `build` on an empty store says to import first (it
printed "0 new topics from 0 messages … searchable: 0 topics" and exited 0), and `build
--embedder local` counts topics, not their passages ("searchable: 236 topics" for 113: a
sentence model's topic is its summary plus passages, one vector item each)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest

from engine.store.database import db_path
from tests.cli_run import flashback, one_sentence
from tests.test_cli_local import _chats, needs_model


@pytest.mark.parametrize("extra", [(), ("--json",)])
def test_build_on_an_empty_store_says_to_import_first(tmp_path, extra):
    result = flashback("build", *extra, data_dir=tmp_path / "data")
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert result.stderr.startswith("error: The store holds no messages yet: import a chat export first")
    assert "`flashback import PATH`" in result.stderr and result.stdout == ""
    same = flashback("search", "anything", data_dir=tmp_path / "data")  # the search says the same sentence
    assert same.returncode == 1 and same.stderr == result.stderr


@needs_model
def test_the_local_build_counts_topics_not_passages(tmp_path):
    data = tmp_path / "store"
    assert flashback("import", str(_chats(tmp_path)), data_dir=data).returncode == 0
    built = flashback("build", "--embedder", "local", "--embedding-timeout", "120", data_dir=data)
    assert built.returncode == 0, built.stderr
    with closing(sqlite3.connect(db_path(data))) as connection:
        topics = connection.execute("SELECT count(*) FROM topic").fetchone()[0]
        items = connection.execute("SELECT count(*) FROM vector_item WHERE kind = 'topic'").fetchone()[0]
    assert items > topics > 0  # the summary and the passages of each topic
    searchable = built.stdout.split("searchable: ", 1)[1]
    assert searchable.startswith(f"{topics} topic"), built.stdout

    again = json.loads(flashback("build", "--embedder", "local", "--json", data_dir=data).stdout)
    assert again["searchable"]["topic"] == topics and again["vectors"]["topic"] == items
