# Samples: shared/data/exports/whatsapp/ (read through the `exports_dir` fixture, never copied).
#   chat-miner_test_*.txt          joweich/chat-miner, test/whatsapp/ (MIT licence)
#   whatsapp-chat-parser_short-chat.txt  Pustur/whatsapp-chat-parser, samples/ (MIT licence)
# Every other input below is hand-written for this suite.
"""Tests for the WhatsApp `.txt` importer: samples, locale layouts, media, errors, fuzzing."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import ImportFormatError
from engine.importers.inputs import ExportInput
from engine.importers.records import ChatRecord, MessageRecord
from engine.importers.whatsapp import WhatsAppImporter

CHAT_MINER = [
    "chat-miner_test_bracketed-mmddyy_24hrs.txt",
    "chat-miner_test_ddmmyy_24hrs.txt",
    "chat-miner_test_mmddyy_24hrs.txt",
    "chat-miner_test_mmddyyyy_12hrs.txt",
    "chat-miner_test_yyyymmdd_24hrs.txt",
]
SHORT_CHAT = "whatsapp-chat-parser_short-chat.txt"
LOREM_2 = "Lorem ipsum dolor sit amet,\nconsectetur adipiscing elit. Duis libero."
# (where, author, text, is_service, UTC time): identical for all five chat-miner layouts.
CHAT_MINER_EXPECTED = [
    ("line 1", "John Doe", "Lorem ipsum dolor sit amet.", False, "2019-01-01 11:25"),
    ("line 2", "John Doe", ".", False, "2019-01-20 11:23"),
    ("line 3", "Jahn Doe", LOREM_2, False, "2019-01-30 20:49"),
    ("line 5", "John-John Doe", "Lorem ipsum : dolor sit amet.", False, "2020-06-10 15:55"),
    ("line 6", None, '+12 345 578 created group "Groupname"', True, "2020-06-20 00:08"),
    ("line 7", None, "You were added", True, "2020-06-30 09:10"),
    ("line 8", "John Doe \U0001f913", "Lorem ipsum \U0001f913", False, "2021-12-10 10:10"),
    ("line 9", "\U0001f913", "Lorem ipsum \U0001f913", False, "2021-12-20 12:10"),
    ("line 10", "John Doe", LOREM_2, False, "2021-12-30 22:01"),
]


def utc(stamp: str) -> float:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M").replace(tzinfo=UTC).timestamp()


def parse_path(path: Path, display_name: str | None = None) -> tuple[ChatRecord, list[MessageRecord]]:
    records = list(WhatsAppImporter().parse(ExportInput(path, display_name or path.name), lambda done: None))
    chat, messages = records[0], records[1:]
    assert isinstance(chat, ChatRecord)
    assert all(isinstance(message, MessageRecord) and message.chat_key == chat.key for message in messages)
    return chat, messages


def parse_text(
    tmp_path: Path, content: str | bytes, name: str = "WhatsApp Chat with Bob.txt"
) -> tuple[ChatRecord, list[MessageRecord]]:
    path = tmp_path / "chat.txt"
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return parse_path(path, name)


def rows(messages: list[MessageRecord]) -> list[tuple]:
    return [(m.where, m.author, m.text, m.is_service, m.sent_at) for m in messages]


# --- the shared samples -------------------------------------------------------------------


@pytest.mark.parametrize("file_name", CHAT_MINER)
def test_chat_miner_samples(exports_dir: Path, file_name: str) -> None:
    chat, messages = parse_path(exports_dir / "whatsapp" / file_name)
    # issue 34: the key is the name and the first message, so two groups of one name stay two
    assert (chat.title, chat.kind) == ("Groupname", "group") and chat.key.startswith("whatsapp:groupname#")
    expected = [(w, a, t, s, utc(stamp)) for w, a, t, s, stamp in CHAT_MINER_EXPECTED]
    assert rows(messages) == expected
    assert all(m.role == "other" and m.external_id is None and m.author_key is None for m in messages)
    assert all(not m.attachments for m in messages)


def test_day_first_and_month_first_samples_give_the_same_dates(exports_dir: Path) -> None:
    _, day_first = parse_path(exports_dir / "whatsapp" / "chat-miner_test_ddmmyy_24hrs.txt")
    _, month_first = parse_path(exports_dir / "whatsapp" / "chat-miner_test_mmddyy_24hrs.txt")
    assert [m.sent_at for m in day_first] == [m.sent_at for m in month_first]


def test_short_chat_sample(exports_dir: Path) -> None:
    chat, messages = parse_path(exports_dir / "whatsapp" / SHORT_CHAT)
    assert (chat.title, chat.kind) == ("ShortChat", "group") and chat.key.startswith("whatsapp:shortchat#")
    notice = "Messages to this group are now secured with end-to-end encryption. Tap for more info."
    # Every date is ambiguous (all fields <= 12). Read day-first, 08/05 then 09/04 would go back a
    # month; month-first the chat runs forward, so that is the order (issue 34).
    assert rows(messages) == [
        ("line 1", None, notice, True, utc("2017-06-03 00:45")),
        ("line 2", None, 'You created group "ShortChat"', True, utc("2017-06-03 00:45")),
        ("line 3", "Sample User", "This is a test message", False, utc("2017-06-03 00:45")),
        ("line 4", "TestBot", "Hey I'm a test too!", False, utc("2017-08-05 01:48")),
        ("line 5", "+410123456789", "How are you?\n\nIs everything alright?", False, utc("2017-09-04 01:50")),
    ]


@pytest.mark.parametrize("file_name", [*CHAT_MINER, SHORT_CHAT])
def test_sniff_accepts_samples(exports_dir: Path, file_name: str) -> None:
    assert WhatsAppImporter.sniff((exports_dir / "whatsapp" / file_name).read_bytes())


@pytest.mark.parametrize(
    "head",
    [
        b'{"name": "Chat", "messages": [{"id": 1, "date": "2021-01-01T10:00:00"}]}',
        b'[\n  {"title": "x", "mapping": {}}\n]\n',
        b'{"date": "01/01/21, 10:00", "text": "hi"}\n{"date": "02/01/21, 10:00", "text": "yo"}\n',
        b"It was the best of times, it was the worst of times.\nOn 01/01/21, 10:00 we met.\n" * 5,
        b"",
        b"\x00\xff\xfe garbage \x89PNG",
    ],
)
def test_sniff_rejects_other_content(head: bytes) -> None:
    assert not WhatsAppImporter.sniff(head)


def test_sniff_accepts_layout_variants() -> None:
    assert WhatsAppImporter.sniff(
        "\u200e[28/04/2021, 14:05:09] Bob: hi\n[28/04/2021, 14:06:00] Al: yo\n".encode()
    )
    assert WhatsAppImporter.sniff(
        "4/28/21, 2:05\u202fPM - Bob: hi\n4/28/21, 2:06\u202fPM - Al: yo\n".encode()
    )
    assert WhatsAppImporter.sniff("28/4/21, 2:05 p.\u00a0m. - Bob: hola\n".encode())


# --- layouts ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "author", "stamp"),
    [
        ("\u200e[28/04/2021, 14:05:09] Bob: hi", "Bob", "2021-04-28 14:05"),
        ("[4/28/21, 2:05:09\u202fPM] \u200eBob: hi", "Bob", "2021-04-28 14:05"),
        ("4/28/21, 2:05\u202fPM - Bob: hi", "Bob", "2021-04-28 14:05"),
        ("4/28/21, 12:30 AM - Bob: hi", "Bob", "2021-04-28 00:30"),
        ("4/28/21, 12:30 pm - Bob: hi", "Bob", "2021-04-28 12:30"),
        ("28/4/21, 2:05 p.\u00a0m. - Bob: hi", "Bob", "2021-04-28 14:05"),
        ("28/04/2021, 14:05 - Bob: hi", "Bob", "2021-04-28 14:05"),
        ("28.04.21, 14:05 - Bob: hi", "Bob", "2021-04-28 14:05"),
        ("28-04-2021 14:05 - Bob: hi", "Bob", "2021-04-28 14:05"),
        ("2021-04-28, 14:05 - Bob: hi", "Bob", "2021-04-28 14:05"),
        ("2021.4.28, 14.05 - Bob: hi", "Bob", "2021-04-28 14:05"),
        ("28/04/2021, 14:05 - +41 12 345 67 89: hi", "+41 12 345 67 89", "2021-04-28 14:05"),
    ],
)
def test_layouts(tmp_path: Path, line: str, author: str, stamp: str) -> None:
    _, [message] = parse_text(tmp_path, line + "\n")
    assert (message.author, message.text, message.is_service) == (author, "hi", False)
    assert int(message.sent_at) // 60 == int(utc(stamp)) // 60


def test_seconds_are_kept(tmp_path: Path) -> None:
    _, [message] = parse_text(tmp_path, "[28/04/2021, 14:05:09] Bob: hi")
    assert message.sent_at == utc("2021-04-28 14:05") + 9


def test_author_split_ambiguities(tmp_path: Path) -> None:
    content = (
        "1/2/21, 10:00 - Team: Alpha: hello\n"  # a name holding ": " is cut at the first colon
        '1/2/21, 10:01 - Bob changed the subject from "A" to "Meeting: 5pm"\n'
        "1/2/21, 10:02 - Bob: see https://example.org: now\n"
        "1/2/21, 10:03 - Ann: \n"
        f"1/2/21, 10:04 - {'x' * 61}: too long to be a name\n"
        "1/2/21, 10:05 - Ann added Bob\n"
        "1/2/21, 10:06 - Bob left\n"
    )
    _, messages = parse_text(tmp_path, content)
    assert [(m.author, m.text, m.is_service) for m in messages] == [
        ("Team", "Alpha: hello", False),
        (None, 'Bob changed the subject from "A" to "Meeting: 5pm"', True),
        ("Bob", "see https://example.org: now", False),
        ("Ann", "", False),
        (None, f"{'x' * 61}: too long to be a name", True),
        (None, "Ann added Bob", True),
        (None, "Bob left", True),
    ]


def test_ios_system_line_sent_from_the_chat(tmp_path: Path) -> None:
    content = (
        "[1/2/21, 10:00:00] Trip: \u200eMessages and calls are end-to-end encrypted.\n"
        "[1/2/21, 10:00:01] Trip: \u200eYou created group \u201cTrip 2021\u201d\n"
        "[1/2/21, 10:00:02] Ann: hi\n"
    )
    chat, messages = parse_text(tmp_path, content, name="_chat.txt")  # a bare iOS file: the group's own line names it
    assert (chat.title, chat.kind) == ("Trip 2021", "group") and chat.key.startswith("whatsapp:trip 2021#")
    assert [(m.author, m.is_service) for m in messages] == [(None, True), (None, True), ("Ann", False)]
    assert messages[1].text == "You created group \u201cTrip 2021\u201d"


def test_personal_chat_title_from_the_file_name(tmp_path: Path) -> None:
    content = "1/2/21, 10:00 - Bob: hi\n1/2/21, 10:01 - Me: hello\n"
    chat, _ = parse_text(tmp_path, content, name="export.zip \u203a WhatsApp Chat with Bob  Smith.txt")
    assert (chat.title, chat.kind) == ("Bob  Smith", "personal") and chat.key.startswith("whatsapp:bob smith#")
    newer, _ = parse_text(
        tmp_path, content + "1/3/21, 10:00 - Bob: again\n", name="WhatsApp Chat with Bob  Smith.txt"
    )
    assert newer.key == chat.key  # a newer export of the same chat lands in the same chat


def test_three_authors_make_a_group(tmp_path: Path) -> None:
    chat, _ = parse_text(tmp_path, "1/2/21, 10:00 - A: x\n1/2/21, 10:00 - B: y\n1/2/21, 10:00 - C: z\n")
    assert chat.kind == "group"


def test_multiline_marks_and_trailing_blank_lines(tmp_path: Path) -> None:
    content = "1/2/21, 10:00 - Bob: one\n\u200etwo\n\n  three\u2028four\n\n\n1/2/21, 10:01 - Bob: next\r\n"
    _, messages = parse_text(tmp_path, content)
    assert [m.text for m in messages] == ["one\ntwo\n\n  three\u2028four", "next"]


def test_out_of_order_timestamps_keep_file_order(tmp_path: Path) -> None:
    content = "5/2/21, 10:00 - A: later\n1/2/21, 09:00 - B: earlier\n3/2/21, 10:00 - A: middle\n"
    _, messages = parse_text(tmp_path, content)
    assert [m.text for m in messages] == ["later", "earlier", "middle"]
    assert [m.sent_at for m in messages] == [
        utc("2021-02-05 10:00"),
        utc("2021-02-01 09:00"),
        utc("2021-02-03 10:00"),
    ]


def test_date_order_inferred_from_a_late_line(tmp_path: Path) -> None:
    ambiguous = "".join(f"0{d}/03/21, 10:00 - A: msg {d}\n" for d in range(1, 10))
    _, messages = parse_text(tmp_path, ambiguous + "25/03/21, 10:00 - A: late\n")
    assert messages[1].sent_at == utc("2021-03-02 10:00")
    _, messages = parse_text(tmp_path, ambiguous + "03/25/21, 10:00 - A: late\n")
    assert messages[1].sent_at == utc("2021-02-03 10:00")  # month-first once 25 shows up second


def test_bom_is_tolerated(tmp_path: Path) -> None:
    _, [message] = parse_text(tmp_path, b"\xef\xbb\xbf12/31/21, 23:59 - Bob: hi\n")
    assert (message.author, message.sent_at) == ("Bob", utc("2021-12-31 23:59"))


def test_progress_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("".join(f"1/2/21, 10:00 - A: message {n}\n" for n in range(2500)))
    done: list[int] = []
    records = list(WhatsAppImporter().parse(ExportInput(path, "big.txt"), done.append))
    assert len(records) == 2501
    assert done == sorted(done) and len(done) >= 4 and done[-1] == path.stat().st_size


# --- media --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "file_name", "left"),
    [
        ("<Media omitted>", "other", None, ""),
        ("<media omitted>", "other", None, ""),
        ("\u200eimage omitted", "photo", None, ""),
        ("video omitted", "video", None, ""),
        ("audio omitted", "audio", None, ""),
        ("sticker omitted", "sticker", None, ""),
        ("GIF omitted", "animation", None, ""),
        ("Report.pdf \u2022 3 pages \u200edocument omitted", "file", None, "Report.pdf \u2022 3 pages"),
        (
            "\u200e<attached: 00000042-PHOTO-2021-01-01-12-00-00.jpg>",
            "photo",
            "00000042-PHOTO-2021-01-01-12-00-00.jpg",
            "",
        ),
        (
            "<attached: 00000043-AUDIO-2021-01-01-12-00-00.opus>",
            "voice",
            "00000043-AUDIO-2021-01-01-12-00-00.opus",
            "",
        ),
        (
            "<attached: 00000044-STICKER-2021-01-01-12-00-00.webp>",
            "sticker",
            "00000044-STICKER-2021-01-01-12-00-00.webp",
            "",
        ),
        (
            "<attached: 00000045-GIF-2021-01-01-12-00-00.mp4>",
            "animation",
            "00000045-GIF-2021-01-01-12-00-00.mp4",
            "",
        ),
        (
            "IMG-20210428-WA0001.jpg (file attached)\nlook at this",
            "photo",
            "IMG-20210428-WA0001.jpg",
            "look at this",
        ),
        ("VID-20210428-WA0002.mp4 (Datei angeh\u00e4ngt)", "video", "VID-20210428-WA0002.mp4", ""),
        ("PTT-20210428-WA0003.opus (fichier joint)", "voice", "PTT-20210428-WA0003.opus", ""),
        ("AUD-20210428-WA0004.mp3 (archivo adjunto)", "audio", "AUD-20210428-WA0004.mp3", ""),
        ("STK-20210428-WA0005.webp (file attached)", "sticker", "STK-20210428-WA0005.webp", ""),
        ("Holiday plan.pdf (file attached)", "file", "Holiday plan.pdf", ""),
        ("photo.png (file attached)", "photo", "photo.png", ""),
    ],
)
def test_media_placeholders(tmp_path: Path, text: str, kind: str, file_name: str | None, left: str) -> None:
    _, [message] = parse_text(tmp_path, f"1/2/21, 10:00 - Bob: {text}\n")
    assert message.text == left
    [attachment] = message.attachments
    assert (attachment.kind, attachment.file_name, attachment.rel_path) == (kind, file_name, file_name)
    if file_name is None:
        assert attachment.missing == "media omitted"
    else:
        assert attachment.missing is None
    if file_name and file_name.endswith((".jpg", ".png", ".pdf", ".mp4")):
        assert attachment.mime is not None


def test_typed_text_that_resembles_a_placeholder_stays_text(tmp_path: Path) -> None:
    _, [message] = parse_text(tmp_path, "1/2/21, 10:00 - Bob: I think the image omitted was odd\n")
    assert (message.text, message.attachments) == ("I think the image omitted was odd", [])


# --- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "where", "words"),
    [
        (b"", "line 1", "no WhatsApp messages found"),
        (b"\n\n  \n", "line 1", "no WhatsApp messages found"),
        (b'{"name": "Chat", "messages": []}\n', "line 1", "does not start with a WhatsApp message"),
        (bytes(range(256)) * 4, "line 1", "does not start with a WhatsApp message"),
        (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "line 1", "not UTF-8"),
        (b"1/2/21, 10:00 - A: ok\n1/2/21, 10:01 - A: \xff\xfe bad\n", "line 2", "not UTF-8"),
        (b"01/01/21, 10:00 - A: x\n31/02/21, 10:00 - A: y\n", "line 2", "not a real date"),
        (b"01/01/21, 10:00 - A: x\n13/13/21, 10:00 - A: y\n", "line 2", "not a real date"),
        (b"2021/13/01, 10:00 - A: y\n", "line 1", "not a real date"),
        (b"01/01/21, 25:00 - A: y\n", "line 1", "not a real date"),
        (b"01/01/21, 13:00 PM - A: y\n", "line 1", "not a real date"),
    ],
)
def test_unreadable_input_raises_import_format_error(
    tmp_path: Path, content: bytes, where: str, words: str
) -> None:
    with pytest.raises(ImportFormatError) as info:
        parse_text(tmp_path, content, name="chat.txt")
    assert info.value.source == "chat.txt"
    assert info.value.where == where
    assert words in info.value.problem


def test_conflicting_date_orders_name_the_impossible_line(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError) as info:
        parse_text(tmp_path, b"25/01/21, 10:00 - A: day first\n01/25/21, 10:00 - A: month first\n")
    assert info.value.where == "line 2"


# --- fuzzing ------------------------------------------------------------------------------


def _outcome(directory: Path, data: bytes) -> None:
    path = directory / "fuzz.txt"
    path.write_bytes(data)
    WhatsAppImporter.sniff(data[: 64 * 1024])
    try:
        for record in WhatsAppImporter().parse(ExportInput(path, "fuzz.txt"), lambda done: None):
            assert isinstance(record, ChatRecord | MessageRecord)
    except ImportFormatError as exc:
        assert exc.problem and exc.source == "fuzz.txt"


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("whatsapp-fuzz")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2000))
def test_random_bytes_parse_or_raise_import_format_error(fuzz_dir: Path, data: bytes) -> None:
    _outcome(fuzz_dir, data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sample=st.sampled_from([*CHAT_MINER, SHORT_CHAT]),
    edits=st.lists(
        st.tuples(
            st.sampled_from(["insert", "delete", "replace"]),
            st.integers(0, 10_000),
            st.binary(min_size=1, max_size=4),
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_mutated_samples_parse_or_raise_import_format_error(
    exports_dir: Path, fuzz_dir: Path, sample: str, edits: list[tuple[str, int, bytes]]
) -> None:
    data = bytearray((exports_dir / "whatsapp" / sample).read_bytes())
    for action, position, chunk in edits:
        at = position % (len(data) + 1)
        if action == "insert":
            data[at:at] = chunk
        elif action == "delete":
            del data[at : at + len(chunk)]
        else:
            data[at : at + len(chunk)] = chunk
    _outcome(fuzz_dir, bytes(data))


def test_digit_heavy_mutations_parse_or_raise(exports_dir: Path, tmp_path: Path) -> None:
    # Hypothesis rarely lands on digits inside the prefix; hit dates and times on purpose.
    rng = random.Random(7)
    original = (exports_dir / "whatsapp" / "chat-miner_test_ddmmyy_24hrs.txt").read_bytes()
    digits = [i for i, byte in enumerate(original) if chr(byte).isdigit()]
    for _ in range(300):
        data = bytearray(original)
        for at in rng.sample(digits, 3):
            data[at] = ord(rng.choice("0123456789"))
        _outcome(tmp_path, bytes(data))
