"""eval-facts' parts: LoCoMo observations as gold facts (with the annotation faults tolerated),
the conversation as an export, matching by the verifier, and a judge whose stray ids are dropped
(the judge answers over real HTTP from the scripted server)."""

from __future__ import annotations

import json

from engine.evaluation.facts import CallLog, KeptFact, verifier_matches
from engine.evaluation.facts_judge import judge_matches
from engine.evaluation.facts_locomo import GoldFact, gold_of, write_export
from engine.llm import Endpoint
from tests.fake_openai import FakeOpenAI, FakeResponse, chat_reply

SAMPLE = {"sample_id": "conv-x", "conversation": {
    "speaker_a": "Alice", "speaker_b": "Bob", "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [{"speaker": "Alice", "dia_id": "D1:1", "text": "I teach yoga."},
                  {"speaker": "Bob", "dia_id": "D1:2", "text": "Look!", "blip_caption": "a photo of a dog"}],
    "session_2_date_time": "9:00 am on 9 May, 2023"},  # a date with no session: LoCoMo has those
    "observation": {"session_1_observation": {
        "Alice": [["Alice teaches yoga.", "D1:1"], ["Alice likes dogs.", "D8:6; D9:17"], ["No evidence.", ""]],
        "Bob": [["Bob has a dog.", "D1:02"]]}}}


def test_observations_become_gold_facts_with_their_turns():
    conversation = gold_of(SAMPLE)
    assert conversation.owner == "Alice"
    assert [(g.speaker, g.about_owner, g.evidence) for g in conversation.gold] == [
        ("Alice", True, ("D1:1",)), ("Alice", True, ("D8:6", "D9:17")), ("Bob", False, ("D1:2",))]


def test_the_conversation_as_an_export_owner_first_turns_30_s_apart(tmp_path):
    path = tmp_path / "x.jsonl"
    write_export([SAMPLE], path)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["role"], r["date"]) for r in rows] == [
        ("D1:1", "user", "2023-05-08T13:56:00+00:00"), ("D1:2", "other", "2023-05-08T13:56:30+00:00")]
    assert rows[1]["text"] == "Look! [shares a photo: a photo of a dog]"


def _fact(fact_id: int, subject: str, text: str) -> KeptFact:
    return KeptFact(fact_id, "conv-x", subject, text, 7, (1,))


def test_the_verifier_matches_a_fact_that_says_the_observation():
    gold = GoldFact("conv-x", "Alice", True, "Alice teaches yoga.", ("D1:1",))
    facts = [_fact(1, "Alice", "Teaches yoga"), _fact(2, "Alice", "Plays the violin"),
             _fact(3, "Bob", "Teaches yoga")]  # the same words said of someone else: the name is missing
    assert verifier_matches(gold, facts) == [1]


def test_a_judges_pairs_naming_what_it_was_not_shown_are_dropped():
    gold = [(GoldFact("conv-x", "Alice", True, "Alice teaches yoga.", ("D1:1",)), {7}),
            (GoldFact("conv-x", "Bob", False, "Bob has a dog.", ("D1:2",)), {7})]
    facts = [_fact(11, "Alice", "Teaches yoga"), _fact(12, "Bob", "Owns a dog")]
    reply = {"matches": [{"gold": 0, "fact": 11}, {"gold": 1, "fact": 99}, {"gold": 5, "fact": 12},
                         {"gold": "1", "fact": "F12"}, {"gold": 0, "fact": 11}]}
    log = CallLog()
    with FakeOpenAI() as server:
        server.script("/v1/chat/completions", FakeResponse(json=chat_reply(json.dumps(reply))))
        matches = judge_matches(Endpoint.from_preset("llamacpp", base_url=server.base_url, model="judge"), gold,
                                facts, log, timeout=30)
        prompt = server.requests_to("/v1/chat/completions")[0].body["messages"][1]["content"]
    assert matches == {0: [11], 1: [12]}
    assert "G0: (Alice) Alice teaches yoga." in prompt and "F12: (Bob) Owns a dog" in prompt
    assert log.as_dict()["calls"] == 1 and log.as_dict()["completed"] == 1
