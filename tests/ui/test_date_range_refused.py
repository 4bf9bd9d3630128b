"""From after To in the search view (issue 23): the filter says the range is empty, in one sentence
in the window's language, and no search runs (it used to search silently and find nothing)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QDate, Qt

from tests.ui.conftest import FakeKeys, fire_timers_due_within
from tests.ui.test_search_panel import QUERY, CountingService, search
from ui.search import SearchPanel
from ui.search.panel import RESTAGE_DELAY_MS

SENTENCE = "The date range is empty: 2025-04-15 comes after 2025-04-01; choose a first day on or before the last one."


@pytest.fixture
def service(demo_service) -> CountingService:
    return CountingService(demo_service.data_dir)


@pytest.fixture
def panel(qtbot, service) -> SearchPanel:
    panel = SearchPanel(service, FakeKeys())
    qtbot.addWidget(panel)
    panel.resize(1280, 800)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def test_an_inverted_date_range_is_said_at_the_filter_and_not_searched(qtbot, panel, service):
    search(qtbot, panel)
    assert len(service.stage1_calls) == 1
    settings = panel.settings_panel
    assert not settings.date_note.isVisible()

    settings.date_from.setDate(QDate(2025, 4, 15))
    settings.date_to.setDate(QDate(2025, 4, 1))
    assert settings.date_note.isVisible() and settings.date_note.text() == SENTENCE
    fire_timers_due_within(qtbot, RESTAGE_DELAY_MS)  # the filters' re-search is due: it is refused, not run
    assert not panel.is_busy()
    qtbot.keyClick(panel.query, Qt.Key.Key_Return)
    assert len(service.stage1_calls) == 1
    assert panel.status.text() == SENTENCE

    settings.date_from.setDate(QDate(2025, 4, 1))  # a range again: the note goes, the search runs
    assert not settings.date_note.isVisible()
    qtbot.waitUntil(lambda: len(service.stage1_calls) == 2 and not panel.is_busy(), timeout=10_000)
    assert panel.outcome().stage1.query == QUERY
