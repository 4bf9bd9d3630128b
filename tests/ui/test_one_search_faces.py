"""Issue 31: a query from each face — the window, the CLI, the MCP server, Ask and evaluation —
reaches the index through the same function, the search pipeline (`SearchService._pipeline`),
and through nothing else: its stage-1 step is private, and each call is counted here by a spy
that calls the real pipeline through (nothing is replaced)."""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from PySide6.QtCore import Qt

from app.mcp_memory import MemoryTools
from app.mcp_settings import SettingsWatcher
from engine.api import ThresholdReranker
from engine.api.search import SearchService
from tests.ui.conftest import FakeKeys
from ui.search import SearchPanel

QUERY = "Postgres upgrade incident"


@pytest.fixture
def searches(monkeypatch) -> list[tuple[str, str]]:
    """(client, query) of every search that passed through the pipeline, in order."""
    seen: list[tuple[str, str]] = []
    real = SearchService._pipeline

    async def counted(self, request, offload):
        seen.append((request.client, request.query))
        return await real(self, request, offload)

    monkeypatch.setattr(SearchService, "_pipeline", counted)
    return seen


def test_every_face_searches_through_the_one_pipeline(qtbot, demo_service, searches, tmp_path, capsys):
    data_dir = demo_service.data_dir

    panel = SearchPanel(demo_service, FakeKeys())
    qtbot.addWidget(panel)
    panel.query.setText(QUERY)
    qtbot.keyClick(panel.query, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.outcome() is not None and not panel.is_busy(), timeout=20_000)
    assert ("window", QUERY) in searches

    from app.cli import main

    umask = os.umask(0o022)  # the CLI narrows the process's umask (app.privacy): given back after
    try:
        assert main(["--data-dir", str(data_dir), "search", QUERY, "--json"]) == 0
    finally:
        os.umask(umask)
    assert json.loads(capsys.readouterr().out)["query"] == QUERY
    assert ("cli", QUERY) in searches

    tools = MemoryTools(data_dir, SettingsWatcher(None))
    found = asyncio.run(tools.search(QUERY, None, None, None, "threshold", 5, True, "en", "test-assistant"))
    assert found.selected and ("test-assistant", QUERY) in searches

    asyncio.run(demo_service.ask.ask(QUERY, ThresholdReranker()))
    assert any(client == "ask" for client, _ in searches)

    qrels = tmp_path / "qrels.json"
    qrels.write_text(json.dumps({"queries": [{"id": "1", "query": "hotel in Lisbon", "relevant": [
        {"chat": "Dan Whitfield", "message": "48546"}]}]}), encoding="utf-8")
    demo_service.evaluation.evaluate(qrels)
    assert ("eval", "hotel in Lisbon") in searches
    targets, _ = demo_service.evaluation.qrels_targets(qrels)
    demo_service.evaluation.freeze(targets)
    assert ("evaluate", "hotel in Lisbon") in searches
    assert {client for client, _ in searches} == {"window", "cli", "test-assistant", "ask", "eval", "evaluate"}
