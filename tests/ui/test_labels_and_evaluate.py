"""Labelling in the search view (mouse and keyboard, rows and cards), the Evaluate view over the
labels (figures, a sweep that follows the sliders, auto-tune and Apply, rows that open in the
search view, QRELS export/import) and Flash against the threshold on the scripted server."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from engine.api import QueryFilters, SweepData, averages, report_threshold
from tests.fake_openai import FakeOpenAI, LocalServerModel
from tests.ui.conftest import FakeKeys
from ui.evaluate import EvaluatePanel
from ui.search import SearchPanel
from ui.search.candidates_model import COLUMN_KEYS

QUERIES = ("Postgres upgrade incident", "hotel in Lisbon")


@pytest.fixture
def panels(qtbot, demo_service):
    search = SearchPanel(demo_service, FakeKeys())
    evaluate = EvaluatePanel(demo_service, search, FakeKeys())
    for widget, size in ((search, (1280, 800)), (evaluate, (1100, 640))):
        qtbot.addWidget(widget)
        widget.resize(*size)
        widget.show()
    return search, evaluate


def run_search(qtbot, panel: SearchPanel, query: str) -> None:
    panel.query.setText(query)
    panel.search()
    qtbot.waitUntil(lambda: panel.outcome() is not None and panel.outcome().stage1.query == query
                    and not panel.is_busy(), timeout=15_000)


def topic_rows(panel: SearchPanel) -> list[int]:
    model = panel.candidates.candidates_model
    return [row for row in range(model.rowCount()) if model.candidate(row).kind == "topic"]


def stored(service, query: str) -> dict[int, bool]:
    return service.labels.topic_labels(query, QueryFilters())


def refreshed(qtbot, evaluate: EvaluatePanel, count: int) -> None:
    evaluate.refresh()
    qtbot.waitUntil(lambda: len(evaluate.frozen()) == count and not evaluate._freezing.pending(), timeout=15_000)


def test_rows_and_cards_are_labelled_with_mouse_and_keyboard(qtbot, panels, demo_service):
    search, _ = panels
    run_search(qtbot, search, QUERIES[0])
    model, view = search.candidates.candidates_model, search.candidates
    first, second, third = topic_rows(search)[:3]
    label_cell = model.index(first, COLUMN_KEYS.index("label"))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(label_cell).center())
    topic = model.candidate(first).id
    qtbot.waitUntil(lambda: stored(demo_service, QUERIES[0]) == {topic: True})
    assert model.data(label_cell) == "✓"

    view.setCurrentIndex(model.index(second, 1))
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_N)  # not relevant
    other = model.candidate(second).id
    qtbot.waitUntil(lambda: stored(demo_service, QUERIES[0]) == {topic: True, other: False})
    qtbot.keyClick(view, Qt.Key.Key_N)  # the same key again clears it
    qtbot.waitUntil(lambda: stored(demo_service, QUERIES[0]) == {topic: True})
    view.setCurrentIndex(model.index(third, 1))
    qtbot.keyClick(view, Qt.Key.Key_R)
    third_topic = model.candidate(third).id
    qtbot.waitUntil(lambda: stored(demo_service, QUERIES[0]).get(third_topic) is True)

    card = next(c for c in search.cards.cards if c.data.kind == "topic")
    assert card.relevant_button.isChecked() == (stored(demo_service, QUERIES[0]).get(card.data.id) is True)
    qtbot.mouseClick(card.not_relevant_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: stored(demo_service, QUERIES[0]).get(card.data.id) is False)
    assert card.not_relevant_button.isChecked() and not card.relevant_button.isChecked()
    card.not_relevant_button.setFocus()
    qtbot.keyClick(card.not_relevant_button, Qt.Key.Key_Space)  # keyboard on the card: cleared
    qtbot.waitUntil(lambda: card.data.id not in stored(demo_service, QUERIES[0]))

    run_search(qtbot, search, QUERIES[1])
    assert search.labels() == {}
    run_search(qtbot, search, QUERIES[0])  # labels come back with the query
    qtbot.waitUntil(lambda: search.labels() == stored(demo_service, QUERIES[0]))
    labels = stored(demo_service, QUERIES[0])
    assert labels[third_topic] is True
    shown = {model.candidate(r).id: model.data(model.index(r, COLUMN_KEYS.index("label"))) for r in topic_rows(search)}
    assert shown[third_topic] == "✓" and all(shown[t] == ("✓" if v else "✗") for t, v in labels.items())


def test_labels_clicked_in_quick_succession_are_all_stored(qtbot, panels, demo_service):
    """Each click writes in its own worker: a click while the previous label is being written
    waits its turn (it was refused as "saving labels in this process is writing the store")."""
    search, _ = panels
    run_search(qtbot, search, QUERIES[0])
    topics = [search.candidates.candidates_model.candidate(row).id for row in topic_rows(search)][:8]
    for number, topic in enumerate(topics):
        search.label_topic(topic, number % 2 == 0)
    expected = {topic: number % 2 == 0 for number, topic in enumerate(topics)}
    qtbot.waitUntil(lambda: search.labels() == expected and not search._label_reads.running(), timeout=15_000)
    assert stored(demo_service, QUERIES[0]) == expected
    assert "has to wait" not in search.status.text()


def label_both(qtbot, search: SearchPanel) -> None:
    """Each query: its best topic relevant, its second not relevant (stored before this returns)."""
    for query in QUERIES:
        run_search(qtbot, search, query)
        rows = topic_rows(search)
        model = search.candidates.candidates_model
        for row, verdict in ((rows[0], True), (rows[1], False)):
            search.label_topic(model.candidate(row).id, verdict)
        qtbot.waitUntil(lambda q=query: len(stored(search._service, q)) == 2)


def test_the_evaluate_view_scores_sweeps_tunes_and_opens_rows(qtbot, panels, demo_service, tmp_path,
                                                              screenshots_dir):
    search, evaluate = panels
    label_both(qtbot, search)
    refreshed(qtbot, evaluate, 2)
    settings = search.settings_panel
    expected = averages(report_threshold(evaluate.frozen(), settings.settings().threshold_settings()))
    assert evaluate.table_model.rowCount() == 2
    assert f"F1 <b>{expected['kept_f1']:.2f}</b>" in evaluate.summary.text()
    assert "2 queries scored" in evaluate.summary.text()

    settings.set_value("threshold", 0.3)  # the chart follows the slider, from the frozen candidates
    data = SweepData(evaluate.frozen())
    assert evaluate.chart.view.current == pytest.approx(0.3)
    f1_at_03 = float(data.at(settings.settings().threshold_settings()).f1.mean())
    assert evaluate.chart.value_at_current("kept_f1") == pytest.approx(f1_at_03)
    evaluate.controls.axis.setCurrentIndex(2)  # top-K
    assert evaluate.chart.view.integer_axis and list(evaluate.chart.view.values) == list(range(1, 11))
    evaluate.controls.axis.setCurrentIndex(0)
    qtbot.wait(30)
    assert evaluate.grab().save(str(screenshots_dir / "evaluate.png"))

    evaluate.auto_tune()
    qtbot.waitUntil(lambda: evaluate.controls.apply_button.isEnabled(), timeout=10_000)
    tuned = evaluate._tuned.tuned.settings
    assert "expected on new ones" in evaluate.controls.tune_text.text()
    evaluate.controls.apply_button.click()  # Apply moves the sliders
    now = settings.settings()
    assert (now.threshold, now.gap, now.top_k, now.mode) == (tuned.threshold, tuned.gap, tuned.top_k, "threshold")
    assert settings.slider("threshold").value() == pytest.approx(tuned.threshold)

    calls_before = search._stage1.running()
    evaluate.open_row(1)  # that query in the search view, kept rows against labels
    assert calls_before <= 1
    qtbot.waitUntil(lambda: search.outcome() is not None and search.outcome().stage1.query == QUERIES[1]
                    and search.labels() != {}, timeout=15_000)
    assert search.query.text() == QUERIES[1]

    exported = tmp_path / "labels.json"
    evaluate.export_labels(exported)
    qtbot.waitUntil(lambda: "written to labels.json" in evaluate.status.text())
    document = json.loads(exported.read_text(encoding="utf-8"))
    assert [q["query"] for q in document["queries"]] == list(QUERIES)
    bad = tmp_path / "bad.json"
    bad.write_text('{"queries": 3}', encoding="utf-8")
    evaluate.import_labels(bad)
    qtbot.waitUntil(lambda: "not a QRELS file" in evaluate.status.text())
    assert "\n" not in evaluate.status.text()
    evaluate.import_labels(exported)  # the same labels again: nothing new
    qtbot.waitUntil(lambda: "Imported 2 queries" in evaluate.status.text(), timeout=10_000)


def test_flash_against_the_threshold_on_the_scripted_server(qtbot, qasync_loop, panels, demo_service):
    search, evaluate = panels
    label_both(qtbot, search)
    refreshed(qtbot, evaluate, 2)
    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", LocalServerModel(forces=frozenset({"required", "named"})))
        settings = search.settings_panel
        for name, value in (("preset", "custom"), ("base_url", server.base_url), ("model", "test/flash"),
                            ("mode", "threshold")):
            settings.set_value(name, value)
        assert not evaluate.controls.compare_button.isEnabled()  # the estimate comes first
        evaluate.estimate()
        qtbot.waitUntil(lambda: evaluate.controls.compare_button.isEnabled(), timeout=10_000)
        assert "for 2 queries" in evaluate.controls.compare_text.text()
        assert server.requests_to("/v1/chat/completions") == []  # nothing sent to the model yet
        runs_before = len(demo_service.runs.list())

        evaluate.controls.compare_button.click()
        assert evaluate.controls.cancel_button.isVisible() and evaluate.controls.progress.isVisible()
        qtbot.waitUntil(lambda: not evaluate.comparer.running(), timeout=20_000)
        assert len(demo_service.runs.list()) == runs_before + 2  # each Flash call kept as a run
        flash_f1 = evaluate.table_model.index(0, evaluate.table_model.columnCount() - 1).data()
        assert flash_f1 not in ("", None) and "Flash on the same candidates" in evaluate.summary.text()
        assert "Flash ran on 2 queries" in evaluate.status.text()

        server.handle("/v1/chat/completions", lambda request: __import__("time").sleep(0.4) or
                      LocalServerModel(forces=frozenset({"required", "named"}))(request))
        asked = len(server.requests)
        evaluate.controls.compare_button.click()
        qtbot.waitUntil(lambda: len(server.requests) > asked, timeout=30_000)  # a call is in flight (0.4 s)
        evaluate.controls.cancel_button.click()  # cancel while it is
        qtbot.waitUntil(lambda: "cancelled" in evaluate.status.text(), timeout=5_000)
        assert not evaluate.comparer.running() and not evaluate.controls.cancel_button.isVisible()
