"""Turn-1 prompt (formats, size, language), the store source, and the contextualized query."""

from __future__ import annotations

import json
import re

import bpe_openai
import pytest

from engine.rerank.base import Candidate
from engine.rerank.flash import FlashSettings, TopicContent, estimate_tokens, store_topic_source
from engine.rerank.flash.prompt import PROMPT_BUDGET_TOKENS, choose_language, size_label
from engine.store.database import connect, db_path
from tests.engine.rerank.conftest import (
    CHAT,
    answer,
    assert_clean_trace,
    bodies,
    load,
    make_reranker,
    run,
    topic_ids,
    topic_of,
)
from tests.fake_openai import FakeResponse

QUERY = "Zeppelin budget and the hangar lease"
O200K = bpe_openai.get_encoding("o200k_base")  # a real tokenizer, shipped in the wheel
TOPIC_LINE = re.compile(r"^\[Topic:\d+\] \(\d\.\d\d\) \d{4}-\d\d-\d\d \| \d+ msgs?, ~[\d.]+K? chars \| \S.*$")


def turn_one(server, data_dir, candidates, query=QUERY, **settings) -> tuple[str, str]:
    server.script(CHAT, load(topic_ids(candidates)[:1] or [1]), answer({}))
    run(make_reranker(server, data_dir, **settings), query, candidates)
    messages = bodies(server)[0]["messages"]
    return messages[0]["content"], messages[1]["content"]


def test_turn_one_user_prompt_layout(server, data_dir, stage1):
    candidates = stage1(QUERY)
    recent = "Kim: did you see the new numbers?\nme: not yet"
    _, user = turn_one(server, data_dir, candidates, recent=recent, contextualize_query=False)
    blocks = re.findall(r"^<(\w+)>$", user, re.MULTILINE)
    assert blocks == ["current_messages", "topic_candidates", "people_candidates", "artifact_candidates", "user_query"]
    assert user.startswith("Current date: 2026-01-04\n\n<current_messages>\nKim: did you see")
    assert user.endswith(f"<user_query>\n{QUERY}\n</user_query>")
    topic_block = user.split("<topic_candidates>\n")[1].split("\n</topic_candidates>")[0].splitlines()
    assert len(topic_block) == 50 and all(TOPIC_LINE.match(line) for line in topic_block), topic_block[:3]
    people = user.split("<people_candidates>\n")[1].split("\n</people_candidates>")[0].splitlines()
    assert all(re.match(r"^\[Person:\d+\] \(\d\.\d\d\) \S", line) for line in people)
    artifacts = user.split("<artifact_candidates>\n")[1].split("\n</artifact_candidates>")[0].splitlines()
    assert all(re.match(r"^\[Artifact:\d+\] \(\d\.\d\d\) \S", line) for line in artifacts)


@pytest.mark.parametrize("query", [QUERY, "когда мы ездили на дачу на майские"])
def test_turn_one_prompt_for_50_candidates_fits_the_budget(server, data_dir, stage1, query):
    candidates = stage1(query)
    assert len(topic_ids(candidates)) == 50
    system, user = turn_one(server, data_dir, candidates, query=query)
    sent_tools = json.dumps(bodies(server)[0]["tools"], ensure_ascii=False)
    assert estimate_tokens(system) + estimate_tokens(user) + estimate_tokens(sent_tools) <= PROMPT_BUDGET_TOKENS
    # Counted by a real tokenizer, not the estimate the code shortened with: o200k runs
    # ~13 % above the estimate on chat text (tests/engine/export/test_tokens.py).
    real = sum(len(O200K.encode(part)) for part in (system, user, sent_tools))
    assert real <= PROMPT_BUDGET_TOKENS * 1.25, f"{real} o200k tokens for a {PROMPT_BUDGET_TOKENS}-token budget"
    assert "5–25" in system  # max(50/2, 5×2) = 25 to load, at least 5


def test_long_summaries_are_shortened_to_fit(server, data_dir, stage1):
    from dataclasses import replace
    candidates = [replace(c, summary=("Очень длинное описание темы разговора " * 20)) if c.kind == "topic" else c
                  for c in stage1(QUERY)]
    system, user = turn_one(server, data_dir, candidates)
    assert estimate_tokens(system) + estimate_tokens(user) <= PROMPT_BUDGET_TOKENS
    assert len(O200K.encode(system)) + len(O200K.encode(user)) <= PROMPT_BUDGET_TOKENS * 1.25
    assert "…" in user


def test_language_follows_the_query_unless_set(server, data_dir, stage1):
    assert choose_language("auto", "когда мы ездили на дачу", "") == "ru"
    assert choose_language("auto", "Zeppelin budget", "мама звонила") == "en"
    assert choose_language("ru", "Zeppelin budget") == "ru"
    system, user = turn_one(server, data_dir, stage1(QUERY), prompt_language="ru")
    assert system.startswith("Ты отбираешь") and user.startswith("Текущая дата:")
    assert bodies(server)[0]["tools"][0]["function"]["description"].startswith("Загрузить")
    with pytest.raises(ValueError):
        FlashSettings(prompt_language="de")


def test_english_system_prompt_states_the_procedure(server, data_dir, stage1):
    system, _ = turn_one(server, data_dir, stage1(QUERY))
    assert "load them all in ONE call to get_topics_content" in system
    assert '{"topic_ids":[{"id":"Topic:42","reason":"…"}],"people_ids":[{"id":"Person:3","reason":"…"}]' in system
    assert "at most 5 topics, 10 people" in system and "Use only ids that appear in the candidate lists." in system


