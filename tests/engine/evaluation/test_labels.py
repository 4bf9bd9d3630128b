"""Labels live in the store at the message level: a topic label maps to its messages and back,
survives a rebuild that cuts topics differently, and round-trips through a QRELS file."""

from __future__ import annotations

import json
import sqlite3

import pytest

from engine.evaluation.labels import LabelStore, export_qrels, label_topic, labelled_queries, topic_labels
from engine.evaluation.qrels import QrelsError, QueryFilters, load_qrels
from engine.store.database import SCHEMA_VERSION, connect, db_path, open_engine
from engine.topics import TopicSettings, build_topics
from tests.engine.topics.conftest import BASE, Store, conversation

HOUR = 3600
QUERY, FILTERS = "when is the dentist?", QueryFilters((1,), "2024-05-01", None)


def three_sessions(store: Store) -> None:
    rows = []
    for session, subject in enumerate(("dentist appointment", "holiday in Lisbon", "car repair")):
        texts = [("Anna" if i % 2 else "Bob", f"{subject} detail {i}") for i in range(4)]
        rows += conversation("Family", BASE + session * 2 * HOUR, texts, first_id=1 + session * 4)
    store.add(rows)


def rebuild(store: Store, **settings) -> dict[int, list[int]]:
    """Throw the topics away and cut them again (what a rebuild with other settings does to them)."""
    connection = store.connection
    connection.execute("UPDATE message SET topic_id = NULL")
    connection.execute("DELETE FROM topic")
    build_topics(connection, settings=TopicSettings(subject_chars=0, **settings))
    topics: dict[int, list[int]] = {}
    for message, topic in connection.execute("SELECT id, topic_id FROM message ORDER BY id"):
        topics.setdefault(topic, []).append(message)
    return topics


def topic_of(store: Store, message_id: int) -> int:
    return store.scalar("SELECT topic_id FROM message WHERE id = ?", message_id)


def test_labels_survive_rebuilds_that_cut_topics_finer_and_coarser(store):
    three_sessions(store)
    fine = rebuild(store)  # three sessions, three topics
    assert len(fine) == 3
    messages = store.message_ids("Family")
    lisbon, car = topic_of(store, messages[4]), topic_of(store, messages[8])
    label_topic(store.connection, QUERY, FILTERS, lisbon, True)
    labels = label_topic(store.connection, QUERY, FILTERS, car, False)
    assert labels == {lisbon: True, car: False}
    stored = labelled_queries(store.connection)[0]
    assert stored.relevant == frozenset(messages[4:8]) and stored.not_relevant == frozenset(messages[8:12])

    coarse = rebuild(store, chunk_interval_s=3 * HOUR)  # one topic for the whole day
    assert len(coarse) == 1
    (whole,) = coarse
    assert topic_labels(store.connection, QUERY, FILTERS) == {whole: True}  # holds a relevant message

    rebuild(store)  # fine again: each part gets its own messages' label back
    assert topic_labels(store.connection, QUERY, FILTERS) == {
        topic_of(store, messages[4]): True, topic_of(store, messages[8]): False}
    assert topic_of(store, messages[0]) not in topic_labels(store.connection, QUERY, FILTERS)


def test_a_whole_topic_label_spreads_to_every_part_of_a_finer_cut(store):
    three_sessions(store)
    (whole,) = rebuild(store, chunk_interval_s=3 * HOUR)
    label_topic(store.connection, QUERY, QueryFilters(), whole, True)
    parts = rebuild(store)
    assert topic_labels(store.connection, QUERY, QueryFilters()) == {topic: True for topic in parts}


def test_clearing_the_last_label_forgets_the_query_and_filters_keep_queries_apart(store):
    three_sessions(store)
    rebuild(store)
    topic = topic_of(store, store.message_ids("Family")[0])
    label_topic(store.connection, QUERY, FILTERS, topic, True)
    label_topic(store.connection, QUERY, QueryFilters(), topic, False)
    assert topic_labels(store.connection, QUERY, FILTERS) == {topic: True}
    assert topic_labels(store.connection, QUERY, QueryFilters()) == {topic: False}
    label_topic(store.connection, QUERY, FILTERS, topic, None)
    assert [q.filters for q in labelled_queries(store.connection)] == [QueryFilters()]


