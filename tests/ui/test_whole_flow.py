"""The whole flow a person goes through, in one window: open the demo (import + build),
search, see the threshold selections, switch to Flash against the scripted server, read
the reasons, export Markdown; the file holds the selected topics."""

from __future__ import annotations

import json
import re

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring
from PySide6.QtCore import Qt

from app.gui import DEMO_EXPORT
from app.keys import KeyStore
from engine.api import Flashback
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest, chat_reply, tool_call
from tests.ui.test_main_window import isolate_qsettings, wait_idle
from ui.main_window import MainWindow

QUERY = "Postgres upgrade"


def flash_model(request: RecordedRequest) -> FakeResponse:
    """Loads the first four candidates, then keeps the second and the first with reasons."""
    messages = request.body["messages"]
    user = next(m["content"] for m in messages if m["role"] == "user")
    shown = [int(i) for i in re.findall(r"\[Topic:(\d+)\]", user)]
    if not any(m["role"] == "tool" for m in messages):
        return FakeResponse(json=chat_reply(tool_calls=[tool_call("get_topics_content", {"topic_ids": shown[:4]})]))
    answer = {"topic_ids": [{"id": f"Topic:{shown[1]}", "reason": "the plan of the upgrade"},
                            {"id": shown[0], "reason": "what broke afterwards"}]}
    return FakeResponse(json=chat_reply(json.dumps(answer), usage={"prompt_tokens": 2000, "completion_tokens": 50}))


@pytest.fixture
def window(qtbot, qapp, tmp_path):
    isolate_qsettings(tmp_path / "qsettings")
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    window = MainWindow(Flashback(tmp_path / "data"), KeyStore(), demo_export=DEMO_EXPORT)
    qtbot.addWidget(window)
    window.resize(1440, 900)
    window.show()
    qtbot.waitExposed(window)
    yield window
    keyring.set_keyring(previous)


def test_demo_search_threshold_flash_and_markdown_export(qtbot, qasync_loop, window, tmp_path, monkeypatch,
                                                         screenshots_dir):
    qtbot.waitUntil(lambda: window.stats is not None)
    qtbot.mouseClick(window.empty_state.demo_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    panel = window.search_panel
    assert window._stack.currentWidget() is not window.empty_state

    panel.settings_panel.set_value("mode", "threshold")
    panel.settings_panel.set_value("threshold", 0.30)
    panel.query.setText(QUERY)
    panel.search()
    qtbot.waitUntil(lambda: panel.outcome() is not None and not panel.is_busy(), timeout=20_000)
    threshold = panel.outcome()
    assert threshold.result.reranker == "threshold" and threshold.result.selected
    assert len(panel.cards.cards) == len(threshold.result.selected)

    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", flash_model)
        settings = panel.settings_panel
        settings.set_value("mode", "flash")
        settings.set_value("preset", "custom")
        settings.set_value("base_url", server.base_url)
        settings.set_value("model", "test/flash")
        panel.refresh_keys()
        assert panel.flash_button.isEnabled()
        panel.flash_button.click()
        qtbot.waitUntil(lambda: panel.outcome() is not None and panel.outcome().result.reranker == "flash"
                        and not panel.is_busy(), timeout=20_000)
    flash = panel.outcome()
    topics = [c.id for c in flash.stage1.candidates if c.kind == "topic"]
    assert flash.result.fallback is None
    assert [(card.data.id, card.data.reason) for card in panel.cards.cards] == [
        (topics[1], "the plan of the upgrade"), (topics[0], "what broke afterwards")]
    assert "get_topics_content" in panel.report.text()
    window.grab().save(str(screenshots_dir / "whole_flow_flash.png"))

    target = tmp_path / "context.md"
    monkeypatch.setattr("ui.search.export_bar.QFileDialog.getSaveFileName", lambda *a, **k: (str(target), ""))
    panel.export_bar.markdown_button.click()
    qtbot.waitUntil(lambda: target.exists() and not panel.is_busy(), timeout=10_000)
    markdown = target.read_text(encoding="utf-8")
    assert markdown.startswith(f"# Context for: {QUERY}")
    for topic_id, reason in ((topics[1], "the plan of the upgrade"), (topics[0], "what broke afterwards")):
        assert f"Topic {topic_id}" in markdown and reason in markdown
    assert markdown.index(f"Topic {topics[1]}") < markdown.index(f"Topic {topics[0]}")  # the model's order
