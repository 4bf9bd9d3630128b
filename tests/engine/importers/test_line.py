# Samples: tests/data/line/*.txt, written for this suite in the layouts LINE's "Export chat history"
# writes (see tests/data/line/README.md); every other input is hand-written.
"""LINE `.txt` chat history: English, Japanese and Chinese headers and dates, quotes, media, system lines, CRLF."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import ImportFormatError
from engine.importers.inputs import ExportInput
from engine.importers.line import LineImporter
from engine.importers.registry import importer_classes
from engine.importers.runner import detect_format, import_path
from tests.engine.importers.text_format_helpers import (
    EDITS,
    LINE,
    foreign_samples,
    mutated,
    owner_names,
    parse,
    parses_or_refuses,
    stored,
)

ANNA = LINE / "[LINE] Chat with Anna.txt"
JAPANESE = LINE / "ja_group_crlf.txt"
US_DATES = LINE / "en_weekday_mdy.txt"
ANNA_EXPECTED = [
    ("Anna", "Morning! Are we still on for Saturday?", False, [], "2024-03-01 09:15"),
    ("Ken", "Yes! I'll bring the tent.\nAnd the stove.", False, [], "2024-03-01 09:16"),  # quoted, two lines
    ("Anna", "", False, ["sticker"], "2024-03-01 09:20"),
    ("Anna", "", False, ["photo"], "2024-03-01 09:21"),
    ("Ken", "", False, ["voice"], "2024-03-01 10:03"),
    ("Anna", "", False, ["file"], "2024-03-01 10:04"),
    ("Ken", "☎ Call time 3:02", True, [], "2024-03-01 12:00"),
    ("Anna", "Anna unsent a message.", True, [], "2024-03-01 12:30"),
    ("Ken", 'She said "bring snacks" twice\nso I did', False, [], "2024-03-02 08:00"),  # "" is one "
    ("Anna", "Perfect 👍", False, [], "2024-03-02 08:05"),
]
MORE = "\n2024/03/03(Sun)\n18:00\tKen\tHome safe\n18:05\tAnna\t\"Same,\nthanks!\"\n"


def utc(stamp: str) -> float:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M").replace(tzinfo=UTC).timestamp()


def rows(messages) -> list[tuple]:
    return [(m.author, m.text, m.is_service, [a.kind for a in m.attachments], m.sent_at) for m in messages]


def test_the_english_sample() -> None:
    chat, messages = parse("line", ANNA)
    assert (chat.key, chat.title, chat.kind) == ("line:anna", "Anna", "personal")
    assert rows(messages) == [(a, t, s, k, utc(stamp)) for a, t, s, k, stamp in ANNA_EXPECTED]
    assert messages[5].attachments[0].file_name == "packing-list.pdf"
    assert all(m.role == "other" and m.author_key is None for m in messages)  # LINE does not say who exported


def test_the_japanese_group_sample_with_crlf_and_afternoon_times() -> None:
    assert b"\r\n" in JAPANESE.read_bytes()
    chat, messages = parse("line", JAPANESE)
    assert (chat.key, chat.title, chat.kind) == ("line:山登り部", "山登り部", "group")
    assert rows(messages) == [
        (None, "ケンがグループに参加しました。", True, [], utc("2024-04-05 18:00")),
        ("ケン", "こんばんは！", False, [], utc("2024-04-05 18:01")),
        ("さくら", "明日の集合は\n7時です", False, [], utc("2024-04-05 18:02")),
        ("たろう", "", False, ["sticker"], utc("2024-04-05 18:03")),
        ("さくら", "", False, ["photo"], utc("2024-04-05 23:50")),
    ]


def test_weekday_dates_are_read_in_the_order_their_weekdays_agree_with() -> None:
    chat, messages = parse("line", US_DATES)  # "Sat, 11/01/2025" fits both orders; "Mon, 11/03/2025" only M/D
    assert (chat.title, chat.kind) == ("Hiking Club", "group")
    assert rows(messages) == [
        ("Alice", "Trail at 10?", False, [], utc("2025-11-01 09:30")),
        ("Bob", "Sounds good", False, [], utc("2025-11-01 09:31")),
        (None, "Alice added Carol to the group.", True, [], utc("2025-11-01 12:05")),
        ("Carol", "New week, new plans", False, [], utc("2025-11-03 08:15")),
    ]


def test_day_first_weekday_dates(tmp_path: Path) -> None:
    path = tmp_path / "chat.txt"
    path.write_text("[LINE] Chat history with Travel Friends\nSaved on: 26/04/2026, 04:36PM\n\n"
                    "Fri, 03/04/2026\n04:35PM\tAlex\tPacked?\n\nSun, 05/04/2026\n10:00 AM\tMaya\tYes\n",
                    encoding="utf-8")
    _, messages = parse("line", path)  # 3 April 2026 is a Friday, 4 March a Wednesday
    assert [m.sent_at for m in messages] == [utc("2026-04-03 16:35"), utc("2026-04-05 10:00")]


@pytest.mark.parametrize(("header", "date_line", "times", "title", "kind"), [
    ("[LINE] 與小明的聊天記錄\n儲存日期：2022/04/01 10:00", "2022/03/31（四）", ("上午09:46", "下午01:05"), "小明",
     "personal"),
    ("[LINE] 家人的聊天记录\n保存日期：2022/04/01 10:00", "2022/03/31周四", ("上午9:46", "下午1:05"), "家人", "group"),
    ("[LINE] アンナとのトーク履歴\n保存日時：2022/04/01 10:00", "2022.03.31 木曜日", ("午前9:46", "午後1:05"), "アンナ",
     "personal"),
    ("[LINE] Chat history with Amy\nSaved on: 2022/04/01 10:00", "2022.03.31 Thursday", ("9:46 AM", "1:05 PM"), "Amy",
     "personal"),
    ("[LINE] ประวัติการแชทกับ Somchai\nบันทึกวันที่ 2022/04/01 10:00", "2022/03/31 พฤหัสบดี", ("09:46", "13:05"),
     "Somchai", "personal"),
])
def test_header_and_date_forms(tmp_path: Path, header: str, date_line: str, times: tuple[str, str], title: str,
                               kind: str) -> None:
    path = tmp_path / "chat.txt"
    path.write_text(f"{header}\n\n{date_line}\n{times[0]}\tA\tone\n{times[1]}\tB\ttwo\n", encoding="utf-8")
    assert detect_format(ExportInput(path, path.name)) == "line"
    chat, messages = parse("line", path)
    assert (chat.title, chat.kind) == (title, kind)
    assert [m.sent_at for m in messages] == [utc("2022-03-31 09:46"), utc("2022-03-31 13:05")]


def test_a_file_without_its_header_is_named_by_its_file(tmp_path: Path) -> None:
    path = tmp_path / "[LINE] Chat with Bob.txt"
    path.write_text("2024/01/15(Mon)\n10:30\tBob\tHi\n10:31\tMe\tHello\n", encoding="utf-8")
    assert detect_format(ExportInput(path, path.name)) == "line"
    chat, messages = parse("line", path)
    assert chat.title == "Bob" and len(messages) == 2


def test_import_reimport_and_a_longer_export(tmp_path: Path) -> None:
    data = tmp_path / "store"
    assert import_path(data, ANNA).messages_added == len(ANNA_EXPECTED)
    crlf = tmp_path / "anna-crlf.txt"
    crlf.write_bytes(ANNA.read_bytes().replace(b"\n", b"\r\n"))
    assert import_path(data, crlf).messages_added == 0
    longer = tmp_path / "later.txt"
    longer.write_text(ANNA.read_text(encoding="utf-8") + MORE, encoding="utf-8")
    report = import_path(data, longer)
    assert report.messages_added == 2
    assert stored(data)[-1] == ("Anna", "Anna", "Same,\nthanks!", 0)
    assert owner_names(data) == set()  # until `flashback owner --name` says who


def test_a_renamed_chat_merges_by_its_messages(tmp_path: Path) -> None:
    data = tmp_path / "store"
    import_path(data, ANNA)
    renamed = tmp_path / "renamed.txt"
    renamed.write_text(ANNA.read_text(encoding="utf-8").replace("Chat history with Anna", "Chat history with Anna K")
                       + MORE, encoding="utf-8")
    report = import_path(data, renamed)
    assert report.messages_added == 2
    assert [match.title for match in report.sources[0].matched] == ["Anna"]


def test_an_unclosed_quote_ends_at_the_next_message(tmp_path: Path) -> None:
    path = tmp_path / "chat.txt"
    path.write_text('[LINE] Chat history with Bob\n\n2024/01/15(Mon)\n10:30\tBob\t"Quoting myself, no end\n'
                    "2024/01/16(Tue) is the day\n10:31\tMe\tOk\n", encoding="utf-8")
    _, messages = parse("line", path)
    assert [(m.author, m.text) for m in messages] == [
        ("Bob", '"Quoting myself, no end\n2024/01/16(Tue) is the day'), ("Me", "Ok")]
    assert messages[1].sent_at == utc("2024-01-15 10:31")  # the date line inside the quote is text


def test_sniff_takes_its_samples_and_nothing_else(exports_dir: Path) -> None:
    for path in (ANNA, JAPANESE, US_DATES):
        assert detect_format(ExportInput(path, path.name)) == "line"
    for path in foreign_samples(exports_dir, "line"):
        assert not LineImporter.sniff(ExportInput(path, path.name).head()), path
        assert detect_format(ExportInput(path, path.name)) != "line", path


@pytest.mark.parametrize(("content", "where"), [
    ("[LINE] Chat history with Bob\n\n10:30\tBob\tHi\n", "line 3"),  # no date yet
    ("[LINE] Chat history with Bob\n\n2024/02/30(Fri)\n10:30\tBob\tHi\n", "line 3"),
    ("[LINE] Chat history with Bob\n\n2024/02/01(Thu)\n25:30\tBob\tHi\n", "line 4"),
    ("[LINE] Chat history with Bob\n\n2024/02/01(Thu)\n13:30 PM\tBob\tHi\n", "line 4"),
])
def test_damaged_files_name_the_line(tmp_path: Path, content: str, where: str) -> None:
    path = tmp_path / "chat.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ImportFormatError) as caught:
        list(importer_classes()["line"]().parse(ExportInput(path, path.name), lambda done: None))
    assert caught.value.where == where


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sample=st.sampled_from([ANNA, JAPANESE, US_DATES]), edits=EDITS)
def test_mutated_samples_parse_or_raise_import_format_error(tmp_path: Path, sample: Path,
                                                           edits: list[tuple[str, int, bytes]]) -> None:
    parses_or_refuses("line", tmp_path, mutated(sample.read_bytes(), edits))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2000))
def test_random_bytes_parse_or_raise_import_format_error(tmp_path: Path, data: bytes) -> None:
    parses_or_refuses("line", tmp_path, data)


def test_progress_reaches_the_end_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("[LINE] Chat history with Bob\n\n2024/01/15(Mon)\n"
                    + "".join(f"{n // 60 % 24:02d}:{n % 60:02d}\tBob\tmessage {n}\n" for n in range(2500)),
                    encoding="utf-8")
    done: list[int] = []
    records = list(LineImporter().parse(ExportInput(path, path.name), done.append))
    assert len(records) == 2501
    assert done == sorted(done) and len(done) >= 4 and done[-1] == path.stat().st_size



# --- the desktop app's "Save chat" -----------------------------------------------------------

DESKTOP = LINE / "[LINE] Hiking Club.txt"


def test_the_desktop_save_chat_layout() -> None:
    """LINE for Windows and macOS saves a chat without the phone's header: `YYYY.MM.DD Weekday` date
    lines, tab-separated messages whose further lines follow unquoted (a tab inside kept), system
    lines with one tab and no sender, and hours past midnight written on as 24:10 (the day after's
    00:10, as Japanese clocks say it); CRLF."""
    assert detect_format(ExportInput(DESKTOP, DESKTOP.name)) == "line"
    chat, messages = parse("line", DESKTOP)
    assert (chat.key, chat.title, chat.kind) == ("line:hiking club", "Hiking Club", "personal")
    assert rows(messages) == [
        ("Bob", "Today I found something:\nApparently there is a Node package for parsing chats now!", False, [],
         utc("2017-09-02 16:23")),
        ("Alice Smith", "Whaaat", False, [], utc("2017-09-02 16:25")),
        ("Alice Smith", "one line\twith a tab in it\nand a second line", False, [], utc("2017-09-02 16:26")),
        ("Bob", "", False, ["sticker"], utc("2017-09-02 16:40")),
        (None, "Alice Smith left the group.", True, [], utc("2017-09-02 17:02")),
        ("Bob", "still up past midnight", False, [], utc("2017-09-03 00:10")),
        ("Bob", "morning", False, [], utc("2017-09-03 09:00")),
    ]
