"""One exception base for the engine layer; messages are written for the person using the app."""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class ImportFormatError(EngineError):
    """An export could not be read. Says which file and where, in plain words."""

    def __init__(self, source: str, problem: str, where: str | None = None) -> None:
        self.source = source
        self.problem = problem
        self.where = where
        location = f" ({where})" if where else ""
        super().__init__(f"Could not import {source}{location}: {problem}")


class UnknownFormatError(ImportFormatError):
    """Nothing in the given path looks like a supported chat export."""


class ImportCancelled(EngineError):
    """The user cancelled an import; the store was left as it was."""

    def __init__(self) -> None:
        super().__init__("Import cancelled; nothing was changed.")


class StoreError(EngineError):
    """The local database cannot be opened or is from a newer Flashback."""
