"""The window's saved search settings, shared with the command line (issue 23).

One place holds them: the window's QSettings, group "search" (ui/search/settings_model.py).
`flashback search`, `eval`, `export`, `ask` and `tune` take their defaults for the settings
the window shows (`SHARED`: candidates, hybrid, threshold, gap, top-K) from there, so what
the person set in the window, or what `flashback tune --save` wrote, is what a plain
`flashback search` uses; a flag on the command line still wins.

Where the file is, is app/gui.py's choice (`app.mcp_settings.settings_file`): an INI file in
the data folder when --data-dir or $FLASHBACK_DATA_DIR names one, else the platform's place,
an INI file too on Linux and the BSDs. An INI file is read and written here without Qt, in
the format QSettings' IniFormat reads (`[search]`, `key=value`, `true`/`false`); only the keys
written change, every other line stays as it was. On macOS (a plist) and Windows (the
registry) QtCore's QSettings does it, named as the window names itself (no window, no display).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from app.mcp_settings import GROUP, read_group, settings_file
from engine.api import SETTINGS

SHARED = ("candidates", "hybrid", "threshold", "gap", "top_k")


def location(data_dir: Path, in_data_dir: bool) -> Path | None:
    """The window's settings file, or None where they are not a file (macOS, Windows)."""
    return settings_file(data_dir, in_data_dir)


def _coerce(key: str, raw: Any) -> Any:
    spec = SETTINGS[key]
    if spec.kind is bool:
        return raw if isinstance(raw, bool) else str(raw).strip().lower() in ("true", "1", "yes")
    return spec.clamp(raw)  # as the window reads it: out of range → the nearest end


def saved_values(data_dir: Path, in_data_dir: bool) -> dict[str, Any]:
    """The `SHARED` settings the window saved (only those it saved), in the schema's types and ranges."""
    path = location(data_dir, in_data_dir)
    raw: dict[str, Any] = read_group(path) if path is not None else _qt_read()
    return {key: _coerce(key, raw[key]) for key in SHARED if key in raw}


def save_values(data_dir: Path, in_data_dir: bool, values: dict[str, Any]) -> str:
    """Write `values` (SHARED keys) where the window reads them; returns where, for the person."""
    checked = {key: SETTINGS[key].check(value) for key, value in values.items()}
    path = location(data_dir, in_data_dir)
    if path is None:
        return _qt_write(checked)
    write_group(path, GROUP, {key: _ini_value(value) for key, value in checked.items()})
    return str(path)


def _ini_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(round(value, 6))  # "0.42", as QSettings writes a double
    return str(value)


def write_group(path: Path, group: str, values: dict[str, str]) -> None:
    """Set `values` in `[group]` of the INI file at `path` (made if missing), atomically; keys
    already there are replaced where they stand, new ones follow the group's last key."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    out: list[str] = []
    pending = dict(values)
    in_group = found = False
    last_key_at = -1  # where the group's new keys go: after its last line that is not blank

    def flush() -> None:
        nonlocal pending
        at = last_key_at + 1
        out[at:at] = [f"{key}={value}" for key, value in pending.items()]
        pending = {}

    for line in lines:
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            if in_group:
                flush()
            in_group = stripped[1:-1].strip() == group
            found = found or in_group
            out.append(line)
            last_key_at = len(out) - 1
            continue
        if in_group and "=" in stripped and not stripped.startswith((";", "#")):
            key = stripped.partition("=")[0].strip()
            if key in pending:
                line = f"{key}={pending.pop(key)}"
        out.append(line)
        if in_group and stripped:
            last_key_at = len(out) - 1
    if in_group:
        flush()
    if not found:
        if out and out[-1].strip():
            out.append("")
        out.append(f"[{group}]")
        out.extend(f"{key}={value}" for key, value in values.items())
    _replace(path, "\n".join(out) + "\n")


def _replace(path: Path, text: str) -> None:
    """Write the whole file at once: the window (or another command) never reads half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _qt_settings():
    """The window's own QSettings (the names app/gui.py gives the application), with no window."""
    from PySide6.QtCore import QCoreApplication, QSettings

    QCoreApplication.setApplicationName("Flashback")
    QCoreApplication.setOrganizationName("Flashback")
    QCoreApplication.setOrganizationDomain("flashback.local")
    return QSettings()


def _qt_read() -> dict[str, Any]:
    if sys.platform not in ("darwin", "win32"):
        return {}  # settings_file covers every platform whose window keeps an INI file
    store = _qt_settings()
    return {key: store.value(f"{GROUP}/{key}") for key in SHARED if store.contains(f"{GROUP}/{key}")}


def _qt_write(values: dict[str, Any]) -> str:
    store = _qt_settings()
    for key, value in values.items():
        store.setValue(f"{GROUP}/{key}", value)
    store.sync()
    return store.fileName()
