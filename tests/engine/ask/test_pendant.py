"""The pendant case (issue 32), scripted: a claim naming a country its cited messages never say
is not supported, however many of the question's words it repeats."""

from __future__ import annotations

import asyncio

import pytest

from engine.ask import AskSettings, ask
from engine.llm import ChatClient
from tests.engine.ask.conftest import CHAT, NOW, ScriptedModel, citing, endpoint, make_deps
from tests.engine.ask.pendant import QUESTION, pendant_store

PLAN = {"queries": {"en": ["pendant mother bought country"]}, "dates": "", "chats": [], "people": []}


@pytest.fixture(scope="module")
def pendant(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pendant")
    return pendant_store(folder), folder / "data"


@pytest.mark.parametrize(("country", "supported"), [("Japan", False), ("France", True)])
def test_a_country_the_messages_never_say_is_not_supported(server, pendant, country, supported):
    service, data_dir = pendant
    answer = citing((f"Jolene's mother bought her the pendant in {country}", "pendant"))
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=answer))

    async def go():
        async with ChatClient(endpoint(server)) as client:
            return await ask(QUESTION, make_deps(service, data_dir, client), AskSettings(refine=False), now=NOW)
    outcome = asyncio.run(go())

    claim = outcome.answer.claims[0]
    cited = outcome.sources[claim.citations[0] - 1].text
    assert "France" in cited and "pendant" in cited
    assert claim.supported is supported, claim
    if not supported:
        assert "Japan" in claim.note and outcome.answer.text.startswith(outcome.answer.refusal)
