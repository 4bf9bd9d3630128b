"""Issue 22: what the rerankers say about their choices (threshold and keep-all reasons, Flash's
fallbacks, notes, protocol and rewrite) carries codes the window says in Russian; the English
text the CLI, the traces and the tests read is unchanged, and a recorded run keeps the codes."""

from __future__ import annotations

import json

import pytest

from engine.rerank.base import Candidate, KeepAllReranker, Selection, fallback_message
from engine.rerank.flash import FlashSettings
from engine.rerank.flash.errors import FlashSettingsError
from engine.rerank.threshold import ThresholdReranker, ThresholdSettings
from tests.engine.rerank.conftest import CHAT, answer, load, make_reranker, run, topic_ids
from tests.engine.rerank.test_rewrite import rewrite
from tests.engine.russian_text import assert_russian
from tests.fake_openai import FakeResponse, chat_reply

QUERY = "Zeppelin budget and the hangar lease"


def _candidates(*scores: float) -> list[Candidate]:
    return [Candidate("topic", 10 + rank, rank, score, score) for rank, score in enumerate(scores, 1)]


def test_threshold_and_vector_reasons_say_the_same_numbers_in_russian():
    result = ThresholdReranker(ThresholdSettings(0.5, 0.15, 3)).rerank_now("q", _candidates(0.6612, 0.57))
    first, second = result.selected
    assert (first.reason, second.reason) == ("score 0.66 ≥ 0.50",
                                             "score 0.57 ≥ 0.50, 0.09 below the previous (gap limit 0.15)")
    assert (first.reason_in("ru"), second.reason_in("ru")) == (
        "оценка 0.66 ≥ 0.50", "оценка 0.57 ≥ 0.50, на 0.09 ниже предыдущей (предел разрыва 0.15)")
    stored = Selection.from_dict(json.loads(json.dumps(second.as_dict())))  # a recorded run, read back
    assert stored == second and stored.reason_in("ru") == second.reason_in("ru")
    kept = KeepAllReranker().rerank_now("q", _candidates(0.61))
    assert kept.selected[0].reason == "vector rank 1, score 0.61"
    assert kept.selected[0].reason_in("ru") == "ранг по векторам 1, оценка 0.61"
    assert Selection("topic", 1, "the model's words").reason_in("ru") == "the model's words"


def test_a_flash_fallback_is_said_in_russian(server, data_dir, stage1):
    candidates = stage1(QUERY)
    asked = topic_ids(candidates)[:6]
    server.script(CHAT, load(asked), answer('{"topic_ids": [{"id": "Topic:1", "reason": "unterminated'))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback == "parse_error"
    assert all(s.reason.startswith("fallback (the answer could not be read): requested by the model, vector rank ")
               for s in result.selected)
    for selection in result.selected:
        assert selection.reason_in("ru").startswith("откат (ответ не удалось разобрать): модель просила эту тему, ")
    error = result.message("error")
    assert error is not None and str(error) == result.report["error"]
    assert_russian(error.render("ru"), "JSON")
    assert result.report["protocol_note"] == str(result.message("protocol_note"))
    assert_russian(result.message("protocol_note").render("ru"), "OpenRouter")
    assert_russian(fallback_message(result.fallback).render("ru"))
    json.dumps(result.report)  # the codes ride along in the report, JSON as the run history stores it


def test_a_flash_note_and_a_timeout_are_said_in_russian(server, data_dir, stage1):
    candidates = stage1(QUERY)
    server.script(CHAT, load(topic_ids(candidates)[:6]), answer({"topic_ids": []}))
    empty = run(make_reranker(server, data_dir), QUERY, candidates)
    assert empty.fallback == "model_empty" and empty.report["note"] == "the model found nothing relevant"
    assert empty.message("note").render("ru") == "модель не нашла ничего подходящего"
    server.script(CHAT, FakeResponse(json=chat_reply("late"), delay=30))
    slow = run(make_reranker(server, data_dir, total_timeout=0.5), QUERY, candidates)
    assert slow.fallback in ("timeout", "turn_timeout")
    assert_russian(fallback_message(slow.fallback).render("ru"))
    assert all(s.reason_in("ru").startswith("откат (") for s in slow.selected)


def test_a_rewrite_that_was_not_used_is_said_in_russian(server):
    done = rewrite(server, recent="  ")
    assert done.reason == "no recent messages" and done.reason_message.render("ru") == "нет недавних сообщений"
    server.script(CHAT, FakeResponse(json=chat_reply("what did he say", finish_reason="length")))
    cut = rewrite(server)
    assert cut.reason == "cut off at the reply bound"
    assert_russian(cut.reason_message.render("ru"))
    assert cut.as_dict()["reason_message"] == {"code": "rerank.rewrite.cut_off", "params": {}}


def test_bad_flash_settings_are_said_in_russian():
    with pytest.raises(FlashSettingsError) as caught:
        FlashSettings(turn1_share=2)
    assert str(caught.value) == "turn1_share is a share of the total time: above 0, at most 1"
    assert_russian(caught.value.render("ru"), "turn1_share")
