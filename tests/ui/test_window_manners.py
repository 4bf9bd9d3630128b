"""An app's manners (issue #11): Help → About and Open data folder, the app icon, a toolbar key
action that tells the truth, and a window that works at 1280×800 (the settings panel can be
hidden with F9 and stays hidden; the table shows rank, ID, date, chat, score and some summary)."""

from __future__ import annotations

from importlib.metadata import version

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring
from PySide6.QtCore import QSettings, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QKeySequence
from PySide6.QtWidgets import QApplication, QLabel

import resources
from app.gui import DEMO_EXPORT
from app.keys import KeyStore
from tests.ui.test_main_window import isolate_qsettings
from ui import app_icon
from ui.main_window import MainWindow
from ui.search.candidates_model import COLUMN_KEYS
from ui.search.columns import SETTINGS_SHOWN
from ui.shell.about import AboutDialog, AboutInfo
from ui.shell.key_status import MISSING, NOT_NEEDED, SET, key_icon


@pytest.fixture(autouse=True)
def _isolated(qapp, tmp_path, monkeypatch):
    isolate_qsettings(tmp_path / "qsettings")
    for name in ("FLASHBACK_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())  # a machine without a keyring, like the test machines
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def opened(monkeypatch) -> list[QUrl]:
    """What the desktop was asked to open (the system's file manager is not started)."""
    urls: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: urls.append(url) or True)
    return urls


def make_window(qtbot, service, **kwargs) -> MainWindow:
    window = MainWindow(service, KeyStore(), demo_export=DEMO_EXPORT, **kwargs)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.stats is not None)
    return window


def menu(window: MainWindow, title: str):
    return next(action.menu() for action in window.menuBar().actions() if action.text() == title)


def test_about_names_version_folder_models_licence_and_privacy(qtbot, demo_service, opened, screenshots_dir):
    window = make_window(qtbot, demo_service, about=AboutInfo("1.2.3", demo_service.data_dir))
    help_menu = menu(window, "&Help")
    actions = window.window_actions
    assert help_menu.actions()[0] is actions.open_data_folder and actions.about in help_menu.actions()

    window.window_actions.about.trigger()
    dialog = next(d for d in window.findChildren(AboutDialog) if d.isVisible())
    texts = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert "Version 1.2.3" in texts and "MIT" in texts
    assert str(demo_service.data_dir) in dialog.data_link.text()
    assert dialog.embedder.text().startswith("Built-in")
    assert dialog.chat_model.text() == "OpenRouter · google/gemini-3-flash-preview"  # Settings' defaults
    assert "stay in the data folder on this computer" in dialog.privacy.text()
    dialog.grab().save(str(screenshots_dir / "about.png"))

    dialog.data_link.linkActivated.emit(dialog.data_link.text())  # a click on the folder
    window.window_actions.open_data_folder.trigger()
    assert opened == [QUrl.fromLocalFile(str(demo_service.data_dir))] * 2


def test_about_defaults_to_the_installed_version_and_the_services_folder(qtbot, tmp_path):
    from engine.api import Flashback

    service = Flashback(tmp_path / "data")
    window = make_window(qtbot, service)
    assert window.about_info == AboutInfo(version("flashback"), service.data_dir, "MIT")


def test_a_folder_the_desktop_cannot_open_is_said_in_the_status_bar(qtbot, tmp_path, monkeypatch):
    from engine.api import Flashback

    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: False)
    window = make_window(qtbot, Flashback(tmp_path / "data"))
    assert window.open_data_folder() is False
    assert "Could not open" in window.statusBar().currentMessage()


def test_the_app_icon_is_installed_and_its_absence_is_harmless(qtbot, tmp_path, monkeypatch):
    from engine.api import Flashback

    app = QApplication.instance()
    before_icon, before_name = app.windowIcon(), app.desktopFileName()
    try:
        if resources.icon("svg") or resources.icon("png"):
            icon = app_icon.install(app)
            assert not icon.isNull() and not app.windowIcon().isNull()
            assert not icon.pixmap(64, 64).isNull()
            assert app.desktopFileName() == app_icon.APP_ID
            window = make_window(qtbot, Flashback(tmp_path / "data"))
            assert window.windowIcon().cacheKey() == icon.cacheKey()

        app.setWindowIcon(before_icon)
        monkeypatch.setattr(resources, "icon", lambda suffix="svg": None)  # an installation without icons
        app_icon.app_icon.cache_clear()
        assert app_icon.install(app).isNull()
        assert app.windowIcon().cacheKey() == before_icon.cacheKey()  # left as it was
        make_window(qtbot, Flashback(tmp_path / "data2"))  # and the window still opens
    finally:
        app_icon.app_icon.cache_clear()
        app.setWindowIcon(before_icon)
        app.setDesktopFileName(before_name)


