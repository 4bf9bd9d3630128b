"""Issue 34 in the window: the import report says what was read and not added, and why
(messages already stored, system lines kept out of topics, files that are no chat export)."""

from __future__ import annotations

from engine.api import CancelToken, Flashback
from ui.shell.progress_panel import ProgressPanel

CHAT = ('03/02/2024, 09:59 - Anna created group "Trip"\n03/02/2024, 10:00 - Anna: hello\n'
        "03/02/2024, 10:01 - Bob: hi\n")


def test_the_summary_counts_what_was_skipped_and_why(qapp, tmp_path):
    service = Flashback(tmp_path / "data")
    first = tmp_path / "first"
    first.mkdir()
    (first / "WhatsApp Chat with Trip.txt").write_text(CHAT, encoding="utf-8")
    (first / "notes.txt").write_text("just my notes\n", encoding="utf-8")
    summary, _ = service.imports.pipeline([first], False, lambda step: None, CancelToken(), lambda phase: None)
    said = ProgressPanel().summarize(summary)
    assert "1 system line (joins, calls, renames) kept out of topics" in said, said
    assert "1 file skipped, not chat exports: first/notes.txt" in said, said
    longer = tmp_path / "WhatsApp Chat with Trip.txt"
    longer.write_text(CHAT + "03/02/2024, 10:02 - Anna: see you\n", encoding="utf-8")
    summary, _ = service.imports.pipeline([longer], False, lambda step: None, CancelToken(), lambda phase: None)
    assert "3 messages already stored" in ProgressPanel().summarize(summary)
