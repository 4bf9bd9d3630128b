"""Issue 34: every format takes the parse child and the bulk path by the messages it holds, not by
Telegram's bytes (a 200,000-message WhatsApp chat is 14 MB, under the 16 MB measured on Telegram's
JSON, and was parsed on the writer's core with every index live)."""

from __future__ import annotations

from engine.importers import parse_child
from engine.importers.runner import import_path
from engine.importers.writer import ImportWriter


def whatsapp_chat(path, count: int = 1200):
    lines = [f"{13 + i // 600:02d}/01/2024, {10 + i // 60 % 10:02d}:{i % 60:02d} - "
             f"{'Anna' if i % 2 else 'Bob'}: message number {i}" for i in range(count)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_dense_text_export_is_parsed_in_a_child_by_its_messages(tmp_path, monkeypatch):
    export = whatsapp_chat(tmp_path / "WhatsApp Chat with Anna.txt")
    # Above the file's bytes, below what as many Telegram messages would weigh.
    monkeypatch.setattr(parse_child, "WORKER_MIN_BYTES", 2 * export.stat().st_size)
    started: list[str] = []
    original = parse_child.start

    def recording_start(source, format_name):
        started.append(format_name)
        return original(source, format_name)

    monkeypatch.setattr(parse_child, "start", recording_start)
    report = import_path(tmp_path / "store", export)
    assert started == ["whatsapp"]
    assert report.messages_added == 1200


def test_the_bulk_path_is_chosen_by_an_estimate_of_the_messages(tmp_path, monkeypatch):
    export = whatsapp_chat(tmp_path / "WhatsApp Chat with Anna.txt")
    estimates: list[int] = []
    original = ImportWriter.bulk_mode

    def recording_bulk_mode(writer, expected):
        estimates.append(expected)
        original(writer, expected)

    monkeypatch.setattr(ImportWriter, "bulk_mode", recording_bulk_mode)
    import_path(tmp_path / "store", export)
    assert len(estimates) == 1 and 600 <= estimates[0] <= 2400  # within 2x of the 1,200 messages