def test_the_key_action_shows_the_real_key_state(qtbot, tmp_path):
    from engine.api import Flashback

    window = make_window(qtbot, Flashback(tmp_path / "data"))
    action = window.window_actions.api_key
    assert action.icon().cacheKey() == key_icon(MISSING).cacheKey()  # no keyring, no env: no green check
    assert "No API key for OpenRouter" in action.toolTip()

    dialog = window.open_keys_dialog()
    dialog.key_field.setText("sk-or-v1-0123456789abcdefWXYZ")
    dialog.use_for_session()
    dialog.reject()
    assert action.icon().cacheKey() == key_icon(SET).cacheKey()
    assert action.toolTip() == "API key for OpenRouter: for this session only."

    window.search_panel.settings_panel.set_value("preset", "ollama")
    assert action.icon().cacheKey() == key_icon(NOT_NEEDED).cacheKey()
    assert "needs no API key" in action.toolTip()
    window.search_panel.settings_panel.set_value("preset", "openai")  # no session key for OpenAI
    assert action.icon().cacheKey() == key_icon(MISSING).cacheKey()


def test_at_1280_the_table_shows_its_columns_and_the_settings_fold_away(qtbot, demo_service, screenshots_dir):
    window = make_window(qtbot, demo_service)
    panel = window.search_panel
    panel.query.setText("hotel in Lisbon")
    panel.search()
    qtbot.waitUntil(lambda: panel.outcome() is not None and not panel.is_busy(), timeout=20_000)
    qtbot.wait(50)
    table = panel.candidates
    assert table.horizontalScrollBar().maximum() == 0  # nothing to scroll to
    viewport = table.viewport().width()
    for key in ("rank", "kind", "date", "chat", "score"):
        column = COLUMN_KEYS.index(key)
        assert not table.isColumnHidden(column), key
        assert table.columnViewportPosition(column) + table.columnWidth(column) <= viewport, key
    summary = COLUMN_KEYS.index("summary")
    assert viewport - table.columnViewportPosition(summary) >= 100  # the start of the summary reads
    assert panel.settings_container.isVisible()
    assert window.grab().save(str(screenshots_dir / "window_1280x800.png"))  # docs/screenshots has a copy

    action = panel.settings_action
    assert action.shortcut() == QKeySequence("F9") and action in menu(window, "&View").actions()
    table_width = table.width()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, Qt.Key.Key_F9)  # or View → Search settings panel, or the Settings button
    qtbot.wait(20)
    assert not panel.settings_container.isVisible() and not panel.settings_toggle.isChecked()
    assert table.width() > table_width
    assert str(QSettings().value(SETTINGS_SHOWN)).lower() == "false"

    window.close()
    again = make_window(qtbot, demo_service)  # remembered at the next start
    assert not again.search_panel.settings_action.isChecked()
    assert not again.search_panel.settings_container.isVisible()
    again.reset_window()  # View → Reset window brings it back
    assert again.search_panel.settings_container.isVisible()


def test_messages_and_size_columns_are_hidden_until_asked_for(qtbot):
    from ui.search.candidates_view import CandidatesView

    view = CandidatesView()
    qtbot.addWidget(view)
    assert not view.is_shown("messages") and not view.is_shown("size") and view.is_shown("chat")
    view.set_shown("messages", True)
    assert QSettings().value("search_view/hidden_columns") == "size"
    again = CandidatesView()
    qtbot.addWidget(again)
    assert again.is_shown("messages") and not again.is_shown("size")
    menu = again._column_menu(again.horizontalHeader().rect().center())
    size_action = next(a for a in menu.actions() if a.text() == "Size")
    size_action.setChecked(True)  # as if ticked in the header's context menu
    assert again.is_shown("size")
    menu.close()
    assert Qt.ContextMenuPolicy.CustomContextMenu == again.horizontalHeader().contextMenuPolicy()
