"""Issue 23, finding 3 in the window: a read-only data folder opens, searches and says so in
its status bar (the window printed the refusal on stderr and never opened; a launcher showed
nothing). The folder is a real read-only mount (`tests/test_read_only_store.py` explains)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from engine.api import Flashback
from tests.cli_run import DEMO, ROOT
from tests.test_read_only_store import read_only_folder  # noqa: F401 (the fixture)
from tests.ui.conftest import FakeKeys
from ui.main_window import MainWindow


def test_the_window_opens_searches_and_says_read_only_once(qtbot, read_only_folder):  # noqa: F811
    window = MainWindow(Flashback(read_only_folder), FakeKeys())
    qtbot.addWidget(window)
    window.show()
    said = window.read_only_label
    assert said.isVisible() and said.text().startswith("Read-only") and str(read_only_folder) in said.text()
    assert "not recorded" in said.text()
    qtbot.waitUntil(lambda: window.stats is not None, timeout=15_000)
    assert window.stats.messages == 434

    panel = window.search_panel
    panel.query.setText("hotel in Lisbon")
    panel.search()
    qtbot.waitUntil(lambda: panel.outcome() is not None and not panel.is_busy(), timeout=15_000)
    assert panel.outcome().result.selected  # the results, as from a writable folder
    assert "not recorded" not in panel.status.text()  # the status bar said it: once
    assert not [box for box in window.findChildren(QMessageBox) if box.isVisible()]


def test_import_and_build_in_the_window_refuse_in_one_sentence(qtbot, read_only_folder):  # noqa: F811
    window = MainWindow(Flashback(read_only_folder), FakeKeys())
    qtbot.addWidget(window)
    window.show()
    for start in (lambda: window.start_import(DEMO), window.start_build):
        assert start()
        qtbot.waitUntil(lambda: any(box.isVisible() for box in window.findChildren(QMessageBox)), timeout=60_000)
        boxes = [box for box in window.findChildren(QMessageBox) if box.isVisible()]
        assert len(boxes) == 1, [box.text() for box in boxes]
        text = boxes[0].text()
        assert text.startswith(f"The data folder {read_only_folder} is read-only"), text
        assert "importing and building need a folder you can write to" in text and "internal error" not in text
        boxes[0].done(0)
        qtbot.waitUntil(lambda: not window.imports.busy, timeout=30_000)


WINDOW = """
import json, sys
from pathlib import Path
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox
from app.gui import create_app, open_window

data = Path(sys.argv[1])
app = create_app(data)
seen = {"opened": False, "status": [], "dialogs": []}

def look():
    seen["opened"] = window is not None
    if window is not None:
        seen["status"] = [label.text() for label in window.statusBar().findChildren(QLabel) if label.isVisible()]
    seen["dialogs"] = [w.text() for w in app.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    modal = QApplication.activeModalWidget()
    if modal is not None:
        seen["dialogs"].append(modal.text())
        modal.done(0)
    app.quit()

QTimer.singleShot(4000, look)
window = open_window(data, settings_in_data_dir=True)
if window is not None:
    app.exec()
sys.stdout.write(json.dumps(seen) + "\\n")
"""


def test_the_window_process_opens_a_read_only_folder_silently(tmp_path, read_only_folder):  # noqa: F811
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "QT_"))}
    env.update(HOME=str(tmp_path / "home"), QT_QPA_PLATFORM="offscreen",
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    result = subprocess.run([sys.executable, "-c", WINDOW, str(read_only_folder)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    # Where the log file cannot be made, warnings go to stderr (app/crash.py): the offscreen
    # plugin's own one is Qt's, not the window's; nothing of Flashback's may be there.
    ours = [line for line in result.stderr.splitlines() if "propagateSizeHints" not in line]
    assert result.returncode == 0 and ours == [], result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["opened"] and not seen["dialogs"], seen
    assert any(text.startswith("Read-only") and str(Path(read_only_folder)) in text for text in seen["status"]), seen
