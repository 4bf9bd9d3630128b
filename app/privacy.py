"""Keeping the data folder private: a person's whole chat history, often on a shared machine.

Three layers, each covering what the one before it cannot:

- `private_umask()` at CLI and GUI start (umask 0o077): every file the process makes is
  0600 and every folder 0700, whoever writes it (SQLite's WAL/SHM, hnswlib's saves, the
  calibration and IDF files, the log, an import child process, which inherits it);
- the engine creates the data folder 0700 and the store 0600 itself
  (`engine.store.database.open_engine`), so a store made by any caller is private;
- `tighten(data_dir)` narrows a folder made by an older Flashback or copied in with wider
  modes, and says so once: the next time there is nothing left to narrow.

A file the user names (`export -o FILE`, the window's saved context and labels) is chat text
too: it is written 0600 whatever the umask (`engine.files.write_private`, issue 35: it used to
follow the user's umask, 0644, or 0666 under umask 000). Sharing it is a `chmod` away.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_UMASK = 0o077
FOLDER_MODE = 0o700
FILE_MODE = 0o600
# What Flashback itself keeps in the data folder; a folder holding anything else is not
# ours alone (someone pointed --data-dir at ~/Documents), so only our files are narrowed.
OWN_NAMES = ("flashback.sqlite3", "index", "logs", "Flashback")


def private_umask() -> None:
    """Make every file this process creates private from here on."""
    os.umask(PRIVATE_UMASK)


def _ours(name: str) -> bool:
    return any(name == own or name.startswith(own + "-") for own in OWN_NAMES)


def _narrow(path: Path, mode: int) -> bool:
    """chmod `path` to `mode` when it grants more than that; True when it did."""
    try:
        found = path.lstat()  # once: a SQLite -shm or -wal file goes when another process closes the store
    except OSError:
        return False
    current = stat.S_IMODE(found.st_mode)
    if stat.S_ISLNK(found.st_mode) or not current & ~mode:
        return False  # never follow a link out of the folder; already private
    try:
        os.chmod(path, current & mode)
    except OSError:
        return False  # not ours to change (another owner): nothing more to do from here
    return True


def tighten(data_dir: Path) -> str | None:
    """Narrow an existing data folder and Flashback's files in it; one sentence for the user
    when anything was wider than private, else None (so it is said only once)."""
    data_dir = Path(data_dir)
    if os.name != "posix" or not data_dir.is_dir():
        return None  # Windows: the per-user folder's ACL already keeps others out
    entries = list(data_dir.iterdir())
    changed = 0
    for entry in entries:
        if not _ours(entry.name):
            continue
        if entry.is_dir() and not entry.is_symlink():
            changed += _narrow(entry, FOLDER_MODE)
            try:
                for inner in entry.rglob("*"):
                    changed += _narrow(inner, FOLDER_MODE if inner.is_dir() else FILE_MODE)
            except OSError:
                pass  # a folder that went while it was walked (an index save's temp): nothing left to narrow
        else:
            changed += _narrow(entry, FILE_MODE)
    only_ours = all(_ours(entry.name) for entry in entries)
    folder_changed = _narrow(data_dir, FOLDER_MODE) if only_ours else False
    if folder_changed:
        return f"made the data folder {data_dir} readable by you alone (it was open to others)"
    if changed and only_ours:
        return f"made Flashback's files in {data_dir} readable by you alone (they were open to others)"
    if changed:
        return (f"made Flashback's files in {data_dir} readable by you alone; the folder itself holds "
                "other files and was left as it is")
    return None
