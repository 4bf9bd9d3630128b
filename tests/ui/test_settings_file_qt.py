"""The one settings file between Qt and the engine (issue 31): a file QSettings writes reads back
in the engine with the same values and the other way round; what the window saves, the MCP
server and the CLI's defaults read; and the mouse wheel changes no control the person has not
focused (scrolling the panel had moved Score gap from 0.15 to 0.00, saved for every face)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollArea

from app.cli import build_parser
from app.cli_options import fill_saved
from app.mcp_settings import SettingsWatcher
from app.saved_settings import saved_values, settings_file
from engine.api import SETTINGS, UserSettings, read_settings, settings_path, write_settings
from engine.api.settings import SAVED
from tests.engine.test_saved_settings import TUNED
from ui.search import SettingsPanel


def test_a_file_qsettings_writes_the_engine_reads_with_the_same_values(tmp_path):
    path = tmp_path / "Flashback" / "Flashback.ini"
    store = QSettings(str(path), QSettings.Format.IniFormat)
    for spec in SAVED:
        store.setValue(f"{spec.section}/{spec.key}", TUNED[spec.key])
    store.setValue("window/geometry", b"\x01\x02,\n=[search]gap=0.9")  # the window's layout, beside them
    store.setValue("top_level", "General")
    store.sync()
    assert read_settings(path) == UserSettings(**TUNED)


def test_a_file_the_engine_writes_qsettings_reads_with_the_same_values(tmp_path):
    path = tmp_path / "Flashback" / "Flashback.ini"
    write_settings(path, TUNED)
    store = QSettings(str(path), QSettings.Format.IniFormat)  # a file Qt has not seen: read from disk
    for spec in SAVED:
        text = store.value(f"{spec.section}/{spec.key}")  # an INI file's values come back as text
        assert isinstance(text, str), spec.key
        read = (text == "true") if spec.kind is bool else spec.kind(text)
        assert read == TUNED[spec.key], spec.key
    assert store.value("ui/language") == "ru" and set(store.childGroups()) == {"search", "ui"}


def test_what_the_window_saves_the_server_and_the_cli_read(qtbot, tmp_path):
    data = tmp_path / "data"
    panel = SettingsPanel(QSettings(str(settings_path(data)), QSettings.Format.IniFormat))
    qtbot.addWidget(panel)
    watcher = SettingsWatcher(settings_file(data, True))
    assert watcher.current().gap == SETTINGS["gap"].default
    panel.slider("gap").spin.setValue(0.2)  # as typed into the spin box
    assert panel.settings().gap == 0.2
    assert watcher.current().gap == 0.2 and watcher.current().source == str(settings_path(data))
    args = build_parser().parse_args(["search", "what was said"])
    fill_saved(args, lambda: saved_values(data, True))
    assert args.gap == 0.2
    assert args.threshold == SETTINGS["threshold"].default


@pytest.fixture
def scrolled_panel(qtbot):
    """The settings panel in a scroll area shorter than it, scrolled to the top, shown and active."""
    panel = SettingsPanel()
    area = QScrollArea()
    area.setWidget(panel)
    area.setWidgetResizable(True)
    area.resize(420, 300)
    qtbot.addWidget(area)
    area.show()
    area.activateWindow()
    qtbot.waitExposed(area)
    area.setFocus()
    bar = area.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0
    return area, panel


def _wheel(widget, notches: int = -1) -> None:
    """One real wheel event (down for negative notches) at the middle of `widget`."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, 120 * notches), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_the_wheel_over_an_unfocused_control_scrolls_the_panel_and_changes_nothing(scrolled_panel):
    area, panel = scrolled_panel
    gap = panel.slider("gap")
    store_file = settings_path_of(panel)
    before = store_file.read_bytes() if store_file.exists() else None
    for control in (gap.spin, gap.slider, panel.combo("mode")):
        assert not control.hasFocus()
        scrolled_from = area.verticalScrollBar().value()
        _wheel(control)
        assert area.verticalScrollBar().value() > scrolled_from, control
    assert gap.value() == SETTINGS["gap"].default and panel.settings().gap == SETTINGS["gap"].default
    assert panel.settings().mode == SETTINGS["mode"].default
    assert (store_file.read_bytes() if store_file.exists() else None) == before
    assert read_settings(store_file).gap == SETTINGS["gap"].default


def test_the_wheel_over_a_focused_control_changes_it(qtbot, scrolled_panel):
    area, panel = scrolled_panel
    spin = panel.slider("gap").spin
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus, timeout=5000)
    _wheel(spin)
    assert spin.value() == pytest.approx(SETTINGS["gap"].default - 0.01)
    assert panel.settings().gap == pytest.approx(SETTINGS["gap"].default - 0.01)
    assert read_settings(settings_path_of(panel)).gap == pytest.approx(SETTINGS["gap"].default - 0.01)


def settings_path_of(panel: SettingsPanel):
    from ui.settings_file import settings_file as window_file

    return window_file(panel._store)


TRICKY = ["", " edge ", "a,b", "x;y=z", '"quoted"', "back\\slash", "@at", "@@two", "tab\there", "line\nbreak",
          "\x01\x1f3", "\x85 nel \u2028", "ё и 😀", "\\x41", "true", "0.15"]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_strings_cross_between_qt_and_the_engine(tmp_path, text):
    by_qt = tmp_path / "qt.ini"
    store = QSettings(str(by_qt), QSettings.Format.IniFormat)
    store.setValue("search/model", text)
    store.sync()
    assert read_settings(by_qt).model == text
    by_engine = tmp_path / "engine.ini"
    write_settings(by_engine, {"model": text})
    assert QSettings(str(by_engine), QSettings.Format.IniFormat).value("search/model") == text
