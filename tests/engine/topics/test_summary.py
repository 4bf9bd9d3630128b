"""Extractive summaries: the chat's language, who, when, distinctive terms, the opening request."""

from __future__ import annotations

from engine.topics.sessions import MessageRow
from engine.topics.summary import Summarizer, detect_language, fold_term
from tests.engine.topics.conftest import BASE, conversation

DAY = 86_400


def rows_of(store, chat: str) -> list[MessageRow]:
    return [MessageRow(*row) for row in store.rows(
        "SELECT m.id, m.chat_id, m.author, m.role, m.sent_at, m.text, m.content_hash FROM message m "
        "JOIN chat c ON c.id = m.chat_id WHERE c.title = ? ORDER BY m.sent_at, m.id", chat)]


def test_russian_chat_gets_names_dates_terms_and_the_opening_without_label_words(store):
    store.add(conversation("Семья", BASE, [
        ("Мама", "Привет"),
        ("Мама", "Саша, купи по дороге хлеб, молоко и батарейки для пульта"),
        ("Саша", "Хорошо, заеду в Ашан на Ленинском после работы"),
        ("Мама", "И ещё корм для Барсика, 2 пачки по 400 грамм"),
    ], step=DAY / 2))
    summary = Summarizer(store.connection).summarize(rows_of(store, "Семья"), "ru")
    assert summary.startswith("Мама, Саша · 2024-05-01 – 2024-05-02 · ")
    assert "Ашан" in summary and "Барсика" in summary and "400" in summary
    assert " · «Саша, купи по дороге хлеб" in summary  # "Привет" is not the request
    # Stored once, read in an English or a Russian window: no label words in either language.
    assert not any(label in summary for label in ("key terms", "opened with", "ключевые", "начало"))
    assert len(summary) <= 300


def test_english_chat_gets_english_quotes_and_no_label_words(store):
    store.add(conversation("Ops", BASE, [
        ("Dana", "Can you move the Grafana dashboards to the new Hetzner box before Friday?"),
        ("Lee", "Yes, I'll migrate them tonight and keep port 3000"),
    ]))
    summary = Summarizer(store.connection).summarize(rows_of(store, "Ops"))
    assert summary.startswith("Dana, Lee · 2024-05-01 · ")
    assert " · “Can you move the Grafana dashboards" in summary
    assert "3000" in summary and "key terms" not in summary and "opened with" not in summary


def test_terms_common_in_the_store_lose_to_rare_ones(store):
    filler = [("Kim", f"weekly meeting plans again, bring salad, part {i}") for i in range(60)]
    store.add(conversation("Team", BASE, filler, first_id=1000)
              + conversation("Food", BASE + 10 * DAY, [("Ann", "meeting about meeting plans, meeting again"),
                                                        ("Bob", "bring quinoa salad")]))
    rows = rows_of(store, "Food")
    # "meeting" is three times as frequent in the topic, but 61 messages of the store have it.
    assert Summarizer(store.connection).distinctive_terms(rows, limit=1) == ["quinoa"]
    preloaded = Summarizer(store.connection, preload=True)  # one vocabulary scan: same answer
    assert preloaded.distinctive_terms(rows) == Summarizer(store.connection).distinctive_terms(rows)
    assert Summarizer(None).distinctive_terms(rows, limit=1) == ["meeting"]  # no df: frequency alone


def test_assistant_chat_opens_with_the_users_request_and_stays_short():
    long_request = "Please explain how PostgreSQL logical replication slots work " + "in detail " * 60
    rows = [MessageRow(1, 1, "Assistant", "assistant", BASE, "Hello! How can I help you today?", "a"),
            MessageRow(2, 1, "User", "user", BASE + 5, long_request, "b"),
            MessageRow(3, 1, "Assistant", "assistant", BASE + 9, "Replication slots keep WAL segments " * 40, "c")]
    summary = Summarizer(None).summarize(rows, "en")
    assert " · “Please explain how PostgreSQL logical replication" in summary
    assert summary.endswith("…”") and len(summary) <= 300


def test_many_authors_are_counted_not_listed():
    rows = [MessageRow(i, 1, f"Person{i}", "other", BASE + i, f"message number {i} about the trip", "h")
            for i in range(6)]
    assert Summarizer(None).summarize(rows, "en").startswith("Person0, Person1, Person2 +3 · ")


def test_language_detection_and_term_folding_match_the_fts_index():
    assert detect_language(["Привет, как дела? ok"]) == "ru"
    assert detect_language(["Hello there, как"]) == "en"
    assert detect_language(["", "12345"]) == "en"
    assert fold_term("Ёлка") == "елка" and fold_term("Café") == "cafe" and fold_term("Йогурт") == "йогурт"
