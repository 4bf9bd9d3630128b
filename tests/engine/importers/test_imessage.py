# Samples: tests/data/imessage/*.txt, written for this suite in the layout imessage-exporter's TXT
# exporter writes (see tests/data/imessage/README.md); every other input is hand-written.
"""iMessage through imessage-exporter's TXT: read receipts, reactions, replies, renames, deleted and SharePlay."""

from __future__ import annotations

import time
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import ImportFormatError
from engine.importers.imessage import IMessageImporter
from engine.importers.inputs import ExportInput
from engine.importers.records import Reaction
from engine.importers.registry import importer_classes
from engine.importers.runner import detect_format, import_path
from tests.engine.importers.text_format_helpers import (
    EDITS,
    IMESSAGE,
    foreign_samples,
    mutated,
    owner_names,
    parse,
    parses_or_refuses,
    stored,
)

ANNA = IMESSAGE / "Anna Example.txt"
CREW = IMESSAGE / "Camping Crew.txt"
ANNA_EXPECTED = [
    ("Anna Example", "Morning! Are we still on for Saturday?", False, [], "2024-03-01 09:15:02"),
    ("Me", "Yes! I'll bring the tent.\nAnd the stove.", False, [], "2024-03-01 09:16:40"),  # read receipt dropped
    ("Anna Example", "Great, I'll pack food", False, [], "2024-03-01 09:20:11"),  # the reply note dropped
    ("Me", "", False, ["photo"], "2024-03-01 10:02:00"),
    ("Anna Example", "", False, ["voice"], "2024-03-01 10:03:30"),  # "Sent with Confetti" dropped
    ("Anna Example", "", False, ["sticker"], "2024-03-01 10:05:00"),
    ("Me", "SharePlay Message\nEnded", True, [], "2024-03-01 12:00:00"),
    ("Anna Example", "See you at 7", False, [], "2024-03-01 12:30:00"),  # deleted, its text recovered
    ("Me", "You deleted a message.", True, [], "2024-03-02 08:00:00"),
]
MORE = "Mar 03, 2024  6:00:00 PM\nMe\nHome safe\n\nMar 03, 2024  6:05:00 PM\nAnna Example\nSame,\nthanks!\n\n"


def utc(stamp: str) -> float:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC).timestamp()


def rows(messages) -> list[tuple]:
    return [(m.author, m.text, m.is_service, [a.kind for a in m.attachments], m.sent_at) for m in messages]


def test_the_personal_sample() -> None:
    chat, messages = parse("imessage", ANNA)
    assert (chat.key, chat.title, chat.kind) == ("imessage:anna example", "Anna Example", "personal")
    assert rows(messages) == [(a, t, s, k, utc(stamp)) for a, t, s, k, stamp in ANNA_EXPECTED]
    assert all(m.role == "user" and m.author_key == "me" for m in messages if m.author == "Me")
    assert messages[3].attachments[0].rel_path == "/Users/me/Library/Messages/Attachments/a1/01/ABC123/IMG_0042.HEIC"
    assert messages[4].attachments[0].file_name == "Audio Message.caf"
    # her "Loved" is kept beside the message it reacts to, not as a line of its own (issue 34)
    assert messages[1].reactions == [Reaction("Loved", ("Anna Example",), 1)]
    assert all(m.reactions is None for m in messages if m is not messages[1])


def test_the_group_sample_skips_the_repeated_reply_and_keeps_blank_lines_inside_a_message() -> None:
    chat, messages = parse("imessage", CREW)
    assert (chat.title, chat.kind) == ("Camping Crew", "group")
    assert [(m.author, m.text, m.is_service) for m in messages] == [
        ("Me", "You renamed the conversation to Camping Crew", True),
        ("Me", "Who's bringing the stove?", False),
        ("Bob", "I am", False),  # once: its indented copy under the question is skipped
        ("Carol", "Two lines:\n\nthe second after a blank one", False),
        ("Carol", "Carol changed the group photo.", True),
    ]
    # Emoji(Some("🔥")) by Bob: the emoji
    assert messages[3].reactions == [Reaction("Liked", ("Me",), 1), Reaction("🔥", ("Bob",), 1)]


