"""The shell's dialogs and side views: the API key dialog (no keyring, a session key, a real
keyring), the Russian translation, the language menu, and the run history with re-run."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends.fail import Keyring as FailKeyring
from keyring.errors import PasswordDeleteError
from PySide6.QtCore import QCoreApplication, QLocale, QSettings
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox

import resources
from app.gui import DEMO_EXPORT
from app.keys import KeyStore
from engine.api import Flashback, SearchRequest, make_reranker
from tests.ui.test_main_window import isolate_qsettings
from ui import i18n
from ui.i18n.update import CATALOGUE
from ui.main_window import MainWindow
from ui.shell.empty_state import EmptyState
from ui.shell.keys_dialog import KeysDialog, mask_key

KEY = "sk-or-v1-0123456789abcdef0123456789abcdefWXYZ"


class MemoryKeyring(KeyringBackend):
    """A real keyring backend that keeps secrets in a dict (for the "has a keyring" path)."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.secrets.get((service, username))

    def set_password(self, service, username, password):
        self.secrets[(service, username)] = password

    def delete_password(self, service, username):
        if self.secrets.pop((service, username), None) is None:
            raise PasswordDeleteError("not stored")


@pytest.fixture(autouse=True)
def _isolated(qapp, tmp_path, monkeypatch):
    isolate_qsettings(tmp_path / "qsettings")
    for name in ("FLASHBACK_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())  # the test machines have no keyring: start from that
    yield
    keyring.set_keyring(previous)


# -- keys -------------------------------------------------------------------------------------
def test_mask_key_never_shows_more_than_four_characters():
    assert mask_key(KEY) == "…WXYZ"
    assert mask_key("short") == "…"
    assert mask_key(None) == mask_key("") == ""


def test_without_a_keyring_saving_says_so_and_a_session_key_works(qtbot, screenshots_dir):
    keys = KeyStore()
    dialog = KeysDialog(keys)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.key_field.echoMode() == QLineEdit.EchoMode.Password
    assert dialog.in_use.text() == "none set"
    assert "no keyring" in dialog.status.text()

    dialog.key_field.setText(KEY)
    dialog.save_button.click()
    assert dialog.notice.isVisible() and dialog.session_button.isVisible()
    notice = dialog.notice_text.text()
    assert "no keyring" in notice and "FLASHBACK_API_KEY" in notice and "OPENROUTER_API_KEY" in notice
    assert keys.source("openrouter") is None  # nothing was stored anywhere
    dialog.grab().save(str(screenshots_dir / "keys_dialog.png"))

    dialog.session_button.click()
    assert keys.source("openrouter") == "session" and keys.get("openrouter") == KEY
    assert dialog.key_field.text() == "" and not dialog.notice.isVisible()
    assert dialog.in_use.text() == "…WXYZ for this session only"
    _assert_key_not_shown(dialog)

    dialog.forget_button.click()
    assert keys.source("openrouter") is None and dialog.in_use.text() == "none set"


def test_with_a_keyring_the_key_is_saved_there(qtbot):
    keyring.set_keyring(MemoryKeyring())
    keys = KeyStore()
    dialog = KeysDialog(keys, provider="openai")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.key_field.setText(KEY)
    dialog.save_button.click()
    assert keys.source("openai") == "keyring" and keys.source("openrouter") is None
    assert dialog.in_use.text() == "…WXYZ from the system keyring"
    assert not dialog.notice.isVisible()
    _assert_key_not_shown(dialog)


def test_an_environment_key_is_named_but_masked(qtbot, monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    dialog = KeysDialog(KeyStore())
    qtbot.addWidget(dialog)
    assert dialog.in_use.text() == "…WXYZ from an environment variable (FLASHBACK_API_KEY, OPENROUTER_API_KEY)"
    assert not dialog.forget_button.isEnabled()  # an environment variable is not ours to forget


def _assert_key_not_shown(dialog: KeysDialog) -> None:
    texts = [label.text() for label in (dialog.in_use, dialog.status, dialog.notice_text)]
    texts += [widget.toolTip() for widget in dialog.findChildren(QLineEdit)]
    assert not any(KEY in text or KEY[:12] in text for text in texts)


# -- languages --------------------------------------------------------------------------------
def test_the_russian_translation_loads_and_applies(qtbot):
    app = QApplication.instance()
    translators = i18n.install(app, "ru")
    try:
        assert translators, "resources/i18n/flashback_ru.qm did not load"
        empty = EmptyState(demo_available=True)
        qtbot.addWidget(empty)
        assert empty.title.text() == "Пока нет чатов"
        assert empty.demo_button.text() == "Открыть демо"
        dialog = KeysDialog(KeyStore())
        qtbot.addWidget(dialog)
        assert dialog.windowTitle() == "API-ключ"
        assert QCoreApplication.translate("WindowActions", "&Memory") == "&Память"
    finally:
        i18n.uninstall(app, translators)
    assert EmptyState(demo_available=False).title.text() == "No chats yet"


def test_the_system_language_is_followed_when_we_have_it():
    assert i18n.resolve("system", QLocale("ru_RU")) == "ru"
    assert i18n.resolve("system", QLocale("de_DE")) == "en"
    assert i18n.resolve("en", QLocale("ru_RU")) == "en"
    assert i18n.saved_choice() == "system"


def test_every_string_in_the_russian_catalogue_is_translated():
    catalogue = ET.parse(CATALOGUE).getroot()
    messages = catalogue.findall("./context/message")
    assert len(messages) > 100
    untranslated = [m.findtext("source") for m in messages
                    if m.find("translation").get("type") in ("unfinished", "obsolete")
                    or not (m.findtext("translation") or "").strip()]
    assert untranslated == []
    assert resources.translation("ru").stat().st_size > 1000


def test_the_language_menu_remembers_the_choice(qtbot, tmp_path):
    window = MainWindow(Flashback(tmp_path / "data"), KeyStore())
    qtbot.addWidget(window)
    russian = next(action for action in window.window_actions.language.actions() if action.data() == "ru")
    russian.trigger()
    assert QSettings().value(i18n.SETTING) == "ru" and i18n.saved_choice() == "ru"
    boxes = [box for box in window.findChildren(QMessageBox) if box.isVisible()]
    assert boxes and "restart" in boxes[0].text()


# -- run history ------------------------------------------------------------------------------
def test_run_history_lists_runs_shows_one_and_reruns_it(qtbot, tmp_path, screenshots_dir):
    service = Flashback(tmp_path / "data")
    service.imports.import_path(DEMO_EXPORT)
    service.memory.build()
    threshold = make_reranker("threshold")
    for query in ("hotel in Lisbon", "прививка для кота"):
        assert service.search.search_sync(SearchRequest(query, reranker=threshold, record=True)).run_id is not None

    window = MainWindow(service, KeyStore(), demo_export=DEMO_EXPORT)
    qtbot.addWidget(window)
    window.show()
    history = window.history
    qtbot.waitUntil(lambda: history.runs.topLevelItemCount() == 2)
    qtbot.waitUntil(lambda: history.metrics.text().startswith("2 runs"))
    window.history_dock.raise_()
    history.runs.setCurrentItem(history.runs.topLevelItem(1))  # the older one: Lisbon
    qtbot.waitUntil(history.rerun_button.isEnabled)
    detail = history.detail.toPlainText()
    assert "hotel in Lisbon" in detail and "Selected" in detail and "Candidates" in detail
    window.grab().save(str(screenshots_dir / "run_history.png"))

    reruns = []
    window.search_panel.rerun = lambda settings, query: reruns.append((settings, query))
    history.rerun_button.click()
    assert reruns and reruns[0][1] == "hotel in Lisbon"
    assert reruns[0][0]["reranker"]["name"] == "threshold"

    service.search.search_sync(SearchRequest("Postgres upgrade", reranker=threshold, record=True))
    window.search_panel.run_recorded.emit(3)  # what the panel says after a recorded search
    qtbot.waitUntil(lambda: history.runs.topLevelItemCount() == 3)
