"""Issue 12, finding 7 in the window: messages whose id came again with another text are
counted in the import summary (the first text is kept), not dropped without a word."""

from __future__ import annotations

import json

from engine.api import CancelToken, Changes, Flashback
from ui.shell.progress_panel import ProgressPanel


def test_the_summary_counts_ids_that_came_again_with_another_text(qapp, tmp_path):
    export = tmp_path / "chat.jsonl"
    export.write_text("".join(json.dumps({"chat": "Family", "id": message_id, "author": "Anna", "text": text,
                                          "date": "2024-05-01T10:00:00+00:00"}) + "\n"
                              for message_id, text in (("7", "noon"), ("7", "one o'clock"), ("8", "ok"))),
                      encoding="utf-8")
    summary, changes = Flashback(tmp_path / "data").imports.pipeline([export], False, lambda step: None,
                                                                      CancelToken(), lambda phase: None)
    assert (summary.messages, summary.conflicting) == (2, 1) and changes == Changes(messages=True, chats=True)
    assert "Ids that came again with another text (the first text kept): 1" in ProgressPanel().summarize(summary)