@pytest.mark.parametrize("chars, label", [(5, "~5 chars"), (467, "~470 chars"), (1534, "~1.5K chars"),
                                          (16_200, "~16K chars")])
def test_size_label(chars, label):
    assert size_label(chars) == label


def test_store_topic_source_reads_the_store(data_dir):
    target = topic_of(data_dir, "Hangar lease for the Zeppelin")
    opened = []

    def factory():
        opened.append(connect(db_path(data_dir)))
        return opened[-1]

    source = store_topic_source(factory)
    found = source([987654, target, target])
    assert [c.id for c in found] == [target] and isinstance(found[0], TopicContent)
    topic = found[0]
    assert topic.date == "2025-09-01" and topic.messages == 4 and topic.chars > 200
    assert topic.log.splitlines()[1] == ("[Alex Morozov (2025-09-01 10:01:00)]: Hangar lease for the Zeppelin went up "
                                         "12 percent, I will ask the landlord for a discount")
    assert source([]) == [] and len(opened) == 1
    with pytest.raises(Exception):  # noqa: B017 (closed: each call owns its connection)
        opened[0].execute("SELECT 1")


# -- contextualized query ---------------------------------------------------------------------
RECENT = "Kim: the hangar people called again about the Zeppelin\nme: ugh, that lease"


def test_contextualized_query_is_one_short_call_first(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, answer("Zeppelin hangar lease increase and discount"), load(ids[:2]),
                  answer({"topic_ids": [ids[0]]}))
    result = run(make_reranker(server, data_dir, contextualize_query=True, recent=RECENT), "what did he say?",
                 candidates)
    sent = bodies(server)
    assert len(sent) == 3 and "tools" not in sent[0] and "response_format" not in sent[0]
    assert "Do not guess" in sent[0]["messages"][0]["content"]
    assert "<current_messages>\nKim: the hangar people" in sent[0]["messages"][1]["content"]
    user = sent[1]["messages"][1]["content"]
    assert "<contextualized_query>\nZeppelin hangar lease increase and discount\n</contextualized_query>" in user
    assert user.endswith("<user_query>\nwhat did he say?\n</user_query>")
    assert "<contextualized_query> restates" in sent[1]["messages"][0]["content"]
    context = result.trace["contextualization"]
    assert context["used"] is True and context["rewritten"] == "Zeppelin hangar lease increase and discount"
    assert result.report["contextualized_query"] == context["rewritten"]
    assert "contextualize" in result.report["timings_ms"]
    assert result.usage["prompt_tokens"] == 300
    assert_clean_trace(result, 2)


def test_contextualize_failure_keeps_the_query_silently(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, FakeResponse(body=b"<html>gateway</html>"), load(ids[:2]), answer({"topic_ids": [ids[1]]}))
    result = run(make_reranker(server, data_dir, contextualize_query=True, recent=RECENT), QUERY, candidates)
    assert result.fallback is None and [s.id for s in result.selected] == [ids[1]]
    context = result.trace["contextualization"]
    assert context["used"] is False and context["reason"].startswith("failed (LLMResponseError)")
    assert result.report["rewrite"]["rewritten"] is None and result.report["rewrite"]["original"] == QUERY
    assert "<contextualized_query>" not in bodies(server)[1]["messages"][1]["content"]


def test_contextualize_unchanged_or_without_recent_messages(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, answer(f'"{QUERY}"'), load(ids[:1]), answer({}))
    result = run(make_reranker(server, data_dir, contextualize_query=True, recent=RECENT), QUERY, candidates)
    assert result.trace["contextualization"]["reason"] == "unchanged"
    assert "<contextualized_query>" not in bodies(server)[1]["messages"][1]["content"]

    server.requests.clear()
    server.script(CHAT, load(ids[:1]), answer({}))
    result = run(make_reranker(server, data_dir, contextualize_query=True), QUERY, candidates)
    # No recent messages: no call at all, and nothing to report.
    assert len(bodies(server)) == 2 and result.trace["contextualization"] is None


def test_candidates_beyond_max_candidates_are_not_shown_or_selectable(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load(ids[:1]), answer({"topic_ids": [ids[0], ids[30]]}))
    result = run(make_reranker(server, data_dir, max_candidates=20), QUERY, candidates)
    assert [s.id for s in result.selected] == [ids[0]]
    user = bodies(server)[0]["messages"][1]["content"]
    assert user.count("[Topic:") == 20 and result.report["retrieved"] == 50


def test_unusual_candidate_fields_do_not_break_the_lines():
    from engine.rerank.flash.prompt import artifact_line, person_line, topic_line
    bare = Candidate("topic", 1, 1, 0.5, 0.5)
    assert topic_line(bare, 100) == "[Topic:1] (0.50) ? | 0 msgs, ~0 chars | "
    assert person_line(Candidate("person", 3, 1, 0.71, 0.1, "2025-11-14", None, 54, 0, "Dan"), 100) == \
        "[Person:3] (0.71) Dan | 54 msgs | last seen 2025-11-14"
    assert artifact_line(Candidate("artifact", 7, 1, 0.7, 0.1, "2025-07-25", "Work", 1, 10, "pdf: a.pdf"), 100) == \
        "[Artifact:7] (0.70) pdf: a.pdf | 2025-07-25 | chat: Work"
