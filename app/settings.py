"""Where Flashback keeps its data: `--data-dir`, else `FLASHBACK_DATA_DIR`, else the OS's
per-user data folder (platformdirs: ~/.local/share/flashback on Linux)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "flashback"


def resolve_data_dir(cli_value: str | os.PathLike | None = None) -> Path:
    if cli_value:
        return Path(cli_value).expanduser()
    env_value = os.environ.get("FLASHBACK_DATA_DIR")
    if env_value:
        return Path(env_value).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def data_dir_given(cli_value: str | os.PathLike | None = None) -> bool:
    """True when the user named the data folder (flag or environment) rather than taking the
    OS default: the window's settings then live in it too (app.gui.create_app)."""
    return bool(cli_value or os.environ.get("FLASHBACK_DATA_DIR"))


# Commands that only read the store: pointed at a folder without one (a mistyped --data-dir),
# they refuse instead of making an empty store there and searching it (issue 31).
READING_COMMANDS = frozenset({"search", "ask", "chats", "mcp", "export", "runs", "stats", "eval"})
STORE_FILE = "flashback.sqlite3"  # engine.store's name for it; app/privacy.OWN_NAMES lists it too


def holds_store(data_dir: Path) -> bool:
    return (Path(data_dir) / STORE_FILE).is_file()
