"""Issue 23: the window's import summary says which stored chat an export went into, whether it
was found by its name or recognised by its messages under another name (a renamed zip)."""

from __future__ import annotations

import zipfile

from engine.api import CancelToken, Flashback
from ui.shell.progress_panel import ProgressPanel

CHAT = "".join(f"[03/02/2024, 10:{n:02d}:00] {who}: {text}\n" for n, (who, text) in enumerate([
    ("Alice", "Did you book the ferry?"), ("Me", "Yes, Friday"), ("Alice", "Bring the snorkel")]))


def ios_zip(path, text):
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("_chat.txt", text)
    return path


def test_the_summary_names_the_stored_chat_a_renamed_or_newer_export_went_into(qapp, tmp_path):
    service = Flashback(tmp_path / "data")

    def summary_of(path) -> str:
        summary, _changes = service.imports.pipeline([path], False, lambda step: None, CancelToken(),
                                                     lambda phase: None)
        return ProgressPanel().summarize(summary)

    first = summary_of(ios_zip(tmp_path / "WhatsApp Chat - Alice.zip", CHAT))
    assert "Recognised" not in first and "already stored" not in first
    renamed = summary_of(ios_zip(tmp_path / "backup.zip", CHAT + "[03/02/2024, 11:00:00] Me: new\n"))
    assert "Recognised by their messages as chats already stored: Alice" in renamed
    (tmp_path / "again").mkdir()
    newer = summary_of(ios_zip(tmp_path / "again" / "WhatsApp Chat - Alice (1).zip",
                               CHAT + "[03/02/2024, 11:00:00] Me: new\n[03/02/2024, 11:01:00] Alice: ok\n"))
    assert "Added to chats already stored: Alice" in newer
    assert [chat.name for chat in service.browse.chats()] == ["Alice"]
