"""The whole flow on the demo store against the scripted server: every step, each fallback, the trace."""

from __future__ import annotations

import json
import time

from engine.ask import NO_MODEL_NOTE, RERANKER_NAME, AskSettings
from engine.ask.answer import NOT_FOUND_TEXT
from engine.store.database import connect, db_path
from engine.traces import get_run
from tests.engine.ask.conftest import (
    CHAT,
    KEY,
    ScriptedModel,
    bodies,
    citing,
    message_id,
    numbers_citing,
    run_ask,
)
from tests.fake_openai import FakeResponse

QUESTION = "когда мама записалась к терапевту?"
PLAN = {"queries": {"ru": ["мама запись к терапевту"], "en": ["mom appointment with the therapist"]},
        "dates": "", "chats": [], "people": []}
RIGHT = ("Мама записалась к терапевту на 14 марта на 9:30", "записалась к терапевту")


def stored_run(data_dir, run_id: int) -> dict:
    connection = connect(db_path(data_dir))
    try:
        return get_run(connection, run_id)
    finally:
        connection.close()


def test_every_step_runs_is_bounded_and_recorded(server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=citing(RIGHT)))
    steps, texts = [], []
    outcome = run_ask(QUESTION, service, data_dir, server, on_step=steps.append, on_answer_text=texts.append)

    assert [s.name for s in outcome.steps] == ["plan", "search", "rerank", "compose", "answer", "verify"]
    assert steps == outcome.steps and all(s.ok for s in outcome.steps)
    assert outcome.fallback is None and not outcome.refined and outcome.notes == []
    assert outcome.plan.source == "model"
    assert outcome.plan.subqueries == [QUESTION, *PLAN["queries"]["ru"], *PLAN["queries"]["en"]]
    assert outcome.steps[1].detail["queries"] == outcome.plan.subqueries
    # The answer cites the source that holds the message, and the offline check agrees.
    claim = outcome.answer.claims[0]
    assert claim.citations == numbers_citing(outcome, message_id(data_dir, "записалась к терапевту"))
    assert claim.supported is True and claim.method == "offline" and claim.support >= 0.5
    # The answer streamed: its text grew as the model wrote it, then the final text came last.
    assert outcome.answer.text == f"{RIGHT[0]} [{claim.citations[0]}]" and texts[-1] == outcome.answer.text
    assert len(texts) > 3 and texts[0] and RIGHT[0].startswith(texts[0])
    # Every request is bounded (llama.cpp: local budgets) and the sources fit the compose budget.
    sent = bodies(server)
    assert len(sent) == 2 and [b["max_tokens"] for b in sent] == [512, 768]
    assert sum(s.tokens for s in outcome.sources) <= 2500  # the local compose budget
    assert outcome.steps[3].detail["budget_tokens"] == 2500
    assert outcome.usage == {"prompt_tokens": 200, "completion_tokens": 40, "cost": None}
    timings = outcome.timings_ms
    assert timings["total"] >= timings["model"] > 0 and timings["overhead"] == round(timings["total"] -
                                                                                     timings["model"], 2)
    # The run is in the history as an "ask" run, readable back, without the key.
    run = stored_run(data_dir, outcome.run_id)
    assert run["reranker"] == RERANKER_NAME and run["query"] == QUESTION and run["fallback"] is None
    assert run["model"] == "test/ask" and run["prompt_tokens"] == 200
    assert [s["name"] for s in run["trace"]["steps"]] == [s.name for s in outcome.steps]
    assert run["report"]["answer"]["text"] == outcome.answer.text
    assert KEY not in json.dumps(run, ensure_ascii=False) and KEY not in json.dumps(outcome.as_dict())


def test_no_model_gives_the_sources_and_says_what_to_set(server, service, data_dir):
    outcome = run_ask("что мама писала в марте про анализы?", service, data_dir, None)

    assert outcome.fallback == "no_model" and outcome.answer is None and NO_MODEL_NOTE in outcome.notes
    assert outcome.plan.fallback == "no_model" and outcome.plan.subqueries == ["что мама писала в марте про анализы?"]
    assert outcome.plan.date_range is not None and outcome.plan.date_range.source == "parser"  # the offline parser
    assert outcome.sources and outcome.sources[0].number == 1
    assert [s.name for s in outcome.steps] == ["plan", "search", "rerank", "compose", "answer"]
    assert outcome.steps[-1].fallback == "no_model" and server.requests == []
    assert stored_run(data_dir, outcome.run_id)["fallback"] == "no_model"


