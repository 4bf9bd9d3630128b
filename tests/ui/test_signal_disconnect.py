"""Regression guard for PySide6 6.12.0 on Python 3.11: every SignalInstance.disconnect()
leaked a reference to True and the interpreter aborted with "Fatal Python error: bool_dealloc".

The cycles run in a subprocess so a crash is a failed test, not a dead test run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import PySide6

CYCLES = 2000
MARKER = "SIGNAL-DISCONNECT-OK"

_CODE = textwrap.dedent(f"""
    import sys
    from PySide6.QtCore import QCoreApplication, QObject, Signal

    class Emitter(QObject):
        fired = Signal(int)

    app = QCoreApplication.instance() or QCoreApplication([])
    emitter = Emitter()

    def slot(value):
        pass

    before = sys.getrefcount(True)
    for _ in range({CYCLES}):
        emitter.fired.connect(slot)
        emitter.fired.disconnect(slot)
        emitter.fired.connect(slot)
        emitter.fired.disconnect()
    after = sys.getrefcount(True)
    print(f"REFCOUNT {{before}} {{after}}")
    print("{MARKER}")
""")


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:2] if part.isdigit())


def test_many_disconnects_do_not_crash_or_leak_true():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run([sys.executable, "-c", _CODE], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"subprocess died ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    lines = result.stdout.splitlines()
    assert MARKER in lines, result.stdout + result.stderr
    refcount_line = next(line for line in lines if line.startswith("REFCOUNT "))
    before, after = (int(value) for value in refcount_line.split()[1:])
    # On 3.12+ True is immortal and the count is constant; on 3.11 a leak grows it by ~2 per cycle.
    assert after - before <= 100, f"sys.getrefcount(True) grew from {before} to {after} over {CYCLES} cycles"


def test_pyside6_is_not_the_broken_release_on_python_311():
    if sys.version_info >= (3, 12):
        return  # True is immortal there; the leak cannot crash
    assert _version_tuple(PySide6.__version__) != (6, 12), (
        f"PySide6 {PySide6.__version__} on Python {sys.version.split()[0]} crashes with bool_dealloc; "
        "pin PySide6-Essentials<6.12"
    )
