"""The settings panel (sliders beside spin boxes, persistence in the settings file, reset) and the score chart."""

from __future__ import annotations

from dataclasses import fields

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QImage

from tests.ui.conftest import FakeKeys
from ui.search import SearchPanel, SearchSettings, SettingsPanel
from ui.search.score_chart import KEPT, THRESHOLD, ChartData, ChartPoint, ScoreChart
from ui.search.settings_model import RANGES


@pytest.fixture
def settings_panel(qtbot) -> SettingsPanel:
    panel = SettingsPanel()
    qtbot.addWidget(panel)
    return panel


@pytest.mark.parametrize("name", sorted(set(RANGES) - {"budget_tokens"}))
def test_slider_and_spin_box_stay_in_sync(settings_panel, name):
    low, high, decimals = RANGES[name]
    row = settings_panel.slider(name)
    settings_panel.set_value(name, low)  # a known start, whatever the default
    changes: list[str] = []
    settings_panel.changed.connect(changes.append)
    scale = 10 ** decimals

    row.slider.setValue(round(high * scale))  # dragged to the end
    assert row.spin.value() == pytest.approx(high)
    assert getattr(settings_panel.settings(), name) == pytest.approx(high)
    row.spin.setValue(low)  # typed
    assert row.slider.value() == round(low * scale)
    assert getattr(settings_panel.settings(), name) == pytest.approx(low)
    row.spin.setValue(low)  # no change, no signal
    assert changes == [name, name]
    row.spin.setValue(high * 10)  # out of range: clamped by the spin box, slider follows
    assert row.slider.value() == row.slider.maximum()


def test_reset_to_defaults(qtbot, settings_panel):
    settings_panel.slider("threshold").setValue(0.7)
    settings_panel.slider("top_k").setValue(9)
    settings_panel.hybrid.setChecked(False)
    settings_panel.combo("preset").setCurrentIndex(settings_panel.combo("preset").findData("ollama"))
    settings_panel.combo("reasoning_effort").setCurrentIndex(0)
    assert settings_panel.settings() != SearchSettings()

    settings_panel.reset_button.click()

    assert settings_panel.settings() == SearchSettings()
    assert settings_panel.slider("threshold").spin.value() == pytest.approx(SearchSettings.threshold)
    assert settings_panel.slider("top_k").slider.value() == SearchSettings.top_k
    assert settings_panel.hybrid.isChecked() is SearchSettings.hybrid
    assert settings_panel.combo("preset").currentData() == "openrouter"
    assert settings_panel.model.currentText() == "google/gemini-3-flash-preview"
    assert float(QSettings().value("search/threshold")) == pytest.approx(SearchSettings.threshold)


def test_settings_persist_across_a_new_panel(qtbot, demo_service):
    first = SearchPanel(demo_service, FakeKeys())
    qtbot.addWidget(first)
    settings = first.settings_panel
    settings.slider("gap").spin.setValue(0.33)
    settings.slider("candidates").slider.setValue(12)
    settings.combo("mode").setCurrentIndex(settings.combo("mode").findData("flash"))
    settings.combo("preset").setCurrentIndex(settings.combo("preset").findData("custom"))
    settings.base_url.setText("http://10.0.0.5:8000/v1")
    settings.base_url.editingFinished.emit()
    settings.model.setEditText("my-model")
    first.export_bar.budget.setValue(12000)
    saved = settings.settings()

    second = SearchPanel(demo_service, FakeKeys())
    qtbot.addWidget(second)

    assert second.settings_panel.settings() == saved
    assert saved.gap == pytest.approx(0.33) and saved.candidates == 12 and saved.mode == "flash"
    assert (saved.preset, saved.base_url, saved.model, saved.budget_tokens) == (
        "custom", "http://10.0.0.5:8000/v1", "my-model", 12000)
    assert second.settings_panel.slider("gap").spin.value() == pytest.approx(0.33)
    assert second.export_bar.budget.value() == 12000
    assert second.settings_panel.base_url.text() == "http://10.0.0.5:8000/v1"


def test_a_damaged_settings_file_falls_back_to_defaults(qtbot):
    store = QSettings()
    store.setValue("search/threshold", "not a number")
    store.setValue("search/top_k", 99)  # out of range: the default, never a value nobody chose
    store.setValue("search/mode", "telepathy")
    panel = SettingsPanel()
    qtbot.addWidget(panel)
    assert panel.settings().threshold == SearchSettings.threshold
    assert panel.settings().top_k == SearchSettings.top_k
    assert panel.settings().mode == SearchSettings.mode
    assert {f.name for f in fields(SearchSettings)} >= set(RANGES)


def test_changing_the_endpoint_follows_with_its_model_unless_one_was_typed(settings_panel):
    preset = settings_panel.combo("preset")
    preset.setCurrentIndex(preset.findData("openai"))
    assert settings_panel.settings().model == "gpt-5-mini"
    settings_panel.model.setEditText("ft:gpt-4.1-mini:acme")
    preset.setCurrentIndex(preset.findData("openrouter"))
    assert settings_panel.settings().model == "ft:gpt-4.1-mini:acme"
    assert settings_panel.base_url.placeholderText() == "https://openrouter.ai/api/v1"


def _colour_pixels(image: QImage, colour: QColor, tolerance: int = 12) -> int:
    count = 0
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            pixel = image.pixelColor(x, y)
            if (abs(pixel.red() - colour.red()) <= tolerance and abs(pixel.green() - colour.green()) <= tolerance
                    and abs(pixel.blue() - colour.blue()) <= tolerance):
                count += 1
    return count


def test_score_chart_paints_bars_threshold_and_gap(qtbot, screenshots_dir):
    chart = ScoreChart()
    qtbot.addWidget(chart)
    chart.resize(520, 220)
    scores = [0.82, 0.78, 0.74, 0.52, 0.5, 0.41, 0.33, 0.3, 0.22]
    chart.set_data(ChartData([ChartPoint(s, i < 3, f"Topic {i}") for i, s in enumerate(scores)],
                             threshold=0.45, gap_cut=3, caption="Topic scores"))
    path = screenshots_dir / "search_chart.png"
    assert chart.grab().save(str(path))
    image = QImage(str(path))
    assert not image.isNull() and image.width() >= 520
    assert _colour_pixels(image, KEPT) > 200  # three green bars
    assert _colour_pixels(image, THRESHOLD, tolerance=40) > 20  # the dashed threshold line


def test_chart_in_the_panel_follows_the_threshold_slider(qtbot, demo_service):
    panel = SearchPanel(demo_service, FakeKeys())
    qtbot.addWidget(panel)
    panel.resize(1280, 800)
    panel.show()
    panel.query.setText("Lisbon trip hotel tram 28")
    panel.search()
    qtbot.waitUntil(lambda: panel.outcome() is not None and not panel.is_busy(), timeout=10_000)
    panel.settings_panel.slider("threshold").setValue(0.1)
    panel.settings_panel.slider("gap").setValue(0.02)
    data = panel.chart.data()
    assert data.threshold == pytest.approx(0.1)
    assert sum(p.kept for p in data.points) == len(panel.candidates.candidates_model.kept_rows()) - sum(
        1 for s in panel.outcome().result.selected if s.kind != "topic")
    assert [p.score for p in data.points] == sorted((p.score for p in data.points), reverse=True)
    panel.settings_panel.combo("mode").setCurrentIndex(panel.settings_panel.combo("mode").findData("vector"))
    assert panel.chart.data().threshold is None and all(p.kept for p in panel.chart.data().points)
