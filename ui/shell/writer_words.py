"""Who writes the store, in the window's language.

The engine says who holds the store's write lock as a message code (`LockHolder.message()`:
the operation, where it runs, its pid and since when); the window renders it in its own
language, so a Russian window does not show "the import in another Flashback window" in the
middle of a Russian sentence.
"""

from __future__ import annotations

from engine.api import LockHolder
from ui.i18n import engine_words


def writer_words(holder: LockHolder) -> str:
    """"the import in another Flashback window (pid 4242, since 14:02:10)"."""
    return engine_words(holder.message())

