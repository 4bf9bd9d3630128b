"""The answer streams (`on_answer_text`): the window shows it growing as the model writes,
in each form the answer takes (JSON claims under a grammar, a forced tool's arguments, free
text with [n] markers), and the final text, read from the whole reply, comes last."""

from __future__ import annotations

from engine.ask import AskSettings
from engine.ask.answer import streamed_text
from engine.llm import StreamDelta
from tests.engine.ask.conftest import CHAT, ScriptedModel, bodies, citing, run_ask
from tests.engine.ask.test_flow import PLAN, QUESTION, RIGHT
from tests.fake_openai import FakeResponse, chat_reply

SECOND = ("Анализы она сдала накануне", "анализ")


def answer_request(server) -> dict:
    return next(b for b in bodies(server) if "claims" in str(b.get("response_format") or b.get("tools") or "")
                or not (b.get("response_format") or b.get("tools")))


def assert_grew_to(texts: list[str], final: str) -> None:
    assert len(texts) > 3 and texts[-1] == final
    assert all(a != b for a, b in zip(texts, texts[1:], strict=False))  # told only when it changed


def test_schema_claims_stream_from_a_grammar_server(server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=citing(RIGHT, SECOND)))
    texts: list[str] = []
    outcome = run_ask(QUESTION, service, data_dir, server, on_answer_text=texts.append)

    assert outcome.fallback is None and len(outcome.answer.claims) == 2
    assert_grew_to(texts, outcome.answer.text)
    # The first claim appeared before the second began, its marker once its number was whole.
    first = outcome.answer.claims[0]
    assert any(t == f"{RIGHT[0]} [{first.citations[0]}]" for t in texts)
    assert any(t.startswith(RIGHT[0][:10]) and RIGHT[0] not in t for t in texts)
    assert answer_request(server)["stream"] is True


def test_a_forced_tools_arguments_stream(server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=citing(RIGHT)))
    texts: list[str] = []
    outcome = run_ask(QUESTION, service, data_dir, server, preset="openrouter", on_answer_text=texts.append,
                      settings=AskSettings(answer_format="schema"))
    assert outcome.fallback is None and outcome.steps[4].detail["protocol"] == "tools"
    assert_grew_to(texts, outcome.answer.text)


def test_free_text_streams_with_its_markers(server, service, data_dir):
    def text_answer(request):
        return FakeResponse(json=chat_reply(f"{RIGHT[0]} [1]. {SECOND[0]} [2]."), piece_chars=4)
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=text_answer))
    texts: list[str] = []
    outcome = run_ask(QUESTION, service, data_dir, server, preset="openrouter", on_answer_text=texts.append)
    assert outcome.answer.format == "text"
    assert_grew_to(texts, outcome.answer.text)
    assert any("[1]" in t and SECOND[0] not in t for t in texts)


def test_the_not_found_mark_is_not_shown_while_it_arrives():
    assert streamed_text(StreamDelta("NOT_FO", ""), "text") == ""
    assert streamed_text(StreamDelta("No such thing", ""), "text") == "No such thing"


def test_a_reply_cut_inside_an_escape_shows_what_is_whole():
    reply = '{"claims": [{"text": "Она сказала \\"завтра\\" и \\u041'
    assert streamed_text(StreamDelta(reply, ""), "schema") == 'Она сказала "завтра" и'


def test_without_a_listener_nothing_is_streamed(server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=citing(RIGHT)))
    outcome = run_ask(QUESTION, service, data_dir, server)
    assert outcome.fallback is None and all("stream" not in b for b in bodies(server))
