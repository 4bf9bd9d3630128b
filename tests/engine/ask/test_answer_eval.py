"""The answers' evaluation: fixed outcomes (a stand-in for the flow, the input) scored against a
real store's evidence, judged by a scripted OpenAI-compatible server over HTTP."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

import resources
from bench.locomo_convert import convert
from engine.api import Flashback
from engine.ask.answer_data import AnswerDataError, load_questions
from engine.ask.answer_eval import AnswerEvalCancelled, evaluate_answers, token_f1
from engine.ask.answer_judge import JUDGE_PROMPT, Judge, read_verdict
from engine.ask.types import Answer, AskCancelled, AskOutcome, Claim, Plan, Source
from engine.errors import CancelToken, EngineError
from engine.evaluation.qrels import resolve_messages
from engine.llm import ChatClient, Endpoint
from engine.store.database import connect, db_path
from tests.fake_openai import FakeOpenAI, FakeResponse, chat_reply

CHAT = "/v1/chat/completions"
SAMPLE = {
    "sample_id": "conv-t",
    "conversation": {
        "speaker_a": "Jon", "speaker_b": "Gina",
        "session_1_date_time": "4:04 pm on 20 January, 2023",
        "session_1": [{"speaker": "Jon", "dia_id": "D1:1", "text": "Hey Gina, lost my job at the bank yesterday."},
                      {"speaker": "Gina", "dia_id": "D1:2", "text": "Oh no! I was in Paris last week, by the way."},
                      {"speaker": "Jon", "dia_id": "D1:3", "text": "Paris! Lucky you."},
                      {"speaker": "Gina", "dia_id": "D1:4", "text": "Dancing is how I destress."},
                      {"speaker": "Jon", "dia_id": "D1:5", "text": "Same here, I dance every evening."}],
        "session_2_date_time": "2:32 pm on 29 January, 2023",
        "session_2": [{"speaker": "Gina", "dia_id": "D2:1", "text": "I won a trophy at the dance contest!"}],
        "session_3_date_time": "1:00 pm on 1 March, 2023",  # a date without turns: not a session
    },
    "qa": [
        {"question": "Where was Gina last week?", "answer": "Paris", "evidence": ["D1:2"], "category": 4},
        {"question": "What did Gina win?", "answer": "a trophy", "evidence": ["D2:01"], "category": 1},
        {"question": "How do they destress?", "answer": "dancing", "evidence": ["D1:4; D1:5"], "category": 3},
        {"question": "What did Jon win?", "adversarial_answer": "a trophy", "evidence": ["D2:1"], "category": 5},
        {"question": "Broken evidence", "answer": "x", "evidence": ["D"], "category": 2},
    ],
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("answers")
    qa = root / "locomo.json"
    qa.write_text(json.dumps([SAMPLE]), encoding="utf-8")
    convert(qa, root / "export.jsonl", root / "qrels.json")
    service = Flashback(root / "data")
    service.imports.import_path(root / "export.jsonl")
    connection = connect(db_path(service.data_dir))
    try:
        ids = {m: i for (_, m), i in resolve_messages(connection, [("conv-t", f"D1:{n}") for n in range(1, 6)]
                                                      + [("conv-t", "D2:1")]).items()}
    finally:
        connection.close()
    return qa, service.data_dir, ids


def _outcome(question: str, answer: Answer | None, sources: list[list[int]], usage: dict | None = None) -> AskOutcome:
    plan = Plan([question], None, [], [], "fallback", "no_model")
    made = [Source(n, 1, "conv-t", ids, 0.0, 0.0, ["Gina"], "…", 10) for n, ids in enumerate(sources, 1)]
    return AskOutcome(question, plan, sources=made, answer=answer,
                      usage=usage or {"prompt_tokens": 500, "completion_tokens": 40, "cost": 0.001})


def _judge_handler(request):
    """CORRECT when the graded answer holds the gold answer, WRONG otherwise; prose for 'dancing'."""
    prompt = request.body["messages"][1]["content"]
    gold = prompt.split("Gold answer: ")[1].split("\n")[0]
    answer = prompt.split("Answer to grade: ")[1].split("\n")[0]
    if gold == "dancing":
        return FakeResponse(json=chat_reply("I would say this is WRONG, it does not answer."))
    verdict = "CORRECT" if gold.lower() in answer.lower() else "WRONG"
    return FakeResponse(json=chat_reply(json.dumps({"verdict": verdict, "reason": "compared"}),
                                        usage={"prompt_tokens": 90, "completion_tokens": 12, "total_tokens": 102}))


def _connector(data_dir: Path):
    return lambda: connect(db_path(data_dir))


def test_the_locomo_file_reads_as_judged_questions_asked_after_their_conversation(store):
    qa, _, _ = store
    items = load_questions(qa)
    assert [i.id for i in items] == ["conv-t-q1", "conv-t-q2", "conv-t-q3"]  # category 5 and "D" skipped
    assert items[1].evidence == (("conv-t", "D2:1"),) and items[2].evidence == (("conv-t", "D1:4"), ("conv-t", "D1:5"))
    assert items[0].now == datetime(2023, 1, 30, 14, 32, tzinfo=UTC)  # the last session with turns, a day later
    assert items[0].category == "single-hop" and load_questions(qa, limit=2)[-1].id == "conv-t-q2"


def test_the_questions_format_keeps_its_own_now(tmp_path):
    path = tmp_path / "q.json"
    path.write_text(json.dumps({"questions": [{"id": "a", "question": "что было вчера?", "answer": "ничего",
                                               "now": "2025-11-15T12:00:00+03:00", "lang": "ru",
                                               "evidence": [{"chat": "Мама", "message": "48861"}]}]}))
    [item] = load_questions(path)
    assert item.now.utcoffset().total_seconds() == 3 * 3600 and item.evidence == (("Мама", "48861"),)
    assert item.category == "ru"
    path.write_text('{"queries": []}')
    with pytest.raises(AnswerDataError, match="not a QA file"):
        load_questions(path)


def test_figures_from_fixed_outcomes_with_a_scripted_judge(store):
    qa, data_dir, ids = store
    items = load_questions(qa)
    outcomes = {
        # Cites a source of two messages, one of them the evidence; verified.
        "conv-t-q1": _outcome(items[0].question, Answer("Gina was in Paris [1].",
                              [Claim("Gina was in Paris", [1], supported=True)]), [[ids["D1:2"], ids["D1:3"]]]),
        # Cites the evidence and an unrelated source; the claim failed verification; a citation to
        # a source that does not exist is not counted.
        "conv-t-q2": _outcome(items[1].question, Answer("She won a medal [1][2].",
                              [Claim("She won a medal", [1, 2, 7], supported=False)]),
                              [[ids["D2:1"]], [ids["D1:1"]]]),
        # Not found is a valid answer; the evidence was not among the sources.
        "conv-t-q3": _outcome(items[2].question, Answer("Not found in your chats.", [], not_found=True),
                              [[ids["D1:1"]]], usage={"prompt_tokens": 300, "completion_tokens": 10, "cost": None}),
    }
    progress = []

    async def ask(item):
        await asyncio.sleep(0.01)
        return outcomes[item.id]

    async def run(server):
        async with ChatClient(Endpoint(base_url=server.base_url, model="judge-model")) as client:
            return await evaluate_answers(items, ask, _connector(data_dir), judge=Judge(client), source=str(qa),
                                          settings={"verify": "offline"}, model="answer-model",
                                          on_progress=lambda done, total, q: progress.append((done, total, q.id)))

    with FakeOpenAI() as server:
        server.handle(CHAT, _judge_handler)
        result = asyncio.run(run(server))
        judge_requests = server.requests_to(CHAT)
    figures = result.as_dict()
    metrics = figures["metrics"]
    assert [q["correct"] for q in figures["questions"]] == [True, False, False]  # the prose verdict read too
    assert metrics["accuracy"] == round(1 / 3, 4) and metrics["judged"] == 3
    assert metrics["citation_precision"] == 0.5  # 2 of the 4 cited messages are evidence
    assert metrics["source_precision"] == round(2 / 3, 4)  # 2 of the 3 cited sources hold evidence
    assert metrics["citation_coverage"] == 1.0 and metrics["fully_supported"] == 0.5  # of the 2 answered
    assert metrics["evidence_in_sources"] == round(2 / 3, 4) and metrics["not_found"] == 1
    assert metrics["evidence_missing"] == 0
    assert metrics["usage"] == {"prompt_tokens": 1300, "completion_tokens": 90, "cost": 0.002}
    assert metrics["judge_usage"]["prompt_tokens"] == 180 + 100  # the prose reply has the server's default usage
    assert metrics["latency_ms_p50"] >= 10 and metrics["latency_ms_p95"] >= metrics["latency_ms_p50"]
    assert figures["questions"][1]["cited_sources"] == [1, 2]
    # LoCoMo's token F1 needs no judge: "Gina was in Paris" against "Paris" (P 1/4, R 1); not found is 0.
    assert figures["questions"][0]["f1"] == 0.4 and figures["questions"][2]["f1"] == 0.0
    assert metrics["answer_f1"] == round(sum(q["f1"] for q in figures["questions"]) / 3, 4)
    assert progress == [(1, 3, "conv-t-q1"), (2, 3, "conv-t-q2"), (3, 3, "conv-t-q3")]
    assert figures["judge"]["model"] == "judge-model" and figures["judge"]["prompt"] == JUDGE_PROMPT
    assert figures["model"] == "answer-model" and figures["settings"] == {"verify": "offline"}
    assert figures["started_at"].endswith("+00:00") and figures["by_category"]["single-hop"]["accuracy"] == 1.0
    body = judge_requests[0].body
    assert body["model"] == "judge-model" and body["temperature"] == 0 and body["max_tokens"] == 256
    assert "Gold answer: Paris" in body["messages"][1]["content"]
    assert body["response_format"]["json_schema"]["schema"]["properties"]["verdict"]["enum"] == ["CORRECT", "WRONG"]
    json.dumps(figures)  # comparable across runs: plain JSON


def test_a_failing_ask_is_recorded_and_a_failing_judge_leaves_the_question_unjudged(store):
    qa, data_dir, ids = store
    items = load_questions(qa)

    async def ask(item):
        if item.id == "conv-t-q2":
            raise EngineError("the chat server refused")
        if item.id == "conv-t-q3":
            return _outcome(item.question, None, [[ids["D1:4"]]])  # no model: sources only
        return _outcome(item.question, Answer("Paris [1]", [Claim("Paris", [1], supported=True)]), [[ids["D1:2"]]])

    async def run(server):
        async with ChatClient(Endpoint(base_url=server.base_url, model="judge-model")) as client:
            return await evaluate_answers(items, ask, _connector(data_dir), judge=Judge(client))

    with FakeOpenAI() as server:
        server.handle(CHAT, lambda request: FakeResponse(status=401, json={"error": {"message": "bad key"}}))
        result = asyncio.run(run(server))
        asked = len(server.requests_to(CHAT))
    first, failed, unanswered = result.questions
    assert first.correct is None and "judge failed" in first.judge_reason
    assert failed.error == "the chat server refused" and failed.correct is False and failed.answer is None
    assert unanswered.answer is None and unanswered.correct is False and unanswered.evidence_in_sources
    assert asked == 1  # only the one answer went to the judge
    metrics = result.metrics()
    assert metrics["errors"] == 1 and metrics["no_answer"] == 2 and metrics["judged"] == 2
    assert metrics["accuracy"] == 0.0 and metrics["citation_precision"] == 1.0


def test_cancel_stops_between_questions_and_keeps_what_was_done(store):
    qa, data_dir, ids = store
    items = load_questions(qa)
    token = CancelToken()

    async def ask(item):
        return _outcome(item.question, Answer("Paris [1]", [Claim("Paris", [1], supported=True)]), [[ids["D1:2"]]])

    with pytest.raises(AnswerEvalCancelled) as stopped:
        asyncio.run(evaluate_answers(items, ask, _connector(data_dir),
                                     on_progress=lambda done, total, q: token.cancel(), cancel=token))
    assert [q.id for q in stopped.value.partial.questions] == ["conv-t-q1"]
    assert stopped.value.partial.as_dict()["metrics"]["citation_precision"] == 1.0

    async def cancelled_inside(item):  # the flow's own cancel (AskCancelled) ends the run the same way
        raise AskCancelled(None)

    with pytest.raises(AnswerEvalCancelled) as inside:
        asyncio.run(evaluate_answers(items, cancelled_inside, _connector(data_dir)))
    assert inside.value.partial.questions == []


def test_a_store_without_the_evidence_is_refused_before_any_question(store, tmp_path):
    qa, _, _ = store
    empty = Flashback(tmp_path / "empty")
    empty.imports.import_path(resources.demo_export())
    asked = []

    async def ask(item):
        asked.append(item)

    with pytest.raises(AnswerDataError, match="None of the evidence messages"):
        asyncio.run(evaluate_answers(load_questions(qa), ask, _connector(empty.data_dir)))
    assert asked == []


@pytest.mark.parametrize(("reply", "correct"), [
    ('{"verdict": "CORRECT", "reason": "same city"}', True),
    ('```json\n{"verdict": "wrong", "reason": "no"}\n```', False),
    ("The answer is correct.", True),
    ("Verdict: WRONG. It names another city, not CORRECT at all", False),
    ("I cannot tell.", None),
])
def test_the_verdict_is_read_leniently(reply, correct):
    assert read_verdict(reply)[0] is correct


def test_token_f1_is_squads():
    assert token_f1("The Sunday before 25 May 2023 [3]", "the sunday before 25 May 2023") == 1.0
    assert token_f1("On 7 May, 2023.", "7 May 2023") == round(2 * 0.75 * 1.0 / 1.75, 4)
    assert token_f1("2023-07-23 20:36:00 [1]", "7 May 2023") == round(2 * (1 / 6) * (1 / 3) / (1 / 6 + 1 / 3), 4)
    assert token_f1("", "Paris") == 0.0


def test_why_a_question_has_no_answer_is_kept_in_its_figures(store):
    from engine.ask.answer_eval import score_outcome
    from engine.messages import msg

    qa, _, ids = store
    item = load_questions(qa)[0]
    outcome = _outcome(item.question, None, [[ids["D1:2"]]])
    outcome.fallback = "answer_parse_error"
    outcome.notes = [msg("ask.no_answer", reason=msg("rerank.fallback.parse_error"),
                         error=msg("ask.call.not_json_cut"))]
    result = score_outcome(item, outcome, {ids["D1:2"]})
    assert result.fallback == "answer_parse_error" and result.evidence_in_sources
    assert result.notes == ["no answer (the answer could not be read): the reply is not JSON (cut off at max_tokens); "
                            "the sources found are below"]
