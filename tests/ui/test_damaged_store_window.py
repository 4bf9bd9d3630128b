"""A damaged store in the window (issue 23, finding 5): one sentence with what to do, the
one `flashback` itself says (engine/store/faults.py, `StoreDamaged`), instead of an
"internal error (DatabaseError)" dialog per list that failed and tracebacks on the terminal.

Real damage: random bytes over the `chat` table's pages of a built store, so the window
opens (the schema is intact) and every read that touches chats meets it. A store that is
not a database at all cannot be opened: the window says so in a dialog, not on stderr."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring
from PySide6.QtWidgets import QMessageBox

from app.keys import KeyStore
from engine.api import Flashback
from engine.store.database import db_path
from tests.cli_run import ROOT
from tests.ui.conftest import settle_background_work, write_jsonl
from ui.main_window import MainWindow

ADVICE = "run `flashback check` to see what can be repaired, or import your exports into a new data folder"


def damage_table(data: Path, table: str) -> None:
    """Random bytes over every leaf page of `table` (found with SQLite's dbstat)."""
    path = db_path(data)
    with sqlite3.connect(path) as connection:
        size = connection.execute("PRAGMA page_size").fetchone()[0]
        pages = [row[0] for row in connection.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'", (table,))]
    connection.close()
    assert pages, f"no pages of {table}"
    with open(path, "r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * size)
            handle.write(os.urandom(size))


@pytest.fixture
def damaged_store(tmp_path) -> Path:
    data = tmp_path / "data"
    service = Flashback(data)
    service.imports.import_path(write_jsonl(tmp_path / "chats.jsonl", 300))
    service.memory.build()
    damage_table(data, "chat")
    return data


@pytest.fixture(autouse=True)
def _no_keyring(qapp):
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    yield
    keyring.set_keyring(previous)


def test_a_damaged_store_is_one_sentence_with_what_to_do(qtbot, damaged_store, capfd):
    window = MainWindow(Flashback(damaged_store), KeyStore())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: bool(window.findChildren(QMessageBox)), timeout=15_000)
    settle_background_work(qtbot)  # every list the window reads at start has answered
    boxes = [box for box in window.findChildren(QMessageBox) if box.isVisible()]
    assert len(boxes) == 1, [box.text() for box in boxes]
    text = boxes[0].text()
    assert text.startswith(f"The store in {damaged_store} is damaged") and ADVICE in text, text
    assert "internal error" not in text and "DatabaseError" not in text
    assert "Traceback" not in capfd.readouterr().err


WINDOW = """
import json, sys
from pathlib import Path
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from app.gui import create_app, open_window

data = Path(sys.argv[1])
app = create_app(data)
said, window = [], None

def look():
    if window is None:  # the store could not even be opened: its dialog is what was said
        modal = QApplication.activeModalWidget()
        said.append(modal.text())
        modal.done(0)
        return
    boxes = [w for w in app.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    said.extend(box.text() for box in boxes)
    app.quit()

QTimer.singleShot(4000, look)
window = open_window(data, settings_in_data_dir=True)
if window is not None:
    app.exec()
sys.stdout.write(json.dumps(said) + "\\n")
"""


def run_window(tmp_path: Path, data: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "QT_"))}
    env.update(HOME=str(tmp_path / "home"), QT_QPA_PLATFORM="offscreen",
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    return subprocess.run([sys.executable, "-c", WINDOW, str(data)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_window_process_prints_nothing_for_a_damaged_store(tmp_path, damaged_store):
    result = run_window(tmp_path, damaged_store)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    said = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(said) == 1 and ADVICE in said[0], said


def test_a_store_that_is_not_a_database_is_said_in_a_dialog(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    db_path(data).write_bytes(os.urandom(64 * 1024))
    result = run_window(tmp_path, data)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    said = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(said) == 1 and str(db_path(data)) in said[0] and "damaged" in said[0], said
    assert "not a database" in (data / "logs" / "flashback.log").read_text(encoding="utf-8")
