# Samples: tests/data/signal/Anna/{chat.md,data.json}, written for this suite in the exact layout
# signal-export's code writes (see tests/data/signal/README.md); every other input is hand-written.
"""Signal through signal-export: its Markdown and its JSON lines, alone, in folders and zips, into a real store."""

from __future__ import annotations

import json
import shutil
import time
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import ImportFormatError
from engine.importers.inputs import ExportInput
from engine.importers.records import Reaction
from engine.importers.registry import importer_classes
from engine.importers.runner import detect_format, import_path
from engine.importers.signal import SignalImporter
from tests.engine.importers.text_format_helpers import (
    EDITS,
    SIGNAL,
    foreign_samples,
    mutated,
    owner_names,
    parse,
    parses_or_refuses,
    stored,
)

ANNA = SIGNAL / "Anna"
# (author, text, is_service, attachment kinds, UTC time) of the sample, in file order.
EXPECTED = [
    ("Anna", "Morning! Are we still on for Saturday?", False, [], "2024-03-01 09:15:02"),
    ("Me", "Yes! I'll bring the tent.\nAnd the stove.", False, [], "2024-03-01 09:16:40"),
    ("Anna", "Great, I'll pack food", False, [], "2024-03-01 09:20:11"),  # the quote is not repeated
    ("Me", "", False, ["photo"], "2024-03-01 10:02:00"),
    ("Anna", "", False, ["audio"], "2024-03-01 10:03:30"),
    ("Anna", "😀", False, ["sticker"], "2024-03-01 10:05:00"),
    ("Me", "Outgoing voice call (accepted, 3m 2s)", True, [], "2024-03-01 12:00:00"),
    ("Anna", "(This message was deleted)", True, [], "2024-03-01 12:30:00"),
    ("Anna", "", False, ["other"], "2024-03-02 08:00:00"),
]
MORE = ("[2024-03-03 18:00:00] Me: Home safe  \n\n"
        "[2024-03-03 18:05:00] Anna: Same, thanks\nfor the trip!  \n\n")


def utc(stamp: str) -> float:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC).timestamp()


def rows(messages) -> list[tuple]:
    return [(m.author, m.text, m.is_service, [a.kind for a in m.attachments], m.sent_at) for m in messages]


def expected() -> list[tuple]:
    return [(author, text, service, kinds, utc(stamp)) for author, text, service, kinds, stamp in EXPECTED]


@pytest.mark.parametrize("name", ["chat.md", "data.json"])
def test_the_sample_reads_to_its_messages(name: str) -> None:
    chat, messages = parse("signal", ANNA / name)
    assert (chat.key, chat.title, chat.kind) == ("signal:anna", "Anna", "personal")
    assert rows(messages) == expected()
    mine = [m for m in messages if m.author == "Me"]
    assert mine and all(m.role == "user" and m.author_key == "me" for m in mine)
    assert all(m.role == "other" for m in messages if m.author != "Me")
    photo = messages[3].attachments[0]
    assert (photo.file_name, photo.rel_path) == ("IMG_0042.jpg", "media/2024-03-01_10-02-00_IMG_0042.jpg")
    assert messages[4].attachments[0].rel_path == "media/2024-03-01_10-03-30_voice note.m4a"  # %20 read as a space
    # Anna's 👍 is kept beside the message it reacts to, not as a line of its own (issue 34)
    assert messages[1].reactions == [Reaction("👍", ("Anna",), 1)]
    assert all(m.reactions is None for m in messages if m is not messages[1])


def test_markdown_and_json_of_one_export_are_the_same_messages(tmp_path: Path) -> None:
    data = tmp_path / "store"
    first = import_path(data, ANNA / "chat.md")
    second = import_path(data, ANNA / "data.json")
    assert first.messages_added == len(EXPECTED) and second.messages_added == 0
    assert [row[0] for row in stored(data)] == ["Anna"] * len(EXPECTED)
    assert owner_names(data) == {"Me"}


def test_the_export_folder_imports_and_a_changed_copy_adds_nothing(tmp_path: Path) -> None:
    data = tmp_path / "store"
    assert import_path(data, ANNA).messages_added == len(EXPECTED)  # the folder: its data.json
    crlf = tmp_path / "again" / "Anna"
    crlf.mkdir(parents=True)
    (crlf / "chat.md").write_bytes((ANNA / "chat.md").read_bytes().replace(b"\n", b"\r\n"))
    report = import_path(data, crlf / "chat.md")
    assert report.sources[0].status == "imported" and report.messages_added == 0


def test_a_longer_export_adds_only_the_new_messages_and_a_renamed_one_merges(tmp_path: Path) -> None:
    data = tmp_path / "store"
    import_path(data, ANNA / "chat.md")
    longer = tmp_path / "Anna Smith"  # signal-export names the folder after the contact: renamed since
    longer.mkdir()
    (longer / "chat.md").write_text((ANNA / "chat.md").read_text(encoding="utf-8") + MORE, encoding="utf-8")
    report = import_path(data, longer / "chat.md")
    assert report.messages_added == 2
    assert [match.title for match in report.sources[0].matched] == ["Anna"]
    assert stored(data)[-1] == ("Anna", "Anna", "Same, thanks\nfor the trip!", 0)


def test_a_zip_of_the_export_names_the_chat_by_its_folder(tmp_path: Path) -> None:
    bundle = tmp_path / "signal-chats.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        archive.write(ANNA / "data.json", "signal-chats/Anna/data.json")
        archive.writestr("signal-chats/Anna/media/2024-03-01_10-02-00_IMG_0042.jpg", b"\xff\xd8")
    data = tmp_path / "store"
    assert import_path(data, bundle).messages_added == len(EXPECTED)
    assert {row[0] for row in stored(data)} == {"Anna"}


