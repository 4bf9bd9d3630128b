"""Issue 23: Browse → right-click a chat → "Forget this chat…" in the real window.

The confirmation names what goes (messages, topics) before anything is removed; Cancel keeps
everything; Forget runs in a worker, and the window's lists, counts and searches follow the
Changes it returns. A store another process writes is refused in one sentence."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring
from PySide6.QtWidgets import QApplication, QMessageBox

from app.keys import KeyStore
from engine.api import Flashback
from tests.ui.conftest import settle_background_work, watcher_has_looked
from ui.main_window import MainWindow
from ui.shell.browse import ID_ROLE

ROOT = Path(__file__).resolve().parents[2]
ALICE = "".join(f"[03/02/2024, 10:{n:02d}:00] {who}: {text}\n" for n, (who, text) in enumerate([
    ("Alice", "Did you book the ferry to Zanzibar?"), ("Me", "Yes, the Zanzibar ferry on Friday"),
    ("Alice", "Bring the snorkel"), ("Me", "Packed"), ("Alice", "See you at the pier")]))
BOB = "".join(f"04/02/2024, 10:{n:02d} - {who}: {text}\n" for n, (who, text) in enumerate([
    ("Bob", "The quarterly report is late"), ("Me", "Tonight, promised")]))


@pytest.fixture(autouse=True)
def _no_keyring():
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def window(qtbot, tmp_path) -> MainWindow:
    exports = tmp_path / "WhatsApp Chat - Alice"
    exports.mkdir()
    (exports / "_chat.txt").write_text(ALICE, encoding="utf-8")
    (tmp_path / "WhatsApp Chat with Bob.txt").write_text(BOB, encoding="utf-8")
    service = Flashback(tmp_path / "data", origin="window")
    service.imports.import_path(exports)
    service.imports.import_path(tmp_path / "WhatsApp Chat with Bob.txt")
    service.memory.build()
    window = MainWindow(service, KeyStore())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.browse.chats.topLevelItemCount() == 2)
    return window


def chat_item(window: MainWindow, name: str):
    tree = window.browse.chats
    return next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).text(0) == name)


def confirmation(qtbot, window: MainWindow, name: str) -> QMessageBox:
    menu = window.browse.chat_menu(chat_item(window, name))
    [forget] = menu.actions()
    assert forget.text() == "Forget this chat…" and forget.isEnabled()
    forget.trigger()
    qtbot.waitUntil(lambda: any(box.isVisible() for box in window.browse.findChildren(QMessageBox,
                                                                                     "forget_confirmation")))
    return next(box for box in window.browse.findChildren(QMessageBox, "forget_confirmation") if box.isVisible())


def button(box: QMessageBox, text: str):
    return next(b for b in box.buttons() if b.text().replace("&", "") == text)


def test_forgetting_a_chat_asks_naming_what_goes_then_removes_it(qtbot, window):
    service = window._service
    box = confirmation(qtbot, window, "Alice")
    assert "“Alice”" in box.text() and "5 messages" in box.text() and "1 topic" in box.text()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    box.button(QMessageBox.StandardButton.Cancel).click()
    settle_background_work(qtbot)  # a forget the click had started would have ended by now
    assert {chat.name for chat in service.browse.chats()} == {"Alice", "Bob"}  # Cancel keeps everything

    box = confirmation(qtbot, window, "Alice")
    button(box, "Forget").click()
    qtbot.waitUntil(lambda: window.browse.chats.topLevelItemCount() == 1, timeout=30_000)
    assert chat_item(window, "Bob").data(0, ID_ROLE) is not None
    qtbot.waitUntil(lambda: window.stats is not None and window.stats.chats == 1)
    done = [b for b in window.browse.findChildren(QMessageBox) if b.isVisible() and "Forgot Alice" in b.text()]
    assert done, [b.text() for b in window.browse.findChildren(QMessageBox)]
    assert "Alice" not in [window.browse.chat_filter.itemText(i) for i in range(window.browse.chat_filter.count())]
    assert all(c.chat != "Alice" for c in service.search.candidates("Zanzibar ferry").candidates)
    watcher_has_looked(qtbot, window.watcher)  # a poll after the forget: our own forget is not news
    assert "another Flashback process" not in window.statusBar().currentMessage()


_HOLD = "import sys, time\nfrom engine.store.lock import StoreWriteLock\n" \
        "with StoreWriteLock(sys.argv[1], 'import', 'command'):\n    print('held', flush=True)\n    time.sleep(60)\n"


def test_a_store_another_process_writes_refuses_in_one_sentence(qtbot, window):
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(window._service.data_dir)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        button(confirmation(qtbot, window, "Alice"), "Forget").click()
        qtbot.waitUntil(lambda: any(b.isVisible() and b.windowTitle() == "Could not forget the chat"
                                    for b in QApplication.topLevelWidgets() + window.browse.findChildren(QMessageBox)
                                    if isinstance(b, QMessageBox)), timeout=15_000)
    finally:
        holder.kill()
        holder.wait()
    error = next(b for b in window.browse.findChildren(QMessageBox) if b.windowTitle() == "Could not forget the chat")
    assert "`flashback import` in another terminal" in error.text() and "Traceback" not in error.text()
    assert error.text().count("\n") == 0
    assert {chat.name for chat in window._service.browse.chats()} == {"Alice", "Bob"}
