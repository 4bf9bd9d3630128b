"""The saved settings as the MCP server reads them: the engine's one record (`UserSettings`, read
from the data folder's settings file by the engine, as the window and the CLI read it), with
where it came from, read again when the file changes, so what the person tunes in the window
applies to an assistant's next call.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path

from app.saved_settings import settings_file
from engine.api import RetrievalSettings, UserSettings, read_settings

__all__ = ["SavedSettings", "SettingsWatcher", "load", "settings_file"]
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SavedSettings(UserSettings):
    """The saved settings and the file they were read from ("" for the defaults)."""

    source: str = ""

    def retrieval(self, chat_ids: tuple[int, ...] = (), date_from: float | None = None,
                  date_to: float | None = None) -> RetrievalSettings:
        return RetrievalSettings(candidates=self.candidates, hybrid=self.hybrid, chat_ids=chat_ids,
                                 date_from=date_from, date_to=date_to)


def load(path: Path | None) -> SavedSettings:
    if path is None or not path.is_file():
        return SavedSettings()
    return replace(read_settings(path, SavedSettings), source=str(path))


class SettingsWatcher:
    """The saved settings, read again whenever the file's modification time or size changes."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._stamp: tuple[float, int] | None = None
        self._settings = SavedSettings()

    def current(self) -> SavedSettings:
        if self.path is None:
            return self._settings
        try:
            status = self.path.stat()
            stamp: tuple[float, int] | None = (status.st_mtime, status.st_size)
        except OSError:
            stamp = None
        if stamp != self._stamp:
            self._stamp = stamp
            self._settings = load(self.path) if stamp is not None else SavedSettings()
            log.info("search settings %s", f"read from {self.path}" if self._settings.source else "at their defaults")
        return self._settings
