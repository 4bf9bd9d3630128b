"""The window's settings (language, layout) live with the data folder when one is named,
instead of ~/.config: checked in a real process without a display (offscreen Qt)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.cli_run import ROOT

SCRIPT = """
import sys
from pathlib import Path
from PySide6.QtCore import QSettings
from app.gui import create_app
from ui import i18n

create_app(Path(sys.argv[1]) if sys.argv[1] else None)
i18n.save_choice("ru")
settings = QSettings()
settings.sync()
print(settings.fileName())
"""


def _settings_file(tmp_path: Path, data_dir: Path | None) -> tuple[Path, Path]:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(HOME=str(home), QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(data_dir or "")], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return Path(result.stdout.strip().splitlines()[-1]), home


def test_a_named_data_folder_holds_the_window_settings(tmp_path):
    data = tmp_path / "data"
    written, home = _settings_file(tmp_path, data)
    assert written.is_relative_to(data) and "ru" in written.read_text()
    assert not (home / ".config").exists()


def test_the_default_data_folder_keeps_the_settings_in_the_users_config(tmp_path):
    written, home = _settings_file(tmp_path, None)
    assert written.is_relative_to(home / ".config") and written.exists()
