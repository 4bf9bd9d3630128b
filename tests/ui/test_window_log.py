"""The window writes the log its dialogs mention (issue 22): a real window process
(`app.gui.open_window`, what `flashback gui` runs before its event loop) without a display.
A bug shown as "internal error" and an exception no slot caught both end in
`<data>/logs/flashback.log` with their tracebacks and API keys scrubbed; the dialogs name
that file; nothing reaches the terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli_run import ROOT

KEY = "sk-or-v1-" + "7f3a" * 12  # in the planted errors' words: the log must not keep it

SCRIPT = """
import json, sys
from pathlib import Path
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from app.gui import open_window

window = open_window(Path(sys.argv[1]), settings_in_data_dir=True)
app = QApplication.instance()
key = sys.argv[2]

def bug_in_a_slot():
    raise ZeroDivisionError("planted bug in a slot, key " + key)

def bug_in_a_read():
    try:
        raise LookupError("planted bug in a read, key " + key)
    except LookupError as error:  # what a worker hands the window: raised, with its traceback
        window.browse.failed.emit(error)

def report():
    boxes = {box for box in app.topLevelWidgets() + window.findChildren(QMessageBox)
             if isinstance(box, QMessageBox) and box.isVisible()}
    sys.stdout.write(json.dumps(sorted(box.text() for box in boxes)) + "\\n")
    app.quit()

# A bug met by a read, shown by the window as an internal error (ui.shell.errors.show_error).
QTimer.singleShot(300, bug_in_a_read)
QTimer.singleShot(500, bug_in_a_slot)  # nothing catches this one: sys.excepthook
QTimer.singleShot(600, bug_in_a_slot)  # again while its dialog is open: logged, no second dialog
QTimer.singleShot(2500, report)
app.exec()
"""


def run_window(tmp_path: Path, data: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "QT_"))}
    env.update(HOME=str(tmp_path / "home"), QT_QPA_PLATFORM="offscreen", OPENROUTER_API_KEY=KEY,
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    return subprocess.run([sys.executable, "-c", SCRIPT, str(data), KEY], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_internal_errors_go_to_the_log_the_dialogs_name_and_never_to_the_terminal(tmp_path):
    data = tmp_path / "data"
    result = run_window(tmp_path, data)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no traceback, no logging fallback, not even Qt's own warnings

    log_file = data / "logs" / "flashback.log"
    boxes = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(boxes) == 2, boxes  # the read's error, and one for the two uncaught ones
    assert any("internal error (LookupError)" in text for text in boxes), boxes
    assert any("internal error (ZeroDivisionError)" in text for text in boxes), boxes
    assert all(str(log_file) in text for text in boxes), boxes

    logged = log_file.read_text(encoding="utf-8")
    assert oct(log_file.stat().st_mode & 0o777) == "0o600"
    assert "planted bug in a read" in logged and "planted bug in a slot" in logged
    assert logged.count("Traceback (most recent call last)") == 3, logged
    assert "in bug_in_a_slot\nZeroDivisionError" in logged  # the traceback, down to the function that raised
    assert KEY not in logged and "[redacted]" in logged
