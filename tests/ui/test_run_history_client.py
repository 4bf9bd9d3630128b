"""Run history names the assistant that asked (issue 24): a run recorded over MCP keeps its
client's name, and the window shows it in the list ("Asked by") and in the run's detail; the
column stays hidden while only the window and the CLI have searched."""

from __future__ import annotations

from engine.api import RetrievalSettings, SearchRequest, make_reranker
from ui.shell.run_history import CLIENT_COLUMN, RunHistoryPanel


def record(service, query: str, client: str = "") -> int:
    reranker = make_reranker("threshold")
    outcome = service.search.search_sync(SearchRequest(query, RetrievalSettings(), reranker))
    service.search.record(outcome, reranker, client=client)
    assert outcome.run_id is not None
    return outcome.run_id


def loaded(qtbot, panel: RunHistoryPanel, count: int) -> None:
    panel.refresh()
    qtbot.waitUntil(lambda: panel.runs.topLevelItemCount() == count, timeout=10_000)


def test_an_assistants_run_is_shown_with_its_clients_name(qtbot, demo_service):
    panel = RunHistoryPanel(demo_service)
    qtbot.addWidget(panel)
    panel.resize(900, 600)
    panel.show()
    record(demo_service, "hotel in Lisbon")
    loaded(qtbot, panel, 1)
    assert panel.runs.isColumnHidden(CLIENT_COLUMN)  # nobody but the window asked yet

    assistant = record(demo_service, "Postgres upgrade incident", client="Claude Desktop")
    loaded(qtbot, panel, 2)
    assert not panel.runs.isColumnHidden(CLIENT_COLUMN)
    assert panel.runs.headerItem().text(CLIENT_COLUMN) == "Asked by"
    cells = {panel.runs.topLevelItem(i).text(1): panel.runs.topLevelItem(i).text(CLIENT_COLUMN) for i in range(2)}
    assert cells == {"Postgres upgrade incident": "Claude Desktop", "hotel in Lisbon": ""}

    panel.runs.setCurrentItem(panel.runs.topLevelItem(0))  # newest first: the assistant's
    qtbot.waitUntil(lambda: "Postgres upgrade incident" in panel.detail.toPlainText(), timeout=10_000)
    assert panel._run.id == assistant and "via Claude Desktop" in panel.detail.toPlainText()
    assert panel.detail.toPlainText().count("Claude Desktop") == 1  # said once, not again among the settings
    panel.runs.setCurrentItem(panel.runs.topLevelItem(1))
    qtbot.waitUntil(lambda: "hotel in Lisbon" in panel.detail.toPlainText(), timeout=10_000)
    assert "via" not in panel.detail.toPlainText().split("\n")[1]
