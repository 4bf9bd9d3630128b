"""The store as a whole: counts, who writes it, what changed since the face last looked, and
imports (the writes that bring messages in)."""

from __future__ import annotations

from pathlib import Path

from engine.api.context import StoreContext
from engine.changes import Changes, ChangeToken, read_change_token
from engine.errors import CancelToken
from engine.importers.base import ProgressCallback
from engine.importers.runner import FORMATS, ImportReport, import_path
from engine.store.lock import LockHolder, WaitCallback, current_holder
from engine.store.stats import StoreStats, store_stats

IMPORT_CHANGES = Changes(messages=True, chats=True)


class StoreService:
    def __init__(self, context: StoreContext) -> None:
        self._context = context

    @property
    def data_dir(self) -> Path:
        return self._context.data_dir

    def stats(self) -> StoreStats:
        return store_stats(self._context.data_dir)

    def writer(self) -> LockHolder | None:
        """Who writes the store now (an import or build here or in another process), or None."""
        return current_holder(self._context.data_dir)

    def change_token(self) -> ChangeToken:
        """Moves when an import, build, run or label (in any process) changed the store: a few
        primary-key reads, cheap enough to poll. `token.changes_since(previous)` says what moved."""
        return self._context.read(read_change_token)

    def changes_since(self, previous: ChangeToken | None) -> tuple[Changes, ChangeToken]:
        """What changed since `previous` (everything for None), and the token to pass next time;
        the cached search state is dropped when vectors moved (another process built)."""
        token = self.change_token()
        changes = token.changes_since(previous)
        if changes.vectors:
            self._context.invalidate()
        return changes, token


class ImportService:
    formats = FORMATS

    def __init__(self, context: StoreContext) -> None:
        self._context = context

    def import_path(self, path: Path, format_name: str = "auto", on_progress: ProgressCallback | None = None,
                    cancel: CancelToken | None = None, on_wait: WaitCallback | None = None) -> ImportReport:
        """Import one file, folder or zip in one transaction (a broken export changes nothing).
        What it changed: `IMPORT_CHANGES` when `report` added anything."""
        context = self._context
        return import_path(context.data_dir, Path(path), format_name, on_progress, cancel, on_wait, context.origin)
