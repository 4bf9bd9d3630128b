"""The window's settings (language, layout, search settings) live in the data folder's one
settings file, which the engine reads and writes for every face; an older window's file in
~/.config is copied in once when the default data folder is used. Checked in a real process
without a display (offscreen Qt)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine.api import read_settings, settings_path
from tests.cli_run import ROOT

SCRIPT = """
import sys
from pathlib import Path
from PySide6.QtCore import QSettings
from app.gui import create_app
from app.saved_settings import settings_file
from ui import i18n

data, named = Path(sys.argv[1]), sys.argv[2] == "named"
settings_file(data, named)
create_app(data, copy_native_settings=not named)
print(i18n.saved_choice())
i18n.save_choice("ru")
QSettings().setValue("window/geometry", "kept")
settings = QSettings()
settings.sync()
print(settings.fileName())
"""


def _start(tmp_path: Path, named: bool) -> tuple[str, Path, Path]:
    """(the language read at start, the file QSettings keeps, the data folder)."""
    home, data = tmp_path / "home", tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_") and k != "FLASHBACK_DATA_DIR"}
    env.update(HOME=str(home), QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(data), "named" if named else "default"], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    read_at_start, written = result.stdout.strip().splitlines()[-2:]
    return read_at_start, Path(written), data


def test_a_named_data_folder_holds_the_one_settings_file(tmp_path):
    _, written, data = _start(tmp_path, named=True)
    assert written == settings_path(data)
    assert read_settings(written).language == "ru" and "geometry=kept" in written.read_text()
    assert not (tmp_path / "home" / ".config").exists()


def test_the_default_data_folder_takes_an_older_config_file_once(tmp_path):
    legacy = tmp_path / "home" / ".config" / "Flashback" / "Flashback.conf"
    legacy.parent.mkdir(parents=True)
    legacy.write_text("[search]\ngap=0.2\n\n[ui]\nlanguage=en\n", encoding="utf-8")
    read_at_start, written, data = _start(tmp_path, named=False)
    assert read_at_start == "en" and written == settings_path(data)
    saved = read_settings(written)
    assert (saved.gap, saved.language) == (0.2, "ru")  # copied, then changed in the new file only
    assert "language=en" in legacy.read_text()
    legacy.write_text("[search]\ngap=0.9\n", encoding="utf-8")  # copied once: a later change stays there
    _start(tmp_path, named=False)
    assert read_settings(written).gap == 0.2
