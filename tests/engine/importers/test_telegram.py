"""Telegram Desktop JSON importer. Samples: joweich/chat-miner test/telegram (MIT), via
shared/data/exports; everything else is hand-written from the field spec in FORMATS.md."""

from __future__ import annotations

import json
import zipfile

import pytest

from engine.errors import ImportFormatError
from engine.importers.inputs import ExportInput
from engine.importers.records import ChatRecord, MessageRecord
from engine.importers.telegram import TelegramImporter
from tests.engine.importers.telegram_fixtures import PLACEHOLDER, account_export, chat, message, write


def parse(path):
    return list(TelegramImporter().parse(ExportInput(path, path.name), lambda done: None))


def messages_of(records):
    return [r for r in records if isinstance(r, MessageRecord)]


def test_single_chat_sample(exports_dir):
    records = parse(exports_dir / "telegram" / "chat-miner_test_single_export.json")
    assert isinstance(records[0], ChatRecord)
    texts = [m.text for m in messages_of(records)]
    assert texts == ["Minimal Message", "Link:https://telegram.org/"]
    assert messages_of(records)[0].sent_at == 1544006350.0
    assert messages_of(records)[1].author == "Author 2"


def test_batch_sample_reads_chats_list(exports_dir):
    records = parse(exports_dir / "telegram" / "chat-miner_test_batch_export.json")
    chats = [r for r in records if isinstance(r, ChatRecord)]
    assert [c.title for c in chats] == ["Chatname"]
    assert len(messages_of(records)) == 2


def test_account_export_reads_left_chats_and_marks_self(tmp_path):
    data = account_export(
        [chat("Team", 10, [message(1, "hi", sender="Me", sender_id="user1"), message(2, "yo")])],
        left=[chat("Old group", 11, [message(1, "bye")])],
    )
    records = parse(write(tmp_path / "result.json", data))
    chats = [r for r in records if isinstance(r, ChatRecord)]
    assert [(c.key, c.title, c.kind) for c in chats] == [
        ("telegram:10", "Team", "group"), ("telegram:11", "Old group", "group")]
    msgs = messages_of(records)
    assert [m.role for m in msgs] == ["user", "other", "other"]
    assert [m.chat_key for m in msgs] == ["telegram:10", "telegram:10", "telegram:11"]


def test_entity_list_text_and_service_and_media(tmp_path):
    msgs = [
        message(1, ["See ", {"type": "bold", "text": "this"}, " and ", {"type": "text_link", "text": "docs",
                                                                       "href": "https://x"}]),
        {"id": 2, "type": "service", "date": "2023-11-14T22:13:20", "date_unixtime": "1700000002",
         "actor": "Anna", "actor_id": "user2", "action": "pin_message", "message_id": 1, "text": "",
         "text_entities": []},
        message(3, "", photo="photos/photo_1.jpg", width=10, height=10),
        message(4, "voice", file=PLACEHOLDER, media_type="voice_message", mime_type="audio/ogg"),
        message(5, "report", file="files/report.pdf", file_name="report.pdf", mime_type="application/pdf"),
        {"id": 6, "type": "unsupported"},
        message(7, "reply", reply_to_message_id=5, forwarded_from="Bob"),
        message(8, "", poll={"question": "Lunch?", "answers": [{"text": "Yes"}, {"text": "No"}]}),
    ]
    records = messages_of(parse(write(tmp_path / "r.json", chat("G", 5, msgs))))
    by_id = {m.external_id: m for m in records}
    assert "6" not in by_id  # unsupported: no date, nothing to keep
    assert by_id["1"].text == "See this and docs"
    assert by_id["2"].is_service and "pin message" in by_id["2"].text
    photo = by_id["3"].attachments[0]
    assert (photo.kind, photo.rel_path, photo.missing) == ("photo", "photos/photo_1.jpg", None)
    voice = by_id["4"].attachments[0]
    assert voice.kind == "voice" and voice.rel_path is None and voice.missing.startswith("File not included")
    assert by_id["5"].attachments[0].file_name == "report.pdf"
    assert (by_id["7"].reply_to, by_id["7"].forwarded_from) == ("5", "Bob")
    assert "Poll: Lunch? (Yes, No)" in by_id["8"].text


def test_personal_chat_single_export_infers_self(tmp_path):
    msgs = [message(1, "hi", sender="Peer", sender_id="user77"), message(2, "hey", sender="Me", sender_id="user5")]
    records = messages_of(parse(write(tmp_path / "r.json", chat("Peer", 77, msgs, "personal_chat"))))
    assert [m.role for m in records] == ["other", "user"]


def test_saved_messages_has_no_name(tmp_path):
    records = parse(write(tmp_path / "r.json", account_export([chat(None, 3, [message(1)], "saved_messages")])))
    assert records[0].title == "Saved Messages" and records[0].kind == "saved"


