"""`flashback check`: is the store sound, and are its vectors, indexes and calibration usable?

Runs under the store's write lock (it may repair). In order: SQLite's `PRAGMA quick_check`
(damage inside the file: told, not hidden; a damaged secondary index is rebuilt with
REINDEX), then every message's date (one outside the years 1900-2200, which older imports
took, is given its neighbour's: `health.repair_dates`), then every stored vector (damaged
ones removed and embedded again by a build), each kind's index (rebuilt when missing,
stale or corrupt) and the saved calibration (measured again when missing or invalid).
The report says what was found and repaired.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.embeddings.base import Embedder
from engine.memory import calibration as calibration_store
from engine.memory.health import find_damaged_vectors, remove_damaged, repair_dates, repair_message
from engine.memory.indexes import INDEX_FOLDER, IndexSet
from engine.messages import Message, msg
from engine.store.purge import PurgeState, purge, purge_owed

if TYPE_CHECKING:  # the build pulls in topics and retrieval; a check runs one only to repair
    from engine.memory.build import BuildReport

_SHOWN_PROBLEMS = 5


@dataclass
class CheckReport:
    """What was found, as codes a face renders (a build's own repair lines are its English text)."""

    store_ok: bool = True
    problems: list[Message | str] = field(default_factory=list)  # what is wrong and was not repaired
    repaired: list[Message | str] = field(default_factory=list)
    checked: list[Message | str] = field(default_factory=list)  # what was looked at and found sound

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe, the lines in English (`flashback check --json`)."""
        return {"store_ok": self.store_ok, "problems": [str(line) for line in self.problems],
                "repaired": [str(line) for line in self.repaired], "checked": [str(line) for line in self.checked]}


def quick_check(connection: sqlite3.Connection) -> list[str]:
    """SQLite's findings ([] when sound). Damage that stops the check itself (a page that is
    not a page) is a finding too, not an error."""
    try:
        rows = [row[0] for row in connection.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    return [] if rows == ["ok"] else rows


def check_memory(data_dir: Path, connection: sqlite3.Connection, embedder: Embedder,
                 build: Callable[[], BuildReport], *, index_lost: bool = False) -> CheckReport:
    """Check and repair; `build` runs a build (used when damaged vectors must be embedded
    again). `index_lost`: the built-in embedder's fitted table is gone with the `index/`
    folder, so `embedder` cannot read the stored vectors: a build refits the same table from
    the same topics and remakes the indexes and calibration, embedding nothing anew."""
    report = CheckReport()
    damage = quick_check(connection)
    if damage and not _reindexed(connection):
        _store_damaged(report, damage)
        return report
    if damage:
        report.repaired.append(msg("memory.check.reindexed"))
    else:
        report.checked.append(msg("memory.check.store_file"))
    check_owed_purge(connection, report)
    try:
        dates = repair_dates(connection)  # issue 34: before any build, which would stop on such a date
        (report.repaired if dates else report.checked).append(dates.message() if dates else msg("check.dates"))
        if index_lost:
            built = build()
            report.repaired.append(msg("memory.check.index_folder_remade", count=built.embedded))
            report.repaired += getattr(built, "repaired", [])
            return report
        _check_memory(data_dir, connection, embedder, build, report)
    except sqlite3.DatabaseError as exc:  # damage quick_check does not look for (inside a row's pages)
        if "malformed" not in str(exc) and "not a database" not in str(exc):
            raise
        _store_damaged(report, [str(exc)])
    return report


def _reindexed(connection: sqlite3.Connection) -> bool:
    """REINDEX redoes every SQL index from its table: the one damage SQLite can mend. True
    when the store is sound afterwards."""
    try:
        connection.execute("REINDEX")
    except sqlite3.DatabaseError:
        return False
    return not quick_check(connection)


def _store_damaged(report: CheckReport, damage: list[str]) -> None:
    report.store_ok = False
    shown = "; ".join(damage[:_SHOWN_PROBLEMS])  # SQLite's own findings, as it says them
    report.problems.append(msg("memory.check.store_damaged", count=len(damage), shown=shown))


def _check_memory(data_dir: Path, connection: sqlite3.Connection, embedder: Embedder, build: Callable[[], BuildReport],
                  report: CheckReport) -> None:
    vectors = find_damaged_vectors(connection, embedder.model_id, embedder.dim, embedder.cache_vectors)
    if vectors:
        report.repaired.append(repair_message(remove_damaged(connection, embedder.model_id, vectors)))
        built = build()  # embeds the removed entities again, brings the indexes and calibration up to date
        report.repaired += [_rebuilt(kind, why) for kind, why in built.rebuilt.items()]
        report.repaired += getattr(built, "repaired", [])
        return
    report.checked.append(msg("memory.check.vectors"))
    _check_indexes(data_dir, connection, embedder, report)
    _check_calibration(data_dir, connection, embedder, report)


def _check_indexes(data_dir: Path, connection: sqlite3.Connection, embedder: Embedder, report: CheckReport) -> None:
    # The caller holds the write lock: may save. Every binary's CRC is read (a search trusts its identity).
    indexes = IndexSet(data_dir, embedder.model_id, embedder.dim, embedder=embedder, full_check=True)
    for kind in ("topic", "person", "artifact"):
        loaded = indexes.get(connection, kind)
        if loaded.rebuilt_because is None:
            report.checked.append(msg(f"memory.check.index.{kind}"))
        elif loaded.items or not loaded.rebuilt_because.startswith("missing"):
            report.repaired.append(_rebuilt(kind, loaded.rebuilt_why or loaded.rebuilt_because))


def _check_calibration(data_dir: Path, connection: sqlite3.Connection, embedder: Embedder,
                       report: CheckReport) -> None:
    folder = Path(data_dir) / INDEX_FOLDER
    problem = calibration_store.problem_message(folder, embedder.model_id)
    if problem is None or getattr(embedder, "relative_anchors", None) is not None:
        report.checked.append(msg("memory.check.calibration"))
        return
    measured = calibration_store.measure(connection, embedder)
    if measured is None or not calibration_store.valid(measured):
        if problem != calibration_store.MISSING:
            calibration_store.discard(folder, embedder.model_id)
            report.repaired.append(msg("memory.check.calibration_removed", problem=problem))
        return
    calibration_store.save(folder, measured)
    report.repaired.append(msg("memory.check.calibration_measured", problem=problem))


def _rebuilt(kind: str, why: Message | str) -> Message:
    """"rebuilt the topic index (stale: store changed)": the reason as the index's code (`index.*`), said in
    the check's language (the English string only if the index gave no code)."""
    return msg("memory.check.index_rebuilt", index=msg(f"memory.index.{kind}"), reason=why)


def check_owed_purge(connection: sqlite3.Connection, report: CheckReport) -> None:
    """A forget's purge still owed (killed before it finished, or held up by a reader; see
    engine.store.purge) is finished here, under the check's write lock, and said."""
    if not purge_owed(connection):
        report.checked.append(msg("memory.check.purge"))
        return
    try:
        state, _compacted = purge(connection)
    except sqlite3.OperationalError as exc:  # a full disk, a store locked for longer than the busy timeout
        report.problems.append(msg("memory.check.purge_failed", reason=Message("error.text", {"text": str(exc)})))
        return
    if state is PurgeState.DONE:
        report.repaired.append(msg("memory.check.purge_finished"))
    else:
        report.problems.append(msg("memory.check.purge_reader"))
