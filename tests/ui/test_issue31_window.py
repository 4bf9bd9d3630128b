"""Issue 31's findings in the window: Ask against a chat server that is down, the first Ask's
time on the GUI thread, and the language menu saying when a switch takes effect."""

from __future__ import annotations

import socket

from tests.ui.test_ask_mode import ask, data_dir, keys, server, use_server, window  # noqa: F401 (fixtures)


def closed_port_url() -> str:
    """A base URL nothing listens on: a port bound, then closed (the connection is refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# -- e. a server that is down is said to be unreachable, and nothing claims "not found" ----------

def test_ask_against_a_server_that_is_down_says_it_could_not_be_reached(qtbot, window):  # noqa: F811
    url = closed_port_url()
    settings = window.search_panel.settings_panel
    settings.set_value("preset", "custom")
    settings.set_value("base_url", url)
    settings.set_value("model", "test/ask")
    settings.set_value("threshold", 0.99)  # the threshold keeps nothing: only a model could have chosen
    ask(qtbot, window)
    view = window.search_panel.ask_view
    text = view.answer.toPlainText()
    assert "Not found in your chats" not in text and not (view.outcome.answer and view.outcome.answer.not_found)
    assert "Could not reach" in text and url in text, text
    assert view.outcome.sources, "the offline fallback shows the sources found"
    steps = view.steps.text()
    assert "✓ Answer" not in steps and "✓ Check" not in steps and "⚠ Answer" in steps, steps
    plan_tip = next(line for line in view.steps.toolTip().split("\nSearch:")[0].splitlines() if line)
    assert plan_tip.startswith("Plan:") and "unreachable" in plan_tip, view.steps.toolTip()
    assert f"Could not reach the LLM server at {url}" in view.steps.toolTip()
