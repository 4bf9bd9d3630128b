"""Where the saved settings are for every face, and the command line's share of them (issue 23).

The engine reads and writes one settings file (`engine.api.settings_path`: the data folder's
`Flashback/Flashback.ini`); the window, the CLI and the MCP server all use it. An older
Flashback kept the window's settings in the platform's config folder unless a data folder was
named; the first face to start with the default data folder copies that file in once
(`settings_file`; on macOS and Windows, where it was a plist or the registry, the window does
it with Qt: app/gui.py).

`flashback search`, `eval`, `export`, `ask` and `tune` take their defaults for the settings
the window shows (`SHARED`) from the file, so what the person set in the window, or what
`flashback tune --save` wrote, is what a plain `flashback search` uses; a flag still wins.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.api import migrate_settings, read_settings, settings_path, write_settings

SHARED = ("candidates", "hybrid", "threshold", "gap", "top_k")


def legacy_file(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> Path | None:
    """Where an older window kept its settings without a named data folder, where that was an
    INI file (Linux and the BSDs: QSettings' native format); None elsewhere."""
    if platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        config = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        return Path(config) / "Flashback" / "Flashback.conf"
    return None


def settings_file(data_dir: Path, data_dir_named: bool, environ: Mapping[str, str] = os.environ,
                  platform: str = sys.platform) -> Path:
    """The settings file of `data_dir`; with the default data folder (not named by --data-dir or
    $FLASHBACK_DATA_DIR), the older config-folder file is copied in first if this one is new."""
    path = settings_path(data_dir)
    if not data_dir_named:
        migrate_settings(path, legacy_file(environ, platform))
    return path


def saved_values(data_dir: Path, data_dir_named: bool) -> dict[str, Any]:
    """The `SHARED` settings as saved (each its default where unsaved or not allowed)."""
    saved = read_settings(settings_file(data_dir, data_dir_named))
    return {key: getattr(saved, key) for key in SHARED}


def save_values(data_dir: Path, data_dir_named: bool, values: dict[str, Any]) -> str:
    """Write `values` (SHARED keys, checked by the schema) where every face reads them; returns where."""
    path = settings_file(data_dir, data_dir_named)
    write_settings(path, values)
    return str(path)