def test_a_failed_plan_falls_back_to_the_question_and_the_flow_goes_on(server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan="Sure! Search for the appointment.", answer=citing(RIGHT)))
    outcome = run_ask(QUESTION, service, data_dir, server)

    assert outcome.plan.source == "fallback" and outcome.plan.fallback == "parse_error"
    assert outcome.plan.subqueries == [QUESTION]
    assert outcome.steps[0].fallback == "parse_error" and not outcome.steps[0].ok
    assert outcome.fallback is None and outcome.answer.claims[0].supported is True


def test_answer_server_error_falls_back_to_the_sources_with_the_reason(server, service, data_dir):
    broken = FakeResponse(status=500, json={"error": {"message": f"upstream failed for key {KEY}"}})
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=broken))
    outcome = run_ask(QUESTION, service, data_dir, server)

    assert outcome.fallback == "answer_llm_error" and outcome.answer is None and outcome.sources
    assert any(str(note).startswith("no answer (the call to the model's server failed)") for note in outcome.notes)
    # issue 22: a code, said in Russian with the reason and the server's own error
    said = [note.render("ru") for note in outcome.notes if note.code == "ask.no_answer"]
    assert said and said[0].startswith("ответа нет (ошибка при обращении к серверу модели)") and KEY not in said[0]
    assert outcome.steps[-1].name == "answer" and outcome.steps[-1].fallback == "llm_error"
    dumped = json.dumps(outcome.as_dict(), ensure_ascii=False)
    assert "upstream failed for key" in dumped and KEY not in dumped  # the reason kept, the key scrubbed
    assert KEY not in json.dumps(stored_run(data_dir, outcome.run_id), ensure_ascii=False)


def test_each_step_keeps_to_its_share_of_the_time_budget(server, service, data_dir):
    slow = FakeResponse(json={"choices": []}, delay=30.0)
    server.handle(CHAT, ScriptedModel(plan=slow, answer=slow))
    started = time.perf_counter()
    outcome = run_ask(QUESTION, service, data_dir, server, settings=AskSettings(total_budget_s=2.0))
    elapsed = time.perf_counter() - started

    assert outcome.plan.fallback == "timeout" and outcome.fallback == "answer_timeout"
    assert outcome.sources and elapsed < 7.0  # plan 0.4 s + answer 1.0 s (5× room), not the server's 30 s


def test_not_found_is_an_answer_not_a_failure(server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer={"claims": [], "not_found": True}))
    outcome = run_ask("какой пароль от вайфая на даче?", service, data_dir, server)

    assert outcome.fallback is None and outcome.answer.not_found and outcome.answer.text == NOT_FOUND_TEXT["ru"]
    assert outcome.steps[-1].name == "verify" and outcome.steps[-1].detail["note"] == "nothing to check"
    assert not outcome.refined


def test_unsupported_claims_trigger_one_refine_round_with_hyde(server, service, data_dir):
    invented = ("Мама записалась к стоматологу на 3 апреля в 15:00", "записалась к терапевту")
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=[citing(invented), citing(RIGHT)]))
    outcome = run_ask(QUESTION, service, data_dir, server)

    names = [s.name for s in outcome.steps]
    assert names == ["plan", "search", "rerank", "compose", "answer", "verify", "refine", "answer", "verify"]
    first_verify = outcome.steps[5].detail
    assert first_verify["share"] == 0.0 and "do not say: 3 апреля, 15:00" in first_verify["claims"][0]["note"]
    refine = outcome.steps[6].detail
    assert refine["hyde"] == invented[0] and refine["candidates"] > 0
    assert outcome.refined and outcome.answer.claims[0].text == RIGHT[0] and outcome.answer.claims[0].supported
    assert outcome.answer.caveat is None
    assert len(bodies(server)) == 3  # plan, answer, second answer: one refine round only


def test_a_failed_second_answer_leaves_the_first_saying_what_it_could_not_support(server, service, data_dir):
    invented = ("Мама записалась к стоматологу на 3 апреля в 15:00", "записалась к терапевту")
    broken = FakeResponse(status=500, json={"error": {"message": "boom"}})
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=[citing(invented), broken]))
    outcome = run_ask(QUESTION, service, data_dir, server)

    assert not outcome.refined and outcome.fallback is None
    assert "the refine round's answer failed: the first answer stands" in [str(note) for note in outcome.notes]
    assert outcome.answer.claims[0].supported is False
    assert outcome.answer.caveat.startswith("Не подтверждается") and invented[0] in outcome.answer.caveat
    assert outcome.answer.text.endswith(outcome.answer.caveat)


def test_refine_is_off_when_the_settings_say_so(server, service, data_dir):
    invented = ("Мама записалась к стоматологу на 3 апреля в 15:00", "записалась к терапевту")
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=citing(invented)))
    outcome = run_ask(QUESTION, service, data_dir, server, settings=AskSettings(refine=False))

    assert "refine" not in [s.name for s in outcome.steps] and outcome.answer.caveat
