"""The score chart's texts fit inside the chart in English and in Russian, at its default size and
squeezed, and never over the plot; the window's own words for what the engine says in English
(threshold reasons, milliseconds, reasoning levels) come out in Russian in a Russian UI."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QApplication

from engine.api import SearchRequest, Selection, make_reranker, msg
from tests.ui.conftest import FakeKeys
from ui import i18n
from ui.search import SearchPanel, SettingsPanel
from ui.search.reasons import selection_reason
from ui.search.report import status_text
from ui.search.score_chart import ChartData, ChartPoint, ScoreChart
from ui.shell.run_history import RunHistoryPanel

SCORES = [0.82, 0.78, 0.74, 0.52, 0.5, 0.41, 0.33, 0.3, 0.22]


@pytest.fixture(params=["en", "ru"])
def language(request, qapp):
    translators = i18n.install(qapp, request.param)
    assert request.param == "en" or translators
    yield request.param
    i18n.uninstall(qapp, translators)


@pytest.fixture
def russian(qapp):
    translators = i18n.install(qapp, "ru")
    assert translators
    yield
    i18n.uninstall(qapp, translators)


def full_data(caption: str) -> ChartData:
    return ChartData([ChartPoint(s, i < 3, f"Topic {i}") for i, s in enumerate(SCORES)],
                     threshold=0.45, gap_cut=3, caption=caption)


def assert_texts_fit(chart: ScoreChart) -> None:
    metrics = QFontMetricsF(chart.chart_font())
    bounds = QRectF(chart.rect())
    for rect, flags, text in chart.text_boxes():
        needed = metrics.boundingRect(rect, flags, text)
        assert bounds.contains(rect), (text, rect, bounds)
        assert needed.width() <= rect.width() + 0.5 and needed.height() <= rect.height() + 0.5, (text, needed, rect)
    if chart.data().points:
        plot = chart._plot()
        assert all(rect.bottom() <= plot.top() for rect, _flags, _text in chart.text_boxes())  # no label on a bar


@pytest.mark.parametrize("size", [(480, 190), (300, 150)])  # the default, and a squeezed window's
def test_the_chart_texts_fit_in_both_languages(qtbot, language, size, screenshots_dir):
    chart = ScoreChart()
    qtbot.addWidget(chart)
    chart.resize(*size)
    assert_texts_fit(chart)  # the empty chart's hint
    chart.set_data(full_data(QApplication.translate("SearchPanel", "Topic scores")))
    labels = [text for _rect, _flags, text in chart.text_boxes()]
    assert any(("threshold" if language == "en" else "порог") in label for label in labels)
    assert_texts_fit(chart)
    if size == (480, 190):
        chart.grab().save(str(screenshots_dir / f"chart_{language}.png"))
        chart.set_data(ChartData())
        chart.grab().save(str(screenshots_dir / f"chart_{language}_empty.png"))


def test_a_narrow_chart_wraps_its_legend_instead_of_clipping_it(qtbot):
    chart = ScoreChart()
    qtbot.addWidget(chart)
    chart.set_data(full_data("Topic scores"))
    chart.resize(300, 150)
    entries, height = chart.legend()
    assert len({round(entry.text.top()) for entry in entries}) > 1  # more than one line
    assert chart._plot().top() >= height
    assert [entry.label for entry in entries][-2:] == ["threshold 0.45", "gap cut"]  # whole, not elided


def test_threshold_reasons_durations_and_reasoning_levels_in_russian(qtbot, russian):
    def reason(code: str, **params) -> str:  # what a card shows for the engine's reason code
        return selection_reason(Selection.because("topic", 1, msg(code, **params)))

    assert reason("rerank.threshold.reason", score=0.6612, threshold=0.5) == "оценка 0.66 ≥ 0.50"
    assert reason("rerank.threshold.reason_gap", score=0.57, threshold=0.5, drop=0.66 - 0.57, gap=0.15) == \
        "оценка 0.57 ≥ 0.50, на 0.09 ниже предыдущей (предел разрыва 0.15)"
    assert status_text(12.0, 1500.0, "Flash", None) == "Этап 1: 12 мс · Flash: 1.50 с"
    panel = SettingsPanel()
    qtbot.addWidget(panel)
    reasoning = panel.combo("reasoning_effort")
    items = {reasoning.itemData(i): reasoning.itemText(i) for i in range(reasoning.count())}
    assert items == {"none": "нет", "minimal": "минимальное", "low": "низкое", "medium": "среднее",
                     "high": "высокое"}  # shown in Russian, saved as the API's words
    reasoning.setCurrentIndex(reasoning.findData("high"))
    assert panel.settings().reasoning_effort == "high"


def test_a_russian_window_says_the_threshold_reasons_in_russian(qtbot, russian, demo_service):
    panel = SearchPanel(demo_service, FakeKeys())
    qtbot.addWidget(panel)
    panel.settings_panel.set_value("mode", "threshold")
    panel.settings_panel.set_value("threshold", 0.30)
    panel.query.setText("hotel in Lisbon")
    panel.search()
    qtbot.waitUntil(lambda: panel.outcome() is not None and not panel.is_busy(), timeout=20_000)
    selected = panel.outcome().result.selected
    assert len(selected) >= 2
    reasons = [card.data.reason for card in panel.cards.cards]
    assert all(reason.startswith("оценка ") for reason in reasons)
    assert "ниже предыдущей" in reasons[1]
    # the same numbers as the engine's English reasons: only the words differ
    english = [s.reason for s in selected]
    assert [r.split(",")[0].split()[1:] for r in reasons] == [e.split(",")[0].split()[1:] for e in english]
    assert " мс" in panel.status.text()

    outcome = demo_service.search.search_sync(SearchRequest("hotel in Lisbon", reranker=make_reranker("threshold"),
                                                            record=True))
    history = RunHistoryPanel(demo_service)
    qtbot.addWidget(history)
    page = history.run_html(demo_service.runs.get(outcome.run_id))
    assert "оценка " in page and "score " not in page and " мс" in page