def test_import_reimport_and_a_longer_renamed_export(tmp_path: Path) -> None:
    data = tmp_path / "store"
    assert import_path(data, ANNA).messages_added == len(ANNA_EXPECTED)
    crlf = tmp_path / "Anna Example.txt"
    crlf.write_bytes(ANNA.read_bytes().replace(b"\n", b"\r\n"))
    assert import_path(data, crlf).messages_added == 0  # the same export, other line ends
    longer = tmp_path / "Anna.txt"  # the contact was renamed before this export
    longer.write_text(ANNA.read_text(encoding="utf-8") + MORE, encoding="utf-8")
    report = import_path(data, longer)
    assert report.messages_added == 2
    assert [match.title for match in report.sources[0].matched] == ["Anna Example"]
    assert stored(data)[-1] == ("Anna Example", "Anna Example", "Same,\nthanks!", 0)
    assert owner_names(data) == {"Me"}


def test_a_folder_of_exports_imports_every_conversation(tmp_path: Path) -> None:
    bundle = tmp_path / "imessage-export.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        archive.write(ANNA, "imessage_export/Anna Example.txt")
        archive.write(CREW, "imessage_export/Camping Crew.txt")
        archive.writestr("imessage_export/attachments/22/Audio Message.caf", b"caff")
    data = tmp_path / "store"
    assert import_path(data, bundle).messages_added == len(ANNA_EXPECTED) + 5
    assert {row[0] for row in stored(data)} == {"Anna Example", "Camping Crew"}


def test_sniff_takes_its_samples_and_nothing_else(exports_dir: Path) -> None:
    for path in (ANNA, CREW):
        assert detect_format(ExportInput(path, path.name)) == "imessage"
    for path in foreign_samples(exports_dir, "imessage"):
        assert not IMessageImporter.sniff(ExportInput(path, path.name).head()), path
        assert detect_format(ExportInput(path, path.name)) != "imessage", path


@pytest.mark.parametrize(("content", "where"), [
    ("Hello there\nMar 01, 2024  9:15:02 AM\nMe\nhi\n", "line 1"),
    ("Feb 30, 2024  9:15:02 AM\nMe\nhi\n", "line 1"),
    ("Mar 01, 2024 13:15:02 PM\nMe\nhi\n", "line 1"),
])
def test_damaged_files_name_the_line(tmp_path: Path, content: str, where: str) -> None:
    path = tmp_path / "Anna.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ImportFormatError) as caught:
        list(importer_classes()["imessage"]().parse(ExportInput(path, path.name), lambda done: None))
    assert caught.value.where == where


def test_hours_on_a_twelve_hour_clock(tmp_path: Path) -> None:
    path = tmp_path / "Anna.txt"
    path.write_text("Jan 05, 2024 12:10:00 AM\nMe\nlate\n\nJan 05, 2024 12:10:00 PM\nMe\nnoon\n", encoding="utf-8")
    _, messages = parse("imessage", path)
    assert [m.sent_at for m in messages] == [utc("2024-01-05 00:10:00"), utc("2024-01-05 12:10:00")]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sample=st.sampled_from([ANNA, CREW]), edits=EDITS)
def test_mutated_samples_parse_or_raise_import_format_error(tmp_path: Path, sample: Path,
                                                           edits: list[tuple[str, int, bytes]]) -> None:
    parses_or_refuses("imessage", tmp_path, mutated(sample.read_bytes(), edits))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2000))
def test_random_bytes_parse_or_raise_import_format_error(tmp_path: Path, data: bytes) -> None:
    parses_or_refuses("imessage", tmp_path, data)


