"""assemble_context on a real store: order, budget, truncation, omissions, excerpts, entities."""

from __future__ import annotations

import pytest

from engine.export import ContextError, assemble_context, estimate_tokens
from engine.rerank.base import Selection
from engine.topics.content import format_log, topic_messages
from tests.engine.export.conftest import FIRST_LONG, LAST_LONG


def _pack(memory, selected, budget=8000):
    return assemble_context(memory.connection, "отчёт и миграция", selected, memory.candidates(), budget,
                            reranker="flash")


def _budget_respected(pack):
    assert pack.used_tokens <= pack.budget_tokens
    assert pack.used_tokens == sum(item.tokens for item in pack.items)


def test_whole_topics_in_selection_order_with_sources(memory):
    selected = [Selection("topic", memory.short, "mentions the staging key"),
                Selection("topic", memory.ru, "отчёт обсуждали здесь")]
    pack = _pack(memory, selected)
    _budget_respected(pack)
    assert [(i.kind, i.id) for i in pack.items] == [("topic", memory.short), ("topic", memory.ru)]
    assert pack.omitted == [] and pack.reranker == "flash" and pack.candidates == 3
    ru = pack.items[1]
    messages = topic_messages(memory.connection, memory.ru)
    assert ru.text == format_log(messages) and not ru.truncated and not ru.excerpt
    assert (ru.reason, ru.chat, ru.date) == ("отчёт обсуждали здесь", "Команда", "2024-05-01")
    assert ru.sources == {"topic_id": memory.ru, "first_message_id": messages[0].id,
                          "last_message_id": messages[-1].id, "messages": len(messages),
                          "first_at": "2024-05-01T09:00:00+00:00", "last_at": "2024-05-01T09:05:00+00:00"}
    assert "ещё этих" not in ru.text and "про ёлки и бюджет" in ru.text  # Cyrillic (ё) intact
    assert ru.chars == len(ru.text) and ru.summary


def test_a_long_topic_is_cut_at_message_boundaries_keeping_start_and_end(memory):
    whole = format_log(topic_messages(memory.connection, memory.long))
    assert estimate_tokens(whole) > 2000
    pack = _pack(memory, [Selection("topic", memory.long, "the migration plan")], budget=1500)
    _budget_respected(pack)
    [item] = pack.items
    assert item.truncated
    lines = item.text.split("\n")
    assert lines[0].endswith(FIRST_LONG) and lines[-1].endswith(LAST_LONG)
    marker = next(line for line in lines if line.startswith("[… "))
    left_out = item.sources["total_messages"] - item.sources["included_messages"]
    assert marker == f"[… {left_out} messages left out to fit the token budget …]" and left_out > 0
    assert all(line.startswith("[Anna (") or line.startswith("[Bob (") or line == marker for line in lines)
    assert item.sources["total_messages"] == 80


def test_what_does_not_fit_is_omitted_with_why_and_smaller_items_still_come(memory):
    selected = [Selection("topic", memory.long, "too big"), Selection("topic", 99999, "gone"),
                Selection("person", memory.anna, "wrote the report")]
    pack = _pack(memory, selected, budget=200)  # under MIN_USEFUL_TOKENS left for the topic
    _budget_respected(pack)
    assert [(i.kind, i.id) for i in pack.items] == [("person", memory.anna)]
    [big, gone] = pack.omitted
    assert big["id"] == memory.long and big["why"].startswith("over the token budget")
    assert big["needed_tokens"] > 200 and big["reason"] == "too big"
    assert gone["id"] == 99999 and "not in the store" in gone["why"] and gone["needed_tokens"] is None


@pytest.mark.parametrize("budget", [40, 120, 151, 300, 777, 1234, 2500, 4000, 9000])
def test_used_tokens_never_exceed_any_budget(memory, budget):
    selected = [Selection("topic", memory.long, "a"), Selection("topic", memory.ru, "b"),
                Selection("person", memory.anna, "c"), Selection("artifact", memory.report, "d"),
                Selection("topic", memory.short, "e")]
    pack = _pack(memory, selected, budget=budget)
    _budget_respected(pack)
    assert len(pack.items) + len(pack.omitted) == len(selected)


def test_excerpt_replaces_the_whole_log(memory):
    excerpt = f"[Anna]: {FIRST_LONG}\n[Bob]: {LAST_LONG}\nsecond line of Bob's message"
    pack = _pack(memory, [Selection("topic", memory.long, "only the decision", excerpt)])
    [item] = pack.items
    assert item.excerpt and item.text == excerpt and not item.truncated
    assert item.sources["messages"] == 80  # sources still describe the whole topic


def test_people_and_artifacts_bring_profiles_and_references(memory):
    pack = _pack(memory, [Selection("person", memory.anna, "автор вопроса"),
                          Selection("artifact", memory.report, "сам отчёт")])
    person, artifact = pack.items
    assert person.text.startswith("Person: Анна. 2 messages in Команда, 2024-05-01 – 2024-05-01.")
    assert "[2024-05-01 09:02, Команда] Ещё нужен раздел про ёлки и бюджет." in person.text
    assert person.sources["chats"] == ["Команда"] and person.chat == "Команда"
    assert artifact.text.splitlines()[0] == 'file: "отчёт.pdf"'
    message_id = memory.store.scalar("SELECT message_id FROM artifact WHERE id = ?", memory.report)
    assert f"\nIn Команда, message {message_id}\n" in artifact.text  # its text is the caption: not twice
    assert "Caption: вот файл" in artifact.text and "Sent by Борис on 2024-05-01" in artifact.text
    assert artifact.sources["message_id"] == message_id and artifact.sources["topic_id"] == memory.ru
    assert (artifact.date, artifact.chat, artifact.summary) == ("2024-05-01", "Команда", "file: отчёт.pdf")


def test_duplicates_are_packed_once_and_bad_budgets_refused(memory):
    pack = _pack(memory, [Selection("topic", memory.ru, "first"), Selection("topic", memory.ru, "again")])
    assert [i.reason for i in pack.items] == ["first"] and pack.omitted == []
    with pytest.raises(ContextError, match="positive"):
        _pack(memory, [], budget=0)
    assert _pack(memory, []).items == []
