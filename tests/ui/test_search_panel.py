"""The search view over a real store (the bundled demo, imported and built): search, the frozen
candidates re-filtered by the threshold sliders without a new stage 1, latest-wins, errors in
plain words, double-clicks, re-runs and the context export."""

from __future__ import annotations

import json
import threading
import time

import pytest
from PySide6.QtCore import QDate, QPoint, QSettings, Qt
from PySide6.QtGui import QGuiApplication

from engine.api import EngineError, Flashback
from engine.api.evaluation import EvaluationService
from engine.api.search import SearchService
from tests.ui.conftest import FakeKeys, deliver_posted_events, fire_timers_due_within
from ui.search import SearchPanel
from ui.search.panel import RESTAGE_DELAY_MS
from ui.search.settings_panel import SettingsPanel
from ui.tasks import wait_for_background_work

QUERY = "Postgres upgrade incident"


class CountingSearch(SearchService):
    """The real search sub-service, counting stage-1 runs and able to stall or fail. It wraps the
    pipeline's own stage-1 step (private, so overridden here, never called by a test): every
    search, a rewrite's second search and Evaluate's all pass through it, and a search on frozen
    candidates does not."""

    def __init__(self, context, owner: CountingService) -> None:
        super().__init__(context)
        self._owner = owner

    def _stage1(self, query, settings=None, **options):
        owner = self._owner
        with owner.calls_lock:
            owner.stage1_calls.append(query)
        time.sleep(owner.slow_queries.get(query, 0.0))  # the job's own length (a slow query), not a wait
        if query in owner.failing_queries:
            raise EngineError("The search index is missing; rebuild the memory (Memory → Build).")
        try:
            return super()._stage1(query, settings, **options)
        finally:
            with owner.calls_lock:
                owner.stage1_done.append(query)


