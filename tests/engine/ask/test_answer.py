"""The answer: enum citations under a schema, [n] markers in text; citations to missing sources never survive."""

from __future__ import annotations

from engine.ask.answer import NOT_FOUND_TEXT, read_schema_answer, read_text_answer
from tests.engine.ask.conftest import CHAT, ScriptedModel, bodies, message_id, numbers_citing, run_ask, schema_of
from tests.fake_openai import FakeResponse, chat_reply

QUESTION = "когда мама записалась к терапевту?"
PLAN = {"queries": {"ru": ["запись к терапевту"], "en": ["therapist appointment"]}, "dates": "", "chats": [],
        "people": []}


def test_text_markers_become_citations_and_unknown_ones_are_dropped_and_counted():
    answer = read_text_answer("Here is what I found:\nThe visit is on 14 March at 9:30 [2]. She took the bus. [1, 9]\n"
                              "- Blood tests were ordered [3][12].\nDone [40].", 3, "en")
    assert [(c.text, c.citations) for c in answer.claims] == [
        ("The visit is on 14 March at 9:30.", [2]), ("She took the bus.", [1]),
        ("Blood tests were ordered.", [3])]
    assert answer.dropped_citations == 3 and not answer.not_found and answer.format == "text"
    assert answer.text == "The visit is on 14 March at 9:30. [2] She took the bus. [1] Blood tests were ordered. [3]"


def test_a_claim_without_a_citation_is_kept_to_be_marked_unsupported():
    answer = read_text_answer("Mom has a cat named Markiz. The visit is on 14 March [1].", 2, "en")
    assert [(c.text, c.citations) for c in answer.claims] == [("Mom has a cat named Markiz.", []),
                                                              ("The visit is on 14 March.", [1])]


def test_not_found_is_read_in_both_forms():
    assert read_text_answer("NOT_FOUND", 3, "ru").not_found
    assert read_text_answer("Not found in your chats.", 3, "en").text == NOT_FOUND_TEXT["en"]
    empty = read_schema_answer({"claims": [], "not_found": True}, 3, "ru")
    assert empty.not_found and empty.text == NOT_FOUND_TEXT["ru"] and empty.format == "schema"
    # Claims beat a stray not_found: the model said something and cited it.
    mixed = read_schema_answer({"claims": [{"text": "14 марта", "citations": [1]}], "not_found": True}, 3, "ru")
    assert not mixed.not_found and mixed.claims[0].citations == [1]


def test_schema_ids_outside_the_sources_are_dropped_where_a_server_did_not_enforce_the_enum():
    answer = read_schema_answer({"claims": [{"text": "a", "citations": [1, 4, 0, "2", True]},
                                            {"text": "b", "citations": [2, 2]}, {"text": " ", "citations": [1]}]},
                                3, "en")
    assert [(c.text, c.citations) for c in answer.claims] == [("a", [1]), ("b", [2])]
    assert answer.dropped_citations == 2 and answer.text == "a [1] b [2]"


def test_where_the_server_enforces_schemas_citations_are_an_enum_of_the_source_numbers(server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer={"claims": [{"text": "14 марта в 9:30", "citations": [1]}],
                                                         "not_found": False}))
    outcome = run_ask(QUESTION, service, data_dir, server, preset="llamacpp")

    _, schema = schema_of(bodies(server)[1])
    citations = schema["properties"]["claims"]["items"]["properties"]["citations"]
    assert citations["items"]["enum"] == list(range(1, len(outcome.sources) + 1)) and citations["minItems"] == 1
    assert outcome.answer.format == "schema" and outcome.answer.dropped_citations == 0
    prompt = bodies(server)[1]["messages"][1]["content"]
    assert all(f"[{s.number}] {s.chat} · " in prompt for s in outcome.sources)  # the model sees the numbers


def test_free_text_elsewhere_with_hallucinated_markers_dropped_and_counted(server, service, data_dir):
    def reply(request):
        cited = [n for n in range(1, 30) if f"[{n}] " in request.body["messages"][1]["content"]
                 and "записалась к терапевту" in request.body["messages"][1]["content"].split(f"[{n}] ", 1)[1]
                 .split("\n\n", 1)[0]][0]
        return f"Мама записалась к терапевту на 14 марта на 9:30 [{cited}][57]. У неё есть кот [99]."
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=reply))
    outcome = run_ask(QUESTION, service, data_dir, server, preset="openrouter")

    answer_request = bodies(server)[1]
    assert "response_format" not in answer_request and "tools" not in answer_request
    assert answer_request["max_tokens"] == 4096  # a cloud bound
    assert outcome.answer.format == "text" and outcome.answer.dropped_citations == 2
    first, second = outcome.answer.claims
    assert first.citations == numbers_citing(outcome, message_id(data_dir, "записалась к терапевту"))
    assert first.supported is True
    assert second.citations == [] and second.supported is False and second.note == "cites no source"
    assert "[57]" not in outcome.answer.text and "[99]" not in outcome.answer.text
    assert outcome.answer.caveat == "Не подтверждается цитируемыми сообщениями: «У неё есть кот»."
    assert not outcome.refined  # one of two supported is not under half


def test_a_reply_cut_at_its_bound_keeps_the_claims_it_finished(server, service, data_dir):
    """A reply cut right after a claim's citations, before its object closed: the claim is whole
    (close_cut_json finds no finished list entry to cut after), so it is the answer, and the step
    says it was salvaged."""
    cut = '{"claims": [{"text": "Mom booked the therapist for 14 March.", "citations": [1]'
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=FakeResponse(json=chat_reply(cut, finish_reason="length"))))
    outcome = run_ask(QUESTION, service, data_dir, server)

    assert outcome.fallback is None
    assert [(c.text, c.citations) for c in outcome.answer.claims] == [("Mom booked the therapist for 14 March.", [1])]
    answer_step = next(s for s in outcome.steps if s.name == "answer")
    assert answer_step.ok and answer_step.detail["call"]["salvaged_claims"] == 1
    assert answer_step.detail["finish_reason"] == "length"


def test_a_cut_reply_without_one_whole_claim_is_still_a_parse_error(server, service, data_dir):
    cut = '{"claims": [{"text": "Mom booked the thera'
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=FakeResponse(json=chat_reply(cut, finish_reason="length"))))
    outcome = run_ask(QUESTION, service, data_dir, server)
    assert outcome.fallback == "answer_parse_error" and outcome.answer is None and outcome.sources
