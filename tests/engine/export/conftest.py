"""One small real store for the context tests: JSONL imported by the import service and
topics built by the topic builder (the fixtures of tests/engine/topics, reused)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from engine.rerank.base import Candidate
from engine.topics import TopicSettings, build_topics
from tests.engine.topics.conftest import BASE, Store, conversation, line

DAY = 86400
FAKE_KEY = "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef"
FIRST_LONG = "FIRST: kickoff of the Postgres migration plan"
LAST_LONG = "LAST: decision, we ship the migration on Friday"


def _long_session() -> list[dict]:
    texts = [("Anna", FIRST_LONG)]
    texts += [("Bob" if i % 2 else "Anna", f"step {i}: " + "we compare replication lag and index bloat " * 3)
              for i in range(1, 79)]
    texts.append(("Bob", LAST_LONG))
    return conversation("Team", BASE + DAY, texts, first_id=100)


def _rows() -> list[dict]:
    rows = conversation("Команда", BASE, [
        ("Анна", "Привет, как дела с отчётом?"),
        ("Борис", "Почти готов, пришлю вечером."),
        ("Анна", "Ещё нужен раздел про ёлки и бюджет."),
        ("Борис", "Хорошо, добавлю."),
    ])
    attachment = line("Команда", 50, "Борис", BASE + 300, "вот файл")
    attachment["attachments"] = [{"kind": "file", "name": "отчёт.pdf"}]
    rows.append(attachment)
    rows += _long_session()
    rows += conversation("Team", BASE + 2 * DAY, [
        ("Anna", "Which key does the staging bot use?"),
        ("Bob", f"This one: {FAKE_KEY}"),
        ("Anna", "Thanks, rotating it tomorrow."),
    ], first_id=300)
    return rows


@dataclass
class Memory:
    store: Store
    ru: int  # topic ids
    long: int
    short: int
    anna: int  # person id (Анна)
    report: int  # artifact id

    @property
    def connection(self):
        return self.store.connection

    def candidates(self) -> list[Candidate]:
        rows = self.store.rows("SELECT t.id, c.title, t.message_count, t.size_chars, t.summary FROM topic t "
                               "JOIN chat c ON c.id = t.chat_id ORDER BY t.id")
        return [Candidate("topic", tid, rank, 0.9 - rank / 100, 0.5, "2024-05-01", chat, count, size, summary)
                for rank, (tid, chat, count, size, summary) in enumerate(rows, 1)]


@pytest.fixture(scope="module")
def memory(tmp_path_factory) -> Memory:
    store = Store(tmp_path_factory.mktemp("context"))
    store.add(_rows())
    # Sessions kept whole (no subject cuts): the tests need one topic far over the budget.
    build_topics(store.connection, settings=TopicSettings(subject_chars=0))
    assert store.scalar("SELECT count(*) FROM topic") == 3

    def topic_of(chat: str, at: float) -> int:
        return store.scalar("SELECT t.id FROM topic t JOIN chat c ON c.id = t.chat_id "
                            "WHERE c.title = ? AND t.first_at = ?", chat, at)

    made = Memory(store, topic_of("Команда", BASE), topic_of("Team", BASE + DAY), topic_of("Team", BASE + 2 * DAY),
                  store.scalar("SELECT id FROM person WHERE display_name = 'Анна'"),
                  store.scalar("SELECT id FROM artifact WHERE file_name = 'отчёт.pdf'"))
    yield made
    store.connection.close()
