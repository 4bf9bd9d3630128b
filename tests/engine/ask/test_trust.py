"""Answers you can trust (issue 32): no model → quotes; mostly unsupported → said first; a failed
step is named, never "not in your chats"; claims without copied headers or repeats."""

from __future__ import annotations

from engine.ask import AskSettings
from engine.ask.answer import read_schema_answer, read_text_answer
from engine.ask.quote import quote_sources
from engine.ask.types import Source
from engine.errors import EngineError
from engine.messages import msg, render
from engine.rerank.threshold import ThresholdReranker, ThresholdSettings
from tests.engine.ask.conftest import CHAT, ScriptedModel, citing, run_ask

QUESTION = "когда мама записалась к терапевту?"
PLAN = {"queries": {"ru": ["мама запись к терапевту"], "en": ["therapist"]}, "dates": "", "chats": [], "people": []}


def test_without_a_model_ask_quotes_the_sentence_that_answers(server, service, data_dir):
    outcome = run_ask(QUESTION, service, data_dir, None)

    assert outcome.fallback == "no_model" and outcome.answer is None
    assert 1 <= len(outcome.quotes) <= 3
    first = outcome.quotes[0]
    assert "записалась к терапевту" in first.text and "14 марта" in first.text
    marked = [first.text[a:b] for a, b in first.highlights]
    assert "14 марта" in marked  # the date answers "когда"
    assert first.source in {s.number for s in outcome.sources} and first.author
    assert outcome.as_dict()["quotes"][0]["text"] == first.text
    assert outcome.steps[-1].detail["quotes"] == len(outcome.quotes)


def test_quotes_rank_the_answering_sentence_above_one_that_only_repeats_the_question():
    echo = "Когда мама записалась к терапевту? Не помню."
    answer = "Мама записалась к терапевту на 14 марта на 9:30."
    sources = [Source(1, 1, "Мама", [10], 0.0, 0.0, ["Лена"], "…", 10, [echo], ["Лена"], [1.7e9]),
               Source(2, 2, "Мама", [11], 0.0, 0.0, ["Мама"], "…", 10, [answer], ["Мама"], [1.7e9])]
    quotes = quote_sources(QUESTION, sources)
    assert quotes[0].text == answer and quotes[0].source == 2 and quotes[0].message_id == 11


def test_a_mostly_unsupported_answer_says_so_in_its_first_line(server, service, data_dir):
    invented = ("Мама записалась к стоматологу на 3 апреля в 15:00", "записалась к терапевту")
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=citing(invented)))
    outcome = run_ask(QUESTION, service, data_dir, server, settings=AskSettings(refine=False))

    answer = outcome.answer
    assert answer.claims[0].supported is False
    first_line = answer.text.splitlines()[0]
    assert answer.refusal == first_line and "1 из 1" in first_line
    assert answer.as_dict()["refusal"] == first_line


class BrokenReranker(ThresholdReranker):
    """A reranker whose server failed: the selection step fails, nothing is read."""

    async def arerank(self, query, candidates):
        raise EngineError(msg("llm.error", error="rerank crashed"))


def test_a_failed_selection_is_named_not_called_nothing_in_your_chats(server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=citing(("x y z", "записалась"))))
    outcome = run_ask("что-то, чего нет нигде в чатах zzqx?", service, data_dir, server,
                      reranker=BrokenReranker(ThresholdSettings()), settings=AskSettings(refine=False))

    rerank = next(s for s in outcome.steps if s.name == "rerank")
    assert rerank.fallback == "rerank_error"
    if outcome.sources:  # the fallback policy kept stage 1's best topics: they are read as usual
        return
    assert outcome.answer is None and outcome.fallback == "rerank_rerank_error"
    said = [render(n, "en") for n in outcome.notes if not isinstance(n, str)]
    assert any("step failed" in s and "does not mean your chats lack it" in s for s in said), said


def test_claims_lose_copied_headers_and_repeats():
    text = ("Deborah (2023-01-23 16:13:00)]: Deborah went to the yoga class [1]. "
            "Deborah went to the yoga class [2]. She liked it. She liked it [1].")
    answer = read_text_answer(text, 2, "en")
    assert [c.text for c in answer.claims] == ["Deborah went to the yoga class.", "She liked it."]
    assert answer.claims[0].citations == [1, 2]
    schema = read_schema_answer({"claims": [
        {"text": "[1] Chat · Deborah · 2023-01-23 16:13 UTC Deborah likes yoga", "citations": [1]},
        {"text": "Deborah likes yoga", "citations": [2]}]}, 2, "en")
    assert [(c.text, c.citations) for c in schema.claims] == [("Deborah likes yoga", [1, 2])]


def test_a_numbered_header_copy_without_brackets_or_utc_is_not_a_claim():
    """SmolLM2 on llama-server, seen from `flashback ask`: it numbered its claims and copied the
    source's header without its brackets or "UTC"; the header was shown (and checked) as a claim."""
    schema = read_schema_answer({"claims": [
        {"text": "1. Deploying the staging cluster · User, ChatGPT · 2025-08-24 01:46:41 (2025-08-24 01:46:42)",
         "citations": [1]},
        {"text": "2. Running `helm rollback staging` fails", "citations": [1]},
        {"text": "3) Restore from the last known-good chart", "citations": [1]}]}, 1, "en")
    assert [c.text for c in schema.claims] == ["Running `helm rollback staging` fails",
                                               "Restore from the last known-good chart"]
    kept = read_schema_answer({"claims": [{"text": "2. 5 kg of flour · not a header", "citations": [1]},
                                          {"text": "The meeting moved to 10:30 · Tuesday", "citations": [1]}]}, 1, "en")
    assert [c.text for c in kept.claims] == ["2. 5 kg of flour · not a header", "The meeting moved to 10:30 · Tuesday"]