def test_progress_reaches_the_end_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "Big.txt"
    path.write_text("".join(f"Mar 01, 2024 10:{n // 60 % 60:02d}:{n % 60:02d} AM\nAnna\nmessage {n}\n\n"
                            for n in range(1501)), encoding="utf-8")
    done: list[int] = []  # the last line is not a multiple of the reporting step
    records = list(IMessageImporter().parse(ExportInput(path, path.name), done.append))
    assert len(records) == 1502
    assert done == sorted(done) and len(done) >= 3 and done[-1] == path.stat().st_size


# --- the HTML export ------------------------------------------------------------------------

ANNA_HTML = IMESSAGE / "Anna Example.html"


def test_the_html_sample_reads_as_its_txt_does() -> None:
    chat, messages = parse("imessage", ANNA_HTML)
    assert (chat.key, chat.title, chat.kind) == ("imessage:anna example", "Anna Example", "personal")
    # The same nine records as the TXT (the nested copy of the reply skipped, the open <audio> tag
    # survived), then one more message: a video named twice, an attachment not copied, a sticker reaction.
    assert rows(messages)[:9] == [(a, t, s, k, utc(stamp)) for a, t, s, k, stamp in ANNA_EXPECTED]
    assert rows(messages)[9:] == [("Anna Example", "", False, ["video", "file"], utc("2024-03-02 09:00:00"))]
    assert [a.missing for a in messages[9].attachments] == [None, "not copied by the exporter"]
    assert messages[9].reactions == [Reaction("Sticker", ("Me",), 1)]
    assert messages[1].reactions == [Reaction("Loved", ("Anna Example",), 1)]


def test_the_txt_and_the_html_of_one_export_are_the_same_messages(tmp_path: Path) -> None:
    data = tmp_path / "store"
    assert import_path(data, ANNA).messages_added == len(ANNA_EXPECTED)
    assert import_path(data, ANNA_HTML).messages_added == 1  # only the message the TXT sample lacks
    assert {row[0] for row in stored(data)} == {"Anna Example"}


def test_telegram_html_is_not_taken_for_imessage() -> None:
    head = (b'<!DOCTYPE html>\n<html>\n<head><meta charset="utf-8"/><title>Exported Data</title></head>\n'
            b'<div class="message default clearfix" id="message1"><div class="body">'
            b'<div class="pull_right date details" title="01.03.2024 09:15:02">09:15</div>'
            b'<div class="from_name">Anna</div><div class="text">Morning!</div></div></div>\n')
    assert not IMessageImporter.sniff(head)
    assert IMessageImporter.sniff(ANNA_HTML.read_bytes()[:65536])


def test_an_html_message_without_a_time_is_named(tmp_path: Path) -> None:
    path = tmp_path / "Anna.html"
    path.write_text('<html><div class="message"><div class="received"><p><span class="timestamp">soon</span>'
                    '<span class="sender">Anna</span></p></div></div></html>', encoding="utf-8")
    with pytest.raises(ImportFormatError) as caught:
        list(importer_classes()["imessage"]().parse(ExportInput(path, path.name), lambda done: None))
    assert caught.value.where == "message 1"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=EDITS)
def test_mutated_html_parses_or_raises_import_format_error(tmp_path: Path, edits: list[tuple[str, int, bytes]]) -> None:
    parses_or_refuses("imessage", tmp_path, mutated(ANNA_HTML.read_bytes(), edits))


def test_hostile_html_is_read_in_one_pass(tmp_path: Path) -> None:
    path = tmp_path / "Anna.html"
    head = ('<html><div class="message"><div class="received"><p><span class="timestamp">Mar 01, 2024  9:15:02 AM'
            '</span><span class="sender">Anna</span></p><hr><div class="message_part">')
    path.write_text(head + '<img ' + "x" * (3 << 20) + '><span class="bubble"><' + "y" * (5 << 20)
                    + "</span></div></div></div></html>", encoding="utf-8")
    started = time.perf_counter()
    _, messages = parse("imessage", path)
    assert len(messages) == 1 and messages[0].text.startswith("yyy")  # a lone "<" is no text
    assert time.perf_counter() - started < 30  # a tag that never closed, a megabyte attribute: minutes before