def test_old_layout_groups_and_reactions_of_several(tmp_path: Path) -> None:
    path = tmp_path / "Trip" / "chat.md"
    path.parent.mkdir()
    path.write_text("[2019-05-29, 15:04] Me: How is everyone?  \n\n"
                    "[2019-05-29, 15:10] Aya: We're great!  \n(- Me: ❤️, Jim: 😂 -)\n\n"
                    "[2019-05-29, 15:20] Jim: I'm not.  \n\n", encoding="utf-8")
    assert detect_format(ExportInput(path, "chat.md")) == "signal"
    chat, messages = parse("signal", path)
    assert (chat.title, chat.kind) == ("Trip", "group")
    assert [(m.author, m.text, m.is_service) for m in messages] == [
        ("Me", "How is everyone?", False), ("Aya", "We're great!", False), ("Jim", "I'm not.", False)]
    assert messages[1].reactions == [Reaction("❤️", ("Me",), 1), Reaction("😂", ("Jim",), 1)]
    assert messages[0].sent_at == utc("2019-05-29 15:04:00")


def test_sniff_takes_its_samples_and_nothing_else(exports_dir: Path) -> None:
    for path in [ANNA / "chat.md", ANNA / "data.json"]:
        assert detect_format(ExportInput(path, path.name)) == "signal"
    for path in foreign_samples(exports_dir, "signal"):
        assert not SignalImporter.sniff(ExportInput(path, path.name).head()), path
        assert detect_format(ExportInput(path, path.name)) != "signal", path


def test_a_year_first_whatsapp_line_stays_whatsapp(tmp_path: Path) -> None:
    path = tmp_path / "chat.txt"
    path.write_text("[2024-03-01 09:15:02] Anna: Morning!\n[2024-03-01 09:16:40] Bob: Hi\n", encoding="utf-8")
    assert detect_format(ExportInput(path, path.name)) == "whatsapp"


@pytest.mark.parametrize(("content", "where"), [
    ("not a message\n[2024-03-01 09:15:02] Anna: hi  \n", "line 1"),
    ('{"date": "2024-03-01T09:15:02", "sender": "Anna", "body": "hi"}\n{broken\n', "line 2"),
    ('{"date": "yesterday", "sender": "Anna", "body": "hi"}\n', "line 1"),
    ("[2024-02-30 09:15:02] Anna: hi  \n", "line 1"),
])
def test_damaged_files_name_the_line(tmp_path: Path, content: str, where: str) -> None:
    path = tmp_path / "chat.md"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ImportFormatError) as caught:
        list(importer_classes()["signal"]().parse(ExportInput(path, "chat.md"), lambda done: None))
    assert caught.value.where == where


def test_a_copy_outside_its_folder_keeps_its_folder_name(tmp_path: Path) -> None:
    shutil.copytree(ANNA, tmp_path / "Anna Lee")
    chat, _ = parse("signal", tmp_path / "Anna Lee" / "data.json")
    assert (chat.key, chat.title) == ("signal:anna lee", "Anna Lee")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sample=st.sampled_from([ANNA / "chat.md", ANNA / "data.json"]), edits=EDITS)
def test_mutated_samples_parse_or_raise_import_format_error(tmp_path: Path, sample: Path,
                                                           edits: list[tuple[str, int, bytes]]) -> None:
    parses_or_refuses("signal", tmp_path, mutated(sample.read_bytes(), edits))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2000))
def test_random_bytes_parse_or_raise_import_format_error(tmp_path: Path, data: bytes) -> None:
    parses_or_refuses("signal", tmp_path, data)


@pytest.mark.parametrize("odd", [
    {"attachments": 5}, {"attachments": {"a": 1}}, {"reactions": 7}, {"reactions": {"x": 1}}, {"sticker": "s"},
    {"sender": None}, {"body": ["a", "b"]}, {"deleted": "yes"}, {"attachments": [{"path": 3, "name": None}]},
])
def test_odd_json_values_are_read_as_text_only_where_they_are_text(tmp_path: Path, odd: dict) -> None:
    row = {"date": "2024-03-01T09:15:02", "sender": "Anna", "body": "hi  ", **odd}
    path = tmp_path / "Anna" / "data.json"
    path.parent.mkdir()
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    _, messages = parse("signal", path)
    assert messages[0].text in ("hi", "")
    assert "[" not in messages[0].text and "None" not in (messages[0].author or "")


def test_progress_reaches_the_end_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "Big" / "chat.md"
    path.parent.mkdir()
    path.write_text("".join(f"[2024-03-01 10:{n // 60 % 60:02d}:{n % 60:02d}] Anna: message {n}  \n\n"
                            for n in range(2501)), encoding="utf-8")
    done: list[int] = []  # the last line is not a multiple of the reporting step
    records = list(SignalImporter().parse(ExportInput(path, "chat.md"), done.append))
    assert len(records) == 2502
    assert done == sorted(done) and len(done) >= 3 and done[-1] == path.stat().st_size


def test_a_long_hostile_line_is_read_in_one_pass(tmp_path: Path) -> None:
    path = tmp_path / "Bob" / "chat.md"
    path.parent.mkdir()
    text = "[" * 200_000 + " and no link"  # many link starts, no link end
    path.write_text(f"[2024-03-01 10:00:00] Bob: {text}\n\n", encoding="utf-8")
    started = time.perf_counter()
    _, messages = parse("signal", path)
    assert len(messages) == 1
    assert time.perf_counter() - started < 30  # each "[" scanned the whole line before
