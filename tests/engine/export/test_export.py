"""Markdown and JSON exports of a real pack: shape, Cyrillic, no settings or keys."""

from __future__ import annotations

import json

from engine.export import assemble_context, to_json, to_markdown
from engine.rerank.base import Selection
from tests.engine.export.conftest import FAKE_KEY, FIRST_LONG, LAST_LONG

ITEM_KEYS = ["kind", "id", "reason", "date", "chat", "summary", "truncated", "excerpt", "chars", "tokens",
             "sources", "text"]


def _pack(memory, budget=8000):
    selected = [Selection("topic", memory.ru, "здесь обсуждали отчёт"), Selection("topic", memory.short, "the key"),
                Selection("topic", memory.long, "migration plan"), Selection("person", memory.anna, "asked for it"),
                Selection("artifact", memory.report, "the report itself"), Selection("topic", 4242, "vanished")]
    return assemble_context(memory.connection, "где отчёт?", selected, memory.candidates(), budget,
                            reranker="flash")


def test_markdown_reads_as_a_document(memory):
    text = to_markdown(_pack(memory))
    lines = text.splitlines()
    assert lines[0] == "# Context for: где отчёт?"
    assert lines[2].startswith("_Selected by the flash reranker from 3 search candidates: 3 topics, 1 person, "
                               "1 attachment; ~") and "of 8,000 tokens" in lines[2]
    assert f"## Topic {memory.ru} · Команда · 2024-05-01" in lines
    assert f"## Topic {memory.long} · Team · 2024-05-02" in lines
    assert "*здесь обсуждали отчёт*" in lines
    assert "**Анна** (2024-05-01 09:00): Привет, как дела с отчётом?" in lines
    assert "**Борис** (2024-05-01 09:02): Ещё нужен раздел про ёлки и бюджет." not in lines  # Анна wrote it
    assert "**Анна** (2024-05-01 09:02): Ещё нужен раздел про ёлки и бюджет." in lines
    assert lines.index("## People") < lines.index("## Attachments") < lines.index("## Not included")
    assert "### Анна · Команда" in lines and "### file: отчёт.pdf · Команда · 2024-05-01" in lines
    assert "- Topic 4242: not in the store any more (merged or deleted since the search)" in lines
    # topic sections keep the reranker's order
    assert lines.index(f"## Topic {memory.ru} · Команда · 2024-05-01") < \
        lines.index(f"## Topic {memory.long} · Team · 2024-05-02")


def test_markdown_of_a_shortened_topic_says_so(memory):
    pack = assemble_context(memory.connection, "migration", [Selection("topic", memory.long, "plan")], [], 1500)
    text = to_markdown(pack)
    item = pack.items[0]
    assert f"_(Shortened to fit: {item.sources['included_messages']} of 80 messages.)_" in text
    left_out = 80 - item.sources["included_messages"]
    assert f"\n_… {left_out} messages left out to fit the token budget …_\n" in text
    assert FIRST_LONG in text and LAST_LONG in text
    assert text.splitlines()[2].startswith("_Selected: 1 topic; ~")  # no reranker, no candidates given


def test_json_has_stable_keys_and_raw_utf8(memory):
    pack = _pack(memory)
    data = json.loads(to_json(pack))
    assert list(data) == ["query", "created_at", "reranker", "candidates", "budget_tokens", "used_tokens",
                          "items", "omitted"]
    assert [list(item) for item in data["items"]] == [ITEM_KEYS] * len(pack.items)
    assert [(i["kind"], i["id"]) for i in data["items"]] == [(i.kind, i.id) for i in pack.items]
    ru = data["items"][0]
    assert ru["reason"] == "здесь обсуждали отчёт" and ru["sources"]["topic_id"] == memory.ru
    assert ru["sources"]["first_at"] == "2024-05-01T09:00:00+00:00" and ru["date"] == "2024-05-01"
    assert data["omitted"] == [{"kind": "topic", "id": 4242, "reason": "vanished",
                                "why": "not in the store any more (merged or deleted since the search)",
                                "needed_tokens": None}]
    raw = to_json(pack)
    assert "где отчёт?" in raw and "\\u04" not in raw  # ensure_ascii=False


def test_no_settings_and_no_keys_in_either_export(memory):
    pack = _pack(memory)
    short = next(item for item in pack.items if item.id == memory.short)
    assert FAKE_KEY in short.text  # the chat itself holds a pasted key…
    for text in (to_markdown(pack), to_json(pack)):
        assert FAKE_KEY not in text and "sk-or-v1-" not in text  # …which no export carries
        assert "[redacted]" in text
        for word in ("settings", "api_key", "Authorization", "base_url"):
            assert word not in text
