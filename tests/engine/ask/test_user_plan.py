"""A plan the person gave (the window's edited chips, issue 27): no plan call, searched as given,
its chats and people applied on purpose; a date chip's words read back into a range."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone

from engine.ask import AskSettings, Plan, ask
from engine.ask.plan import read_dates
from engine.llm import ChatClient
from tests.engine.ask.conftest import CHAT, FAST_RETRY, NOW, ScriptedModel, bodies, citing, endpoint, kind_of, make_deps
from tests.engine.ask.test_flow import PLAN, QUESTION, RIGHT, stored_run

MOSCOW = timezone(timedelta(hours=3))


def run_ask(question, service, data_dir, server, *, plan: Plan, settings: AskSettings | None = None):
    async def go():
        if server is None:
            return await ask(question, make_deps(service, data_dir, None), settings, now=NOW, plan=plan)
        async with ChatClient(endpoint(server), retry=FAST_RETRY) as client:
            return await ask(question, make_deps(service, data_dir, client), settings, now=NOW, plan=plan)
    return asyncio.run(go())


def test_a_given_plan_is_searched_as_given_without_a_plan_call(server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=citing(RIGHT)))
    given = Plan(["  анализы   мамы ", "терапевт запись", "Терапевт  запись", ""], None, ["Мама", "No such chat"],
                 [], "model")
    outcome = run_ask(QUESTION, service, data_dir, server, plan=given)

    assert [kind_of(b) for b in bodies(server)] == ["answer"]  # the plan call is the person's, not the model's
    plan = outcome.plan
    assert plan.source == "user" and plan.fallback is None
    assert plan.subqueries == ["анализы мамы", "терапевт запись"]  # trimmed, deduplicated, blanks gone
    assert plan.chats == ["Мама"] and any("No such chat" in str(note) for note in plan.notes)
    search = outcome.steps[1]
    assert search.name == "search" and search.detail["queries"] == plan.subqueries
    # The question names no chat, yet the person's chat filters the search.
    assert search.detail["filters"].get("chats") == ["Мама"]
    assert all(source.chat == "Мама" for source in outcome.sources)
    assert outcome.answer is not None and outcome.steps[0].ok
    assert stored_run(data_dir, outcome.run_id)["report"]["plan"]["source"] == "user"


def test_a_given_plan_without_sub_queries_searches_the_question(server, service, data_dir):
    outcome = run_ask(QUESTION, service, data_dir, None, plan=Plan([" "], None, [], [], "user"),
                      settings=AskSettings(use_plan_model=False))
    assert outcome.plan.subqueries == [QUESTION] and outcome.plan.notes
    assert outcome.steps[1].detail["queries"] == [QUESTION]


def test_a_date_chip_reads_back_its_own_label_in_the_persons_zone():
    now = datetime(2025, 11, 20, 12, 0, tzinfo=MOSCOW)
    last_week = read_dates("last week", now)
    assert last_week is not None and last_week.source == "user"
    assert last_week.label() == "2025-11-10 … 2025-11-16"
    again = read_dates(last_week.label(), now)  # what the chip shows, sent back unedited or retyped
    assert (again.since, again.until) == (last_week.since, last_week.until)
    assert again.label() == last_week.label()
    day = read_dates("2025-04-12", now)
    assert day.since == datetime(2025, 4, 12, tzinfo=MOSCOW).timestamp() and day.label() == "2025-04-12"
    assert read_dates("в мае", now).label() == "2025-05-01 … 2025-05-31"
    assert read_dates("whenever", now) is None and read_dates("", datetime(2025, 1, 1, tzinfo=UTC)) is None
