"""A Flash fallback in the window explains itself (issue 23): the stage report said "Fallback:
llm_error" and nothing else, and the selection was five topics, some below the threshold the
person had set. Now the reason's sentence (as the CLI says it) and the rule the kept topics
came by are in the report line and in Run history's detail, read back from the recorded run;
the kept topics are what the threshold filter keeps with the window's settings.

Real store (the demo), real HTTP to a local port nothing listens on (Ollama not started)."""

from __future__ import annotations

import socket

from engine.api import SearchRequest
from tests.ui.conftest import FakeKeys
from ui.main_window import MainWindow

QUERY = "hotel in Lisbon"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_report_and_run_history_say_why_and_what_was_kept(qtbot, qasync_loop, demo_service):
    window = MainWindow(demo_service, FakeKeys())
    qtbot.addWidget(window)
    window.show()
    panel = window.search_panel
    settings = panel.settings_panel
    settings.set_value("threshold", 0.55)
    settings.set_value("mode", "flash")
    settings.set_value("preset", "ollama")
    settings.set_value("base_url", f"http://127.0.0.1:{_closed_port()}/v1")
    settings.set_value("model", "llama3.2")
    panel.query.setText(QUERY)
    panel.search()
    qtbot.waitUntil(lambda: panel._state.stage1 is not None and not panel.is_busy(), timeout=15_000)
    stage1 = panel._state.stage1
    threshold = _threshold(settings.settings().threshold_settings())
    threshold_kept = demo_service.search.search_sync(SearchRequest(stage1.query, stage1.settings, threshold,
                                                                   frozen=stage1)).result.selected_ids("topic")
    assert 0 < len(threshold_kept) < 5

    panel.flash_button.click()
    qtbot.waitUntil(lambda: panel.outcome() is not None and panel.outcome().result.reranker == "flash"
                    and not panel.is_busy(), timeout=30_000)
    result = panel.outcome().result
    assert result.fallback == "llm_error"
    assert result.selected_ids("topic") == threshold_kept  # not five, none below 0.55
    report = panel.report.text()
    assert "Fallback" in report and "Could not reach Ollama" in report and "Check that the server is running" in report
    assert "kept what the threshold filter keeps with your settings (threshold 0.55" in report, report

    run_id = panel.outcome().run_id
    assert run_id is not None
    history = window.history
    qtbot.waitUntil(lambda: history.runs.topLevelItemCount() > 0, timeout=15_000)
    history.runs.setCurrentItem(history.runs.topLevelItem(0))
    qtbot.waitUntil(lambda: "Could not reach Ollama" in history.detail.toPlainText(), timeout=15_000)
    detail = history.detail.toPlainText()
    assert "fallback: the call to the model's server failed" in detail, detail  # in words (issue 31)
    assert "kept what the threshold filter keeps" in detail and "llm_error" not in detail, detail


def _threshold(settings):
    from engine.api import make_reranker

    return make_reranker("threshold", settings)
