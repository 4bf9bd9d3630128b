"""Issue 34 in the window: the import report says what was read and not added, and why
(messages already stored, system lines kept out of topics, files that are no chat export)."""

from __future__ import annotations

import json

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


def test_the_window_says_which_file_of_how_many_and_counts_files_aside_and_hidden_entries(qapp, tmp_path):
    service = Flashback(tmp_path / "data")
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "WhatsApp Chat with Trip.txt").write_text(CHAT, encoding="utf-8")
    (folder / "README.md").write_text("# my exports\n", encoding="utf-8")
    hidden = {"id": "h", "author": {"role": "system"}, "create_time": 1.7e9, "metadata": {},
              "content": {"content_type": "text", "parts": [""]}}
    asked = {"id": "u", "author": {"role": "user"}, "create_time": 1.7e9, "metadata": {},
             "content": {"content_type": "text", "parts": ["hello"]}}
    mapping = {"h": {"id": "h", "message": hidden, "parent": None, "children": ["u"]},
               "u": {"id": "u", "message": asked, "parent": "h", "children": []}}
    (folder / "conversations.json").write_text(
        json.dumps([{"id": "c", "title": "T", "mapping": mapping, "current_node": "u"}]), encoding="utf-8")
    steps = []
    summary, _ = service.imports.pipeline([folder], False, steps.append, CancelToken(), lambda phase: None)
    said = ProgressPanel().summarize(summary)
    assert "1 file holding no chat (READMEs, licences, an export's own lists) left aside" in said, said
    assert "1 hidden entry (system prompts" in said, said
    assert "not chat exports" not in said, said
    shown = {ProgressPanel().describe(step).split(" · ")[0] for step in steps if step.phase == "import"}
    assert shown == {"file 1 of 2", "file 2 of 2"}, shown
