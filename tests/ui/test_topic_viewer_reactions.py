"""Issue 34: the topic viewer shows a message's reactions under its text, escaped like it."""

from __future__ import annotations

from engine.browse import MessageLine
from ui.shell.topic_viewer import conversation_html


def test_reactions_are_shown_under_the_text_and_escaped():
    page = conversation_html([MessageLine(1, "Anna", 1_700_000_000.0, "Lunch?", "👍 <b>Bob</b>"),
                              MessageLine(2, "Anna", 1_700_000_010.0, "At noon")])
    assert "Lunch?</p>" in page and "👍 &lt;b&gt;Bob&lt;/b&gt;</p>" in page
    assert page.index("Lunch?") < page.index("👍") < page.index("At noon")
    assert page.count("margin-left:12px; color:#808080") == 1  # only the message with reactions gets the line
