"""The importers by format name, and the guard between a parser and the person importing.

A parser meets a file nobody checked: bad bytes, broken JSON, nesting deeper than Python
recurses. Those are *known* parse failures (`KNOWN_PARSE_FAILURES`) and become an
`ImportFormatError` ("the file has a structure Flashback did not expect"). Anything else
(a KeyError, a TypeError, …) is a bug in the parser: it must not tell the person their file
is damaged, so it is raised as `ParserBug` (not an `EngineError`), which the CLI and the
window report as an internal error with the log to attach; the fuzz tests fail on it.

Kept apart from `service` (which pulls in the store and SQLAlchemy) so the parse child
(`engine.importers.parse_child`) can import it cheaply.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterator

from engine.errors import EngineError, ImportFormatError
from engine.importers.base import Importer
from engine.importers.inputs import ExportInput
from engine.importers.records import ChatRecord, MessageRecord
from engine.messages import msg

# What malformed input makes the standard library raise: ValueError covers JSON syntax
# (json.JSONDecodeError), bad dates and numbers, UnicodeDecodeError; RecursionError is JSON
# nested deeper than the parser recurses; EOFError and BadZipFile are cut or broken archives.
KNOWN_PARSE_FAILURES: tuple[type[BaseException], ...] = (
    ValueError, UnicodeError, RecursionError, EOFError, zipfile.BadZipFile)


class ParserBug(RuntimeError):
    """A parser raised something no malformed file explains: a bug to report, not the file's fault."""

    def __init__(self, source: str, format_name: str, detail: str, where: str | None = None) -> None:
        self.source, self.format_name, self.detail, self.where = source, format_name, detail, where
        location = f" ({where})" if where else ""
        super().__init__(f"the {format_name} reader failed on {source}{location}: {detail}")


def importer_classes() -> dict[str, type[Importer]]:
    # Imported here so a broken optional importer cannot break `engine` at import time.
    from engine.importers.chatgpt import ChatGPTImporter
    from engine.importers.discord import DiscordImporter
    from engine.importers.imessage import IMessageImporter
    from engine.importers.jsonl import JsonlImporter
    from engine.importers.line import LineImporter
    from engine.importers.messenger import MessengerImporter
    from engine.importers.signal import SignalImporter
    from engine.importers.slack import SlackImporter
    from engine.importers.telegram import TelegramImporter
    from engine.importers.whatsapp import WhatsAppImporter

    # Order matters: the most specific sniffers first. Discord's and Messenger's files also have
    # the "messages" key Telegram's sniffer looks for; Signal's Markdown can look like a WhatsApp
    # layout (`[2024-05-01 10:00:00] Name: text`), so its stricter sniffer goes before WhatsApp's.
    return {cls.format_name: cls for cls in (ChatGPTImporter, DiscordImporter, MessengerImporter, SlackImporter,
                                             TelegramImporter, JsonlImporter, SignalImporter, IMessageImporter,
                                             LineImporter, WhatsAppImporter)}


def guarded(importer: Importer, export: ExportInput,
            report_bytes: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
    """A parser's records; a known parse failure as an import error, anything else as `ParserBug`."""
    where = None
    try:
        for record in importer.parse(export, report_bytes):
            if type(record) is MessageRecord:
                where = record.where
            yield record
    except EngineError:
        raise
    except KNOWN_PARSE_FAILURES as exc:
        raise unexpected_structure(export, exc, where) from exc
    except Exception as exc:
        raise parser_bug(export, importer.format_name, exc, where) from exc


def parser_bug(export: ExportInput, format_name: str, exc: BaseException, where: str | None) -> ParserBug:
    return ParserBug(export.display_name, format_name, f"{type(exc).__name__}: {exc}"[:300], where)


def unexpected_structure(export: ExportInput, exc: BaseException, where: str | None) -> ImportFormatError:
    # `where` is the last record's own (English) place: a record keeps text, not a code (the hot path)
    return ImportFormatError(export.display_name, msg("import.problem.unexpected_structure",
                                                      error=type(exc).__name__), where)
