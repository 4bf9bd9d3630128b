"""Run an import: resolve the path, detect each file's format by content, stream it into
the store inside one transaction, report progress, honour cancellation.

Big files are parsed in a child process (`engine.importers.parse_child`) while this thread
writes; small ones in-process. Both build rows with the same `RowBuilder`.

One PATH is one export (a file, a folder or a zip) and one transaction: if any file in
it fails, nothing of it is kept. The transaction is taken under the store's write lock
(`engine.store.lock`): an import waits for another import or build, saying for whom.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import CancelToken, ImportFormatError, UnknownFormatError
from engine.importers import parse_child
from engine.importers.base import ImportProgress, ProgressCallback
from engine.importers.chat_identity import ChatMatch
from engine.importers.formats import FORMATS, expected_messages
from engine.importers.groups import group_inputs, no_chat
from engine.importers.inputs import ExportInput, resolve_inputs
from engine.importers.records import ChatRecord, MessageRecord
from engine.importers.registry import guarded, importer_classes
from engine.importers.writer import ImportWriter
from engine.messages import Message, msg
from engine.progress import ProgressThrottle
from engine.store.database import db_path, open_store
from engine.store.faults import plain_faults
from engine.store.lock import StoreWriteLock, WaitCallback

_NAMES_SHOWN = 3  # stored chats named in a summary line; a whole account's export adds to hundreds
_PROGRESS_INTERVAL_S = 0.1


def detect_format(export: ExportInput) -> str | None:
    head = export.head()
    for name, cls in importer_classes().items():
        if cls.sniff(head):
            return name
    return None


@dataclass
class SourceReport:
    name: str
    format: str
    status: str  # imported | unchanged
    chats: int = 0
    messages_seen: int = 0
    messages_added: int = 0
    artifacts_added: int = 0
    messages_cut: int = 0  # texts longer than MAX_MESSAGE_CHARS, stored cut and marked
    messages_conflicting: int = 0  # an id already stored with another text: the first text was kept
    # Stored chats this file's messages went into: by their id or name, or recognised by their
    # first messages under another name (a renamed or re-downloaded WhatsApp export; issue 23).
    matched: list[ChatMatch] = field(default_factory=list)
    # What was read and not added, and why (issue 34: nothing silently lost): messages already
    # stored (a re-export, an overlap), and system lines, stored but kept out of topics.
    messages_already_stored: int = 0
    messages_service: int = 0
    # Entries the parser read and made no message of, by reason (`base.SKIP_REASONS`): ChatGPT's
    # hidden nodes (system prompts, tool calls, custom instructions), Telegram's unsupported ones.
    entries_skipped: dict[str, int] = field(default_factory=dict)

    def skipped_messages(self) -> list[Message]:
        """The counts a summary adds to "N new of M": what was not added or not made a topic, and why."""
        notes = []
        if self.messages_already_stored:
            notes.append(msg("import.skipped.duplicates", count=self.messages_already_stored))
        if self.messages_service:
            notes.append(msg("import.skipped.system", count=self.messages_service))
        notes += [msg(f"import.skipped.{reason}", count=count) for reason, count in self.entries_skipped.items()
                  if count]
        return notes

    def matched_message(self) -> Message | None:
        """Which stored chats this file went into, as one clause; None when it made only new ones."""
        recognised = [match.title for match in self.matched if match.by == "content"]
        if recognised:
            return msg("import.matched.content", chats=names_list(recognised))
        if not self.matched:
            return None
        return msg("import.matched.key", count=len(self.matched), chats=names_list([m.title for m in self.matched]))


def names_list(names: list[str]) -> str:
    """"Anna, Bob, Carol, …": the first few names of a list that may run to hundreds."""
    return ", ".join(names[:_NAMES_SHOWN]) + (", \u2026" if len(names) > _NAMES_SHOWN else "")


@dataclass
class ImportReport:
    path: str
    sources: list[SourceReport] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # files inside a folder/zip that are not exports
    # Files that clearly are no chats (a README, a licence, a Slack export's integration log):
    # counted in one line, not listed as "not a chat export" one by one.
    aside: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def messages_added(self) -> int:
        return sum(source.messages_added for source in self.sources)


def import_path(
    data_dir: Path,
    path: Path,
    format_name: str = "auto",
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    on_wait: WaitCallback | None = None,
    origin: str = "",
) -> ImportReport:
    """Import one export into the store at `data_dir`; raises `EngineError` subclasses only.

    When another process writes the store, waits for it (`on_wait(holder)` about once a
    second, cancellable); `origin` ("window", "command") tells other processes who waits."""
    if format_name != "auto" and format_name not in FORMATS:
        raise ImportFormatError(str(path), msg("import.problem.unknown_format", name=format_name,
                                               formats=", ".join(FORMATS)))
    started = time.perf_counter()
    open_store(data_dir)  # creates and migrates the store if needed
    cancel = cancel or CancelToken()
    report = ImportReport(path=str(path))
    with resolve_inputs(Path(path)) as files:
        inputs = group_inputs(files)  # a Slack workspace, a Messenger thread's parts: one export each
        plan = _plan(inputs, format_name, report, single=len(inputs) == 1 and not Path(path).is_dir())
        with (plain_faults(data_dir, "import"),
              StoreWriteLock(data_dir, "import", origin, on_wait, cancel.raise_if_cancelled),
              ImportWriter(db_path(data_dir), flush_hook=cancel.raise_if_cancelled) as writer):
            for number, (export, detected) in enumerate(plan, 1):
                report.sources.append(_import_one(writer, export, detected, str(path), on_progress, cancel,
                                                  (number, len(plan))))
            writer.finish()
    report.seconds = time.perf_counter() - started
    return report


def _plan(inputs: list[ExportInput], format_name: str, report: ImportReport, single: bool):
    plan: list[tuple[ExportInput, str]] = []
    for export in inputs:
        detected = format_name if format_name != "auto" else detect_format(export)
        if detected is None:
            (report.aside if no_chat(export) else report.skipped).append(export.display_name)
        else:
            plan.append((export, detected))
    if not plan:
        where = inputs[0].display_name if single else report.path
        signal_desktop = any(_signal_desktop_export(export) for export in inputs)
        raise UnknownFormatError(where, msg("import.problem.signal_desktop_export" if signal_desktop
                                            else "import.problem.not_an_export"))
    return plan


def _signal_desktop_export(export: ExportInput) -> bool:
    """Signal Desktop's "Export chat history" (`signal-export-<time>/main.jsonl`): not read yet
    (docs/formats.md says why), so it is named rather than called "not a chat export"."""
    parts = export.relative.split("/")
    return parts[-1] == "main.jsonl" and (len(parts) == 1 or parts[-2].startswith("signal-export-"))


def _import_one(writer: ImportWriter, export: ExportInput, format_name: str, path: str,
                on_progress: ProgressCallback | None, cancel: CancelToken, place: tuple[int, int]) -> SourceReport:
    """Import one export of the path; `place` = (its number, how many) for "file 2 of 5"."""
    total = export.size
    skipped: dict[str, int] = {}
    # A big file's parse child starts now: its start-up overlaps the sha256 below.
    child = parse_child.start(export, format_name) if parse_child.wanted(total, format_name) else None
    try:
        sha = export.sha256()
        if writer.source_exists(sha):
            return SourceReport(export.display_name, format_name, "unchanged")
        writer.bulk_mode(expected_messages(total, format_name))
        writer.begin_source(path, export.display_name, format_name, sha, total)
        worth_reporting = ProgressThrottle(_PROGRESS_INTERVAL_S)
        seen = 0

        def report_bytes(done: int) -> None:
            cancel.raise_if_cancelled()
            if on_progress is not None and worth_reporting(done):
                on_progress(ImportProgress(export.display_name, min(done, total), total, seen, *place))

        chat_count = None
        if child is not None:
            try:
                for batch, count, done in child.run(writer.worker_setup(), cancel.raise_if_cancelled):
                    if batch:
                        writer.write_batch(batch, count)
                        seen += count
                    report_bytes(done)
                assert child.ids is not None  # `run` returns only after the child's result set them
                writer.adopt(child.ids)
                chat_count, skipped = child.chats, child.skipped
            except parse_child.WorkerUnavailable:
                pass  # it ended before sending anything: nothing was written, parse here
        if chat_count is None:
            importer = importer_classes()[format_name]()
            chats: set[str] = set()
            for record in guarded(importer, export, report_bytes):
                if type(record) is MessageRecord:
                    writer.add_message(record)
                    seen += 1
                elif isinstance(record, ChatRecord):
                    writer.add_chat(record)
                    chats.add(record.key)
            chat_count, skipped = len(chats), dict(importer.skipped)
    finally:
        if child is not None:
            child.close()
    seen_count, added, artifacts, cut, conflicting, service = writer.end_source(chat_count)
    if on_progress is not None:
        on_progress(ImportProgress(export.display_name, total, total, seen, *place))
    return SourceReport(export.display_name, format_name, "imported", chat_count, seen_count, added, artifacts, cut,
                        conflicting, list(writer.matches), max(seen_count - added - conflicting, 0), service,
                        skipped)
