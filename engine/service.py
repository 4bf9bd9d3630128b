"""The one object the UI (and anything else) calls: Flashback's engine behind a small API.

Methods are blocking and thread-safe to call from a worker; the UI runs them off the GUI
thread through `ui.tasks` and gets results back by signal.
"""

from __future__ import annotations

from pathlib import Path

from engine.importers.base import CancelToken, ProgressCallback
from engine.importers.service import ImportReport, import_path
from engine.store.database import open_engine
from engine.store.stats import StoreStats, store_stats


class FlashbackService:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        open_engine(self.data_dir).dispose()  # fail early (and clearly) on an unusable store

    def stats(self) -> StoreStats:
        return store_stats(self.data_dir)

    def import_path(
        self,
        path: Path,
        format_name: str = "auto",
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> ImportReport:
        return import_path(self.data_dir, Path(path), format_name, on_progress, cancel)
