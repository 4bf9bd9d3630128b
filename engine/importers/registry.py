"""The importers by format name, and the guard that turns parser bugs into import errors.

Kept apart from `service` (which pulls in the store and SQLAlchemy) so the parse child
(`engine.importers.worker`) can import it cheaply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from engine.errors import EngineError, ImportFormatError
from engine.importers.base import Importer
from engine.importers.inputs import ExportInput
from engine.importers.records import ChatRecord, MessageRecord


def importer_classes() -> dict[str, type[Importer]]:
    # Imported here so a broken optional importer cannot break `engine` at import time.
    from engine.importers.chatgpt import ChatGPTImporter
    from engine.importers.jsonl import JsonlImporter
    from engine.importers.telegram import TelegramImporter
    from engine.importers.whatsapp import WhatsAppImporter

    # Order matters: the most specific sniffers first.
    return {cls.format_name: cls for cls in (ChatGPTImporter, TelegramImporter, JsonlImporter, WhatsAppImporter)}


def guarded(importer: Importer, export: ExportInput,
            report_bytes: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
    """Turn any unexpected exception from a parser into a plain-words import error."""
    where = None
    try:
        for record in importer.parse(export, report_bytes):
            if type(record) is MessageRecord:
                where = record.where
            yield record
    except EngineError:
        raise
    except Exception as exc:  # a parser bug must not reach the user as a traceback
        raise unexpected_structure(export, exc, where) from exc


def unexpected_structure(export: ExportInput, exc: BaseException, where: str | None) -> ImportFormatError:
    return ImportFormatError(
        export.display_name, f"the file has a structure Flashback did not expect ({type(exc).__name__})", where
    )
