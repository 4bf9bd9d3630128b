"""The plan: one bounded call under a schema (per-language sub-queries, a chats enum), dates resolved here."""

from __future__ import annotations

from datetime import datetime

from engine.ask.dates import find_date_range
from tests.engine.ask.conftest import CHAT, NOW, ScriptedModel, bodies, citing, message_id, run_ask, schema_of
from tests.fake_openai import FakeResponse

FLIGHTS = "какие рейсы Дэн забронировал в Лиссабон?"
FLIGHTS_PLAN = {"queries": {"ru": ["рейсы Дэн Лиссабон"], "en": ["Dan booked flights to Lisbon"]},
                "dates": "", "chats": [], "people": []}
FLIGHT_CLAIM = ("Дэн забронировал рейсы через Стамбул: TK414 и TK1759 11 сентября", "TK414")


def topic_ids(outcome) -> list[int]:
    return [c.id for c in outcome.candidates if c.kind == "topic"]


def flight_topic(data_dir) -> int:
    from engine.store.database import connect, db_path

    connection = connect(db_path(data_dir))
    try:
        return connection.execute("SELECT topic_id FROM message WHERE id = ?",
                                  (message_id(data_dir, "TK414"),)).fetchone()[0]
    finally:
        connection.close()


def test_the_schema_asks_for_a_subquery_in_every_language_of_the_store_and_enumerates_its_chats(
        server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan=FLIGHTS_PLAN, answer=citing(FLIGHT_CLAIM)))
    outcome = run_ask(FLIGHTS, service, data_dir, server)

    plan_request = bodies(server)[0]
    assert plan_request["response_format"]["type"] == "json_object"  # llama.cpp's form of a schema
    _, schema = schema_of(plan_request)
    queries = schema["properties"]["queries"]
    assert queries["required"] == ["ru", "en"]  # the demo is mostly Russian, then English
    assert all(queries["properties"][lang]["minItems"] == 1 for lang in ("ru", "en"))
    chats = schema["properties"]["chats"]["items"]["enum"]
    assert set(chats) == {"Мама", "Backend team", "Dan Whitfield", "Flat hunting / Квартира", "Катя Лебедева",
                          "Running club Sokolniki", "Saved Messages"}
    assert plan_request["max_tokens"] == 512 and NOW.date().isoformat() in plan_request["messages"][0]["content"]
    # The English sub-query finds the English chat the Russian question alone does not reach.
    assert flight_topic(data_dir) in topic_ids(outcome)
    assert outcome.steps[1].detail["per_query"]["Dan booked flights to Lisbon"] > 0


def test_without_the_plan_the_russian_question_misses_the_english_chat(server, service, data_dir):
    outcome = run_ask(FLIGHTS, service, data_dir, None)
    assert flight_topic(data_dir) not in topic_ids(outcome)  # what the per-language sub-query is for


def test_tools_form_where_the_provider_enforces_forced_calls(server, service, data_dir):
    plan = {**FLIGHTS_PLAN, "chats": ["Dan Whitfield", "Zeppelin club"], "people": ["Dan", "Dan"]}
    server.handle(CHAT, ScriptedModel(plan=plan, answer="Дэн забронировал рейсы TK414 и TK1759 [1]."))
    outcome = run_ask(FLIGHTS, service, data_dir, server, preset="openrouter")

    first = bodies(server)[0]
    assert first["tool_choice"] == {"type": "function", "function": {"name": "search_plan"}}
    assert "response_format" not in first and first["tools"][0]["function"]["parameters"]["required"] == [
        "queries", "dates", "chats", "people"]
    assert outcome.plan.source == "model" and outcome.plan.chats == ["Dan Whitfield"]
    assert outcome.plan.people == ["Dan"]
    assert "chats the store does not have were ignored: Zeppelin club" in [str(n) for n in outcome.plan.notes]
    assert outcome.plan.as_dict()["notes"] == ["chats the store does not have were ignored: Zeppelin club"]


def test_relative_dates_from_the_model_are_resolved_against_today(server, service, data_dir):
    question = "что мама писала в прошлом месяце?"
    plan = {**FLIGHTS_PLAN, "dates": "в прошлом месяце"}
    server.handle(CHAT, ScriptedModel(plan=plan, answer={"claims": [], "not_found": True}))
    outcome = run_ask(question, service, data_dir, server)

    expected = find_date_range("в прошлом месяце", NOW)
    found = outcome.plan.date_range
    assert (found.since, found.until, found.source) == (expected.since, expected.until, "plan")
    assert outcome.steps[1].detail["date_boost"]["range"]["label"] == "2025-10-01 … 2025-10-31"


def test_iso_dates_from_the_model_are_whole_days(server, service, data_dir):
    plan = {**FLIGHTS_PLAN, "dates": "2025-05-01..2025-05-31"}
    server.handle(CHAT, ScriptedModel(plan=plan, answer={"claims": [], "not_found": True}))
    outcome = run_ask("что было в мае 2025?", service, data_dir, server)

    found = outcome.plan.date_range
    assert found.since == datetime(2025, 5, 1, tzinfo=NOW.tzinfo).timestamp()
    assert found.until == datetime(2025, 6, 1, tzinfo=NOW.tzinfo).timestamp()


def test_dates_the_question_does_not_ask_about_are_ignored(server, service, data_dir):
    plan = {**FLIGHTS_PLAN, "dates": "2023-01-01..2023-12-31"}
    server.handle(CHAT, ScriptedModel(plan=plan, answer=citing(FLIGHT_CLAIM)))
    outcome = run_ask(FLIGHTS, service, data_dir, server)

    assert outcome.plan.date_range is None
    assert "the plan's dates (2023-01-01..2023-12-31) were ignored: the question names no time" in \
        [str(n) for n in outcome.plan.notes]
    assert "date_boost" not in outcome.steps[1].detail


def test_a_plan_server_error_falls_back_to_the_offline_plan_with_its_dates(server, service, data_dir):
    broken = FakeResponse(status=500, json={"error": {"message": "model crashed"}})
    server.handle(CHAT, ScriptedModel(plan=broken, answer={"claims": [], "not_found": True}))
    question = "что мама писала в мае?"
    outcome = run_ask(question, service, data_dir, server)

    assert outcome.plan.source == "fallback" and outcome.plan.fallback == "llm_error"
    assert outcome.plan.subqueries == [question] and outcome.plan.date_range.source == "parser"
    assert "model crashed" in outcome.steps[0].detail["error"]
    assert outcome.fallback is None and outcome.answer.not_found


def test_subqueries_are_deduplicated_and_capped(server, service, data_dir):
    plan = {"queries": {"ru": [FLIGHTS, "  рейсы   Лиссабон ", "рейсы лиссабон", "a", "b", "c"],
                        "en": ["Lisbon flights", "TK414", "Istanbul"]}, "dates": "", "chats": [], "people": []}
    server.handle(CHAT, ScriptedModel(plan=plan, answer={"claims": [], "not_found": True}))
    outcome = run_ask(FLIGHTS, service, data_dir, server, preset="openrouter")  # nothing enforces maxItems there

    assert outcome.plan.subqueries == [FLIGHTS, "рейсы Лиссабон", "a", "b", "c", "Lisbon flights"]
    assert "2 sub-queries over the limit were left out" in [str(n) for n in outcome.plan.notes]