class CountingService(Flashback):
    """The real facade with a counting search sub-service (Evaluate reads through it too)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.stage1_calls: list[str] = []
        self.stage1_done: list[str] = []  # stage 1 runs that ended (answered or failed)
        self.slow_queries: dict[str, float] = {}
        self.failing_queries: set[str] = set()
        self.calls_lock = threading.Lock()
        self.search = CountingSearch(self._context, self)
        self.evaluation = EvaluationService(self._context, self.search)


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


def search(qtbot, panel: SearchPanel, query: str = QUERY) -> None:
    panel.query.setText(query)
    qtbot.keyClick(panel.query, Qt.Key.Key_Return)  # Enter searches
    qtbot.waitUntil(lambda: panel.outcome() is not None and panel.outcome().stage1.query == query
                    and not panel.is_busy(), timeout=10_000)


def kept_ids(panel: SearchPanel) -> list[int]:
    model = panel.candidates.candidates_model
    return sorted(model.candidate(row).id for row in panel.candidates.candidates_model.kept_rows())


def test_search_fills_the_table_and_the_threshold_selections(qtbot, panel, service, screenshots_dir):
    recorded: list[int] = []
    panel.run_recorded.connect(recorded.append)
    panel.grab().save(str(screenshots_dir / "search_empty.png"))

    search(qtbot, panel)

    outcome = panel.outcome()
    assert outcome.result.reranker == "threshold"
    assert panel.candidates.candidates_model.rowCount() == len(outcome.stage1.candidates) > 5
    selected = [s.id for s in outcome.result.selected]
    assert selected, "the demo's Postgres topics pass the default threshold"
    assert kept_ids(panel) == sorted(selected)
    assert [card.data.id for card in panel.cards.cards] == selected
    assert "retrieved" in panel.report.text() and "kept" in panel.report.text()
    assert "Stage 1:" in panel.status.text()
    assert recorded == [outcome.run_id] and outcome.run_id is not None
    assert service.runs.list(5)[0].id == outcome.run_id
    qtbot.wait(50)
    panel.grab().save(str(screenshots_dir / "search_threshold.png"))


def test_threshold_slider_refilters_without_a_new_stage1(qtbot, panel, service):
    search(qtbot, panel)
    assert service.stage1_calls == [QUERY]
    panel.settings_panel.slider("top_k").spin.setValue(10)  # let the threshold alone decide
    before = kept_ids(panel)
    threshold = panel.settings_panel.slider("threshold")

    threshold.slider.setValue(35)  # as if dragged to 0.35: instant, on the GUI thread
    assert threshold.spin.value() == pytest.approx(0.35)
    lower = kept_ids(panel)
    assert len(lower) > len(before)
    panel.settings_panel.slider("top_k").spin.setValue(1)
    assert len(kept_ids(panel)) == 1
    panel.settings_panel.slider("gap").setValue(0.02)
    threshold.spin.setValue(0.85)
    assert kept_ids(panel) == [] and panel.cards.cards == []
    assert "Nothing passed the threshold" in panel.cards._empty.text()
    panel.settings_panel.combo("mode").setCurrentIndex(panel.settings_panel.combo("mode").findData("vector"))
    assert len(kept_ids(panel)) == len(panel.outcome().stage1.candidates)

    fire_timers_due_within(qtbot, RESTAGE_DELAY_MS)  # a re-stage queued above would have started by now
    assert service.stage1_calls == [QUERY] and not panel.is_busy()

    panel.settings_panel.slider("candidates").setValue(10)  # the candidate set itself changes
    qtbot.waitUntil(lambda: len(service.stage1_calls) == 2 and not panel.is_busy(), timeout=10_000)
    assert sum(1 for c in panel.outcome().stage1.candidates if c.kind == "topic") <= 10


def test_latest_search_wins(qtbot, panel, service):
    service.slow_queries["slow question"] = 0.6
    panel.query.setText("slow question")
    panel.search()
    search(qtbot, panel, "Lisbon trip hotel")
    qtbot.waitUntil(lambda: len(service.stage1_calls) == 2 and not panel.is_busy(), timeout=10_000)
    qtbot.waitUntil(lambda: "slow question" in service.stage1_done, timeout=30_000)  # the slow one answered
    wait_for_background_work()
    deliver_posted_events(qtbot)  # … and what it sent the GUI thread has arrived: it must not show
    assert panel.outcome().stage1.query == "Lisbon trip hotel"


def test_a_failed_search_says_why_in_plain_words(qtbot, panel, service):
    service.failing_queries.add("broken")
    panel.query.setText("broken")
    panel.search()
    qtbot.waitUntil(lambda: "index is missing" in panel.status.text(), timeout=10_000)
    assert "Traceback" not in panel.status.text()
    panel.query.setText("   ")
    panel.search()
    assert "Type a question" in panel.status.text()


def test_double_clicks_open_topics_and_rerun_searches_again(qtbot, panel, service):
    search(qtbot, panel)
    opened: list[int] = []
    panel.open_topic.connect(opened.append)
    model = panel.candidates.candidates_model
    row = next(r for r in range(model.rowCount()) if model.candidate(r).kind == "topic")
    rect = panel.candidates.visualRect(model.index(row, 3))
    # A real double-click is press, release, double-click: the view needs the press first.
    qtbot.mouseClick(panel.candidates.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(panel.candidates.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    card = panel.cards.cards[0]
    qtbot.mouseDClick(card, Qt.MouseButton.LeftButton)
    assert opened == [model.candidate(row).id, card.data.id]

    panel.rerun({"retrieval": {"candidates": 5}}, "Lisbon trip hotel")
    assert panel.query.text() == "Lisbon trip hotel"
    qtbot.waitUntil(lambda: panel.outcome().stage1.query == "Lisbon trip hotel" and not panel.is_busy(),
                    timeout=10_000)
    assert service.stage1_calls == [QUERY, "Lisbon trip hotel"]


def test_export_markdown_json_and_clipboard(qtbot, panel, tmp_path, monkeypatch):
    search(qtbot, panel)
    selected = [s.id for s in panel.outcome().result.selected]
    targets = iter([str(tmp_path / "context.md"), str(tmp_path / "context")])
    monkeypatch.setattr("ui.search.export_bar.QFileDialog.getSaveFileName", lambda *a, **k: (next(targets), ""))

    panel.export_bar.markdown_button.click()
    qtbot.waitUntil(lambda: "Saved the context" in panel.status.text() and not panel.is_busy(), timeout=10_000)
    markdown = (tmp_path / "context.md").read_text(encoding="utf-8")
    assert QUERY in markdown and all(str(i) in markdown for i in selected)

    panel.export_bar.json_button.click()  # no suffix typed: .json is added
    qtbot.waitUntil(lambda: (tmp_path / "context.json").exists() and not panel.is_busy(), timeout=10_000)
    exported = json.loads((tmp_path / "context.json").read_text(encoding="utf-8"))
    assert [item["id"] for item in exported["items"] if item["kind"] == "topic"] == selected

    panel.export_bar.budget.setValue(2000)
    panel.export_bar.copy_button.click()
    qtbot.waitUntil(lambda: "clipboard" in panel.status.text() and not panel.is_busy(), timeout=10_000)
    assert QUERY in QGuiApplication.clipboard().text()
    assert QSettings().value("search/budget_tokens") in (2000, "2000")


def test_chat_and_date_filters_rerun_stage1_and_are_not_saved(qtbot, panel, service):
    search(qtbot, panel)
    everything = [c for c in panel.outcome().stage1.candidates if c.kind == "topic"]
    chats = {c.chat for c in everything}
    assert len(chats) > 1  # the query matches topics in several chats: the filter has work to do
    panel.settings_panel.set_chats([(chat.id, chat.name) for chat in service.browse.chats()])
    combo = panel.settings_panel.combo("chat_id")
    backend = combo.findText("Backend team")
    assert backend > 0 and combo.itemText(0) == "All chats"

    combo.setCurrentIndex(backend)  # as a pick from the list would
    qtbot.waitUntil(lambda: len(service.stage1_calls) == 2 and not panel.is_busy(), timeout=10_000)
    in_chat = [c for c in panel.outcome().stage1.candidates if c.kind == "topic"]
    assert in_chat and {c.chat for c in in_chat} == {"Backend team"}

    panel.settings_panel.date_from.setDate(QDate(2025, 4, 1))
    panel.settings_panel.date_to.setDate(QDate(2025, 4, 15))
    qtbot.waitUntil(lambda: len(service.stage1_calls) >= 3 and not panel.is_busy(), timeout=10_000)
    fire_timers_due_within(qtbot, RESTAGE_DELAY_MS)  # both date edits changed: at most one more stage 1
    qtbot.waitUntil(lambda: not panel.is_busy(), timeout=10_000)
    dated = [c for c in panel.outcome().stage1.candidates if c.kind == "topic"]
    assert dated and all("2025-04-01" <= c.date <= "2025-04-15" and c.chat == "Backend team" for c in dated)
    assert panel.settings_panel.settings().date_from == "2025-04-01"

    reopened = SettingsPanel(panel.settings_panel._store)  # the next start of the app
    assert (reopened.settings().chat_id, reopened.settings().date_from, reopened.settings().date_to) == (0, "", "")
    assert reopened.date_from.text() == "any"
    qtbot.addWidget(reopened)
    reopened.show()
    edit = reopened.date_from
    qtbot.mouseClick(edit, Qt.MouseButton.LeftButton, pos=QPoint(edit.width() - 8, edit.height() // 2))
    qtbot.waitUntil(edit.calendarWidget().isVisible)
    today = QDate.currentDate()  # "any" opens its calendar on this month, not on 1970
    assert (edit.calendarWidget().yearShown(), edit.calendarWidget().monthShown()) == (today.year(), today.month())
    assert reopened.settings().date_from == ""  # opening the calendar picked nothing
    edit.calendarWidget().hide()
