"""The settings file the window's QSettings keeps: the one the engine reads and writes for every
face (app/gui.py points QSettings at the data folder's INI file before any exists)."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QSettings


def settings_file(store: QSettings | None = None) -> Path:
    """The INI file behind `store` (default: `QSettings()`), its pending writes flushed first:
    the engine replaces the file whole. ValueError where it is not a file (a plist, the registry)."""
    store = store if store is not None else QSettings()
    ini = store.format() == QSettings.Format.IniFormat or (
        store.format() == QSettings.Format.NativeFormat and sys.platform not in ("darwin", "win32"))
    if not ini:
        raise ValueError(f"the window's settings must be an INI file, not {store.fileName()!r}")
    store.sync()
    return Path(store.fileName())
