"""Issue 34, per importer: odd JSON values read as text only where they are text, errors
naming the message they are in, and WhatsApp's ambiguous day/month order taken from the
chat's own order. Hand-written inputs; the command-line side is tests/test_cli_import_hardening.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import ImportFormatError
from engine.importers.chatgpt import ChatGPTImporter
from engine.importers.inputs import ExportInput
from engine.importers.jsonl import JsonlImporter
from engine.importers.records import MessageRecord
from engine.importers.rows import IdState, RowBuilder
from engine.importers.telegram import TelegramImporter
from engine.importers.whatsapp import WhatsAppImporter
from tests.engine.importers.telegram_fixtures import chat, message, write


def parsed(importer, path: Path) -> list[MessageRecord]:
    return [r for r in importer.parse(ExportInput(path, path.name), lambda done: None) if type(r) is MessageRecord]


def failure(importer, path: Path) -> ImportFormatError:
    with pytest.raises(ImportFormatError) as caught:
        parsed(importer, path)
    return caught.value


# -- Telegram: text only where it is text -------------------------------------------------------
@pytest.mark.parametrize(("text", "kept"), [
    (None, ""),
    (["a", "b"], "ab"),
    ({"obj": "text"}, ""),
    ([{"type": "bold", "text": None}, "plain"], "plain"),
    ([{"type": "bold", "text": ["a", "b"]}, {"obj": "text"}], "ab"),
    ({"type": "plain", "text": "hello"}, "hello"),
    ([1, True, {"type": "code", "text": 42}], "142"),
])
def test_odd_telegram_text_values_are_never_python_reprs(tmp_path, text, kept):
    path = write(tmp_path / "result.json", chat("Team", 7, [message(1, text)]))
    [record] = parsed(TelegramImporter(), path)
    assert record.text == kept


def test_odd_telegram_names_and_service_fields_are_never_python_reprs(tmp_path):
    service = {"id": 2, "type": "service", "date": "2023-11-14T22:13:22", "date_unixtime": "1700000002",
               "actor": {"obj": "x"}, "actor_id": "user2", "action": "invite_members", "members": [None, ["Bob"]],
               "title": {"obj": "text"}, "text": None}
    odd = message(3, "hi", sender=["Anna", "B"], forwarded_from={"obj": "text"},
                  poll={"question": None, "answers": [{"text": ["yes"]}]})
    path = write(tmp_path / "result.json", chat("Team", 7, [message(1), service, odd]))
    records = parsed(TelegramImporter(), path)
    stored = " | ".join(f"{r.author or ''} {r.text} {r.forwarded_from or ''}" for r in records)
    for repr_mark in ("None", "[", "{", "'"):
        assert repr_mark not in stored, stored
    assert records[1].text == "Someone: invite members (members: Bob)"
    assert (records[2].author, records[2].forwarded_from, records[2].text) == ("AnnaB", None, "hi\nPoll:  (yes)")


# -- errors name the message they are in ----------------------------------------------------------
def test_a_bad_byte_in_telegram_message_50_is_reported_as_message_50(tmp_path):
    path = write(tmp_path / "result.json", chat("Team", 7, [message(n, f"text {n}") for n in range(1, 80)]))
    raw = path.read_bytes()
    at = raw.index(b'"text 50"')
    path.write_bytes(raw[:at + 1] + b"\xff" + raw[at + 2:])
    problem = failure(TelegramImporter(), path)
    assert problem.where == "chat 'Team', message #50" and "UTF-8" in problem.problem


def test_damaged_json_in_telegram_message_50_is_reported_as_message_50(tmp_path):
    path = write(tmp_path / "result.json", chat("Team", 7, [message(n, f"text {n}") for n in range(1, 80)]))
    raw = path.read_bytes()
    at = raw.index(b'"text 50"')
    path.write_bytes(raw[:at] + b"text 50" + raw[at + 9:])  # the quotes gone
    assert failure(TelegramImporter(), path).where == "chat 'Team', message #50"


def test_a_bad_byte_on_jsonl_line_50_is_reported_as_line_50(tmp_path):
    rows = [json.dumps({"chat": "T", "id": str(n), "author": "A", "date": "2024-01-01T10:00:00Z", "text": f"t{n}"})
            for n in range(1, 80)]
    path = tmp_path / "chat.jsonl"
    path.write_bytes("\n".join(rows).encode().replace(b'"t50"', b'"t\xff"') + b"\n")
    assert failure(JsonlImporter(), path).where == "line 50"


def test_a_bad_byte_on_whatsapp_line_50_is_reported_as_line_50(tmp_path):
    lines = [f"03/02/2024, 10:{n % 60:02d} - Ann: line {n}" for n in range(1, 80)]
    path = tmp_path / "WhatsApp Chat with Ann.txt"
    path.write_bytes("\n".join(lines).encode().replace(b"line 50", b"line \xff") + b"\n")
    assert failure(WhatsAppImporter(), path).where == "line 50"


def test_damaged_json_in_chatgpt_conversation_50_is_reported_as_conversation_50(tmp_path):
    conversations = [{"title": f"c{n}", "id": f"id{n}", "mapping": {}} for n in range(1, 80)]
    path = tmp_path / "conversations.json"
    path.write_bytes(json.dumps(conversations).encode().replace(b'"c50"', b'"c\xff"'))
    assert failure(ChatGPTImporter(), path).where == "conversation 50"


# -- dates: the last guard, for any importer ----------------------------------------------------------
@pytest.mark.parametrize("seconds", [1e20, -1e12, float("nan"), float("inf"), 7_289_654_400.0])
def test_the_row_builder_refuses_a_time_outside_1900_2200_whatever_read_it(seconds):
    builder = RowBuilder(IdState(), {}, {})
    builder.begin_source("discord", 1, "export.json")
    record = MessageRecord("discord:1", "1", "Ann", None, "other", seconds, "hi", "message 7")
    with pytest.raises(ImportFormatError) as caught:
        builder.add_message(record)
    assert (caught.value.source, caught.value.where) == ("export.json", "message 7")
    assert "outside the years 1900-2200" in caught.value.problem


def test_the_row_builder_keeps_1900_and_2200():
    builder = RowBuilder(IdState(), {}, {})
    builder.begin_source("jsonl", 1, "chat.jsonl")
    for seconds in (-2_208_988_800.0, 7_289_654_399.0, 0.0):
        builder.add_message(MessageRecord("jsonl:T", None, "Ann", None, "other", seconds, "hi", "line 1"))
    assert builder.pending == 3


# -- WhatsApp: day/month order from the chat's own order -------------------------------------------
def test_ambiguous_dates_take_the_order_that_keeps_the_chat_forward(tmp_path):
    """Every date fits both orders. Day-first, 08/05 then 09/04 would step back a month;
    month-first the chat runs forward (Aug 5, then Sep 4)."""
    path = tmp_path / "WhatsApp Chat with Ann.txt"
    path.write_text("06/03/2017, 00:45 - Ann: one\n08/05/2017, 01:48 - Bob: two\n09/04/2017, 01:50 - Ann: three\n"
                    "10/01/2017, 09:00 - Bob: four\n", encoding="utf-8")
    times = [r.sent_at for r in parsed(WhatsAppImporter(), path)]
    assert times == sorted(times)


def test_ambiguous_dates_that_run_forward_both_ways_stay_day_first(tmp_path):
    path = tmp_path / "WhatsApp Chat with Ann.txt"
    path.write_text("01/02/2017, 10:00 - Ann: one\n01/03/2017, 10:00 - Bob: two\n", encoding="utf-8")
    first = parsed(WhatsAppImporter(), path)[0].sent_at
    assert first == 1_485_943_200.0  # 1 February 2017, 10:00 UTC
