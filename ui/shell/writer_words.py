"""Who writes the store, in the window's language.

The engine's `LockHolder.describe()` speaks English for the CLI and the logs; the window
says the same from the holder's fields, so a Russian window does not show "the import in
another Flashback window" in the middle of a Russian sentence.
"""

from __future__ import annotations

import os
from datetime import datetime

from PySide6.QtCore import QCoreApplication

from engine.store.lock import LockHolder

translate = QCoreApplication.translate  # lupdate reads `translate("WriterWords", "…")` calls


def _operation(name: str) -> str:
    words = {"import": translate("WriterWords", "the import"),
             "build": translate("WriterWords", "the build"),
             "check": translate("WriterWords", "the store check"),
             "schema": translate("WriterWords", "the store set-up"),
             "labels": translate("WriterWords", "saving labels")}
    return words.get(name, translate("WriterWords", "a write"))


def writer_words(holder: LockHolder) -> str:
    """"the import in another Flashback window (pid 4242, since 14:02:10)"."""
    operation = _operation(holder.operation)
    if holder.pid == os.getpid():
        who = translate("WriterWords", "{operation} in this window").format(operation=operation)
    elif holder.origin == "window":
        who = translate("WriterWords", "{operation} in another Flashback window").format(operation=operation)
    elif holder.origin == "command":
        who = translate("WriterWords", "`flashback {command}` in another terminal").format(command=holder.operation)
    else:
        who = translate("WriterWords", "{operation} in another Flashback process").format(operation=operation)
    if not holder.pid:
        return who
    since = datetime.fromtimestamp(holder.since).strftime("%H:%M:%S") if holder.since else "?"
    return translate("WriterWords", "{who} (pid {pid}, since {since})").format(who=who, pid=holder.pid, since=since)


def holder_from_dict(fields: dict | None) -> LockHolder | None:
    """A holder sent over the import child's JSON lines (`Step.holder`)."""
    if not fields:
        return None
    try:
        return LockHolder(int(fields["pid"]), str(fields["operation"]), str(fields.get("origin", "")),
                          float(fields.get("since", 0.0)))
    except (KeyError, TypeError, ValueError):
        return None