def test_qrels_round_trip_into_another_store(store, tmp_path):
    three_sessions(store)
    rebuild(store)
    messages = store.message_ids("Family")
    label_topic(store.connection, QUERY, FILTERS, topic_of(store, messages[0]), True)
    label_topic(store.connection, QUERY, FILTERS, topic_of(store, messages[8]), False)
    document = export_qrels(store.connection)
    (entry,) = document["queries"]
    assert entry["relevant"][0] == {"chat": "jsonl:Family", "message": "1"}
    assert len(entry["relevant"]) == 4 and len(entry["not_relevant"]) == 4
    assert entry["filters"] == {"chat_ids": [1], "since": "2024-05-01", "until": None}
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert [q.query for q in load_qrels(path)] == [QUERY]  # what `flashback eval` reads

    other = Store(tmp_path / "other")
    three_sessions(other)
    summary = LabelStore(other.data).import_qrels(path)
    assert (summary.queries, summary.labels, summary.unmatched) == (1, 8, 0)
    (copied,) = labelled_queries(other.connection)
    assert (copied.query, copied.filters, copied.external_id) == (QUERY, FILTERS, entry["id"])
    assert len(copied.relevant) == 4 and len(copied.not_relevant) == 4
    other.connection.close()


@pytest.mark.parametrize(("content", "says"), [
    ("{not json", "it is not JSON (line 1)"),
    ('{"items": []}', "the key 'queries' is missing"),
    ('{"queries": [{"id": 1, "query": "x"}]}', "the key 'relevant' is missing"),
    ('{"queries": [{"id": 1, "query": "x", "relevant": "D1:3"}]}', '"relevant" of query 1 is not a list'),
    ('{"queries": {"a": 1}}', '"queries" is not a list'),
    ('{"queries": [{"id": 1, "query": " ", "relevant": []}]}', "query 1 has no text"),
])
def test_bad_qrels_files_get_one_sentence(tmp_path, content, says):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(QrelsError) as error:
        load_qrels(path)
    message = str(error.value)
    assert says in message and "\n" not in message and message.endswith(".")
    with pytest.raises(QrelsError, match="Cannot read"):
        load_qrels(tmp_path / "missing.json")


def test_a_qrels_file_about_other_chats_is_refused_in_one_sentence(store, tmp_path):
    three_sessions(store)
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"queries": [{"id": "a", "query": "x",
                                              "relevant": [{"chat": "Nope", "message": "1"}]}]}))
    with pytest.raises(QrelsError, match="None of the 1 messages in other.json names is in this store"):
        LabelStore(store.data).import_qrels(path)
    assert labelled_queries(store.connection) == []


def _as_v4(path) -> None:
    connection = sqlite3.connect(path)
    connection.execute("DROP TABLE label_message")
    connection.execute("DROP TABLE label_query")
    connection.execute("PRAGMA user_version = 4")
    connection.commit()
    connection.close()


def test_a_v4_store_gains_the_label_tables_and_keeps_its_messages(store):
    three_sessions(store)
    rebuild(store)
    before = store.rows("SELECT id, topic_id, text FROM message ORDER BY id")
    store.connection.close()
    _as_v4(db_path(store.data))
    open_engine(store.data).dispose()
    store.connection = connect(db_path(store.data))
    assert store.scalar("PRAGMA user_version") == SCHEMA_VERSION >= 5
    assert store.rows("SELECT id, topic_id, text FROM message ORDER BY id") == before
    columns = [row[1] for row in store.rows("PRAGMA table_info(label_message)")]
    assert columns == ["query_id", "message_id", "relevant", "labelled_at"]
    label_topic(store.connection, QUERY, FILTERS, before[0][1], True)
    store.connection.execute("DELETE FROM label_query")  # labels go with their query
    assert store.scalar("SELECT count(*) FROM label_message") == 0


def test_a_label_while_another_process_writes_is_refused_at_once_and_names_the_writer(store, tmp_path):
    """Issue 12: labels are writes too. While an import or build elsewhere holds the store's
    write lock, a label is refused at once (no busy-timeout wait, no "database is locked")."""
    import subprocess
    import sys
    import time

    from engine.store.lock import WriterBusy
    from tests.cli_run import ROOT

    three_sessions(store)
    rebuild(store)
    topic = topic_of(store, store.message_ids("Family")[0])
    code = ("import sys\nfrom engine.store.lock import StoreWriteLock\n"
            f"with StoreWriteLock({str(store.data)!r}, 'import', origin='window'):\n"
            "    print('held', flush=True)\n    sys.stdin.readline()\n")
    other = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    try:
        assert other.stdout.readline().strip() == "held"
        labels = LabelStore(store.data)
        started = time.monotonic()
        with pytest.raises(WriterBusy) as refused:
            labels.label_topic(QUERY, FILTERS, topic, True)
        assert time.monotonic() - started < 4  # not SQLite's 5 s busy timeout
        assert refused.value.holder.operation == "import" and refused.value.holder.pid == other.pid
        assert "the import in another Flashback window" in str(refused.value)
        assert labels.topic_labels(QUERY, FILTERS) == {}  # nothing was written
    finally:
        other.communicate("done\n", timeout=30)
    assert LabelStore(store.data).label_topic(QUERY, FILTERS, topic, True) == {topic: True}  # and after, it is