def test_date_without_unixtime_is_local_time(tmp_path):
    raw = message(1)
    del raw["date_unixtime"]
    records = messages_of(parse(write(tmp_path / "r.json", chat("G", 1, [raw]))))
    assert records[0].sent_at == 1700000000.0  # 2023-11-14T22:13:20 read in TZ=UTC


def test_invalid_x_escapes_are_repaired(tmp_path):
    text = json.dumps(chat("G", 1, [message(1, "bell")]), indent=1).replace('"bell"', '"a\\x07b \\\\x41"')
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    (record,) = messages_of(parse(path))
    assert record.text == "a\x07b \\x41"  # an escaped backslash before x41 stays literal


def test_unquoted_document_id_is_repaired(tmp_path):
    entity = '{"type": "custom_emoji", "text": "😀", "document_id": C:\\emoji\\1.webp}'
    text = json.dumps(chat("G", 1, [message(1, ["x", {"type": "plain", "text": "MARK"}])]), indent=1)
    path = tmp_path / "r.json"
    path.write_text(text.replace('{\n     "type": "plain",\n     "text": "MARK"\n    }', entity))
    assert "document_id\": C:" in path.read_text()
    (record,) = messages_of(parse(path))
    assert record.text == "x😀"


def test_many_chats_with_many_messages_stream_in_order(tmp_path):
    chats = [chat(f"Chat {c}", 100 + c, [message(i, f"c{c} m{i}") for i in range(1, 3001)]) for c in range(4)]
    records = parse(write(tmp_path / "r.json", account_export(chats[:3], left=chats[3:]), indent=None))
    msgs = messages_of(records)
    assert len(msgs) == 12000
    assert msgs[2999].text == "c0 m3000" and msgs[3000].text == "c1 m1"
    assert msgs[-1].chat_key == "telegram:103"


def test_sorted_keys_still_import_messages(tmp_path):
    data = account_export([chat("Team", 10, [message(1, "hi")])])
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data, sort_keys=True, indent=1))
    records = parse(path)
    assert [m.text for m in messages_of(records)] == ["hi"]


@pytest.mark.parametrize("cut", [0.3, 0.6, 0.95])
def test_truncated_file_is_a_clear_error(tmp_path, cut):
    data = json.dumps(account_export([chat("Team", 10, [message(i) for i in range(1, 200)])]), indent=1)
    path = tmp_path / "r.json"
    path.write_text(data[: int(len(data) * cut)])
    with pytest.raises(ImportFormatError) as info:
        parse(path)
    assert "cut off" in str(info.value) or "damaged" in str(info.value)
    assert info.value.where


def test_no_messages_is_a_clear_error(tmp_path):
    path = write(tmp_path / "r.json", {"about": "x", "personal_information": {"user_id": 1}})
    with pytest.raises(ImportFormatError, match="no chats"):
        parse(path)


def test_sniff(exports_dir, tmp_path):
    for sample in (exports_dir / "telegram").iterdir():
        assert TelegramImporter.sniff(sample.read_bytes()[:65536])
    for other in ("chatgpt/librechat_chatgpt-tree.json", "whatsapp/whatsapp-chat-parser_short-chat.txt"):
        assert not TelegramImporter.sniff((exports_dir / other).read_bytes()[:65536])
    assert not TelegramImporter.sniff(b'{"chat": "a", "id": "1", "author": "b", "date": "2024", "text": "x"}\n')


def test_zip_of_export_folder(tmp_path):
    from engine.importers.inputs import resolve_inputs

    export = write(tmp_path / "result.json", chat("Zipped", 9, [message(1, "in a zip")]))
    archive = tmp_path / "Telegram Export.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.write(export, "ChatExport_2024/result.json")
        bundle.writestr("ChatExport_2024/photos/photo_1.jpg", b"\xff\xd8")
    with resolve_inputs(archive) as inputs:
        assert len(inputs) == 1 and "result.json" in inputs[0].display_name
        records = list(TelegramImporter().parse(inputs[0], lambda done: None))
    assert [m.text for m in messages_of(records)] == ["in a zip"]


def test_a_bad_date_names_its_chat_and_message_in_the_persons_language(tmp_path):
    """Issue 22: the problem and the place are codes (the record keeps its place as text)."""
    data = account_export([chat("Team", 10, [message(1), message(2, date_unixtime="soon")])])
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data, indent=1))
    with pytest.raises(ImportFormatError) as info:
        parse(path)
    assert info.value.where == "chat 'Team', message 2"
    assert info.value.problem == "a message's date is not a date (soon)"
    assert info.value.render("ru") == \
        "Не удалось импортировать r.json (чат «Team», сообщение 2): дата сообщения — не дата (soon)"
