"""Open the store: one SQLite file, WAL, foreign keys, forward-only schema migrations.

Every migration is idempotent (CREATE … IF NOT EXISTS, ALTERs guarded by what the table
has), and one open runs all the steps it needs in one transaction with `user_version` set
inside it: a step that fails leaves the store exactly as it was, at its old version, and a
store whose version was reset (`PRAGMA user_version=0`) runs them again harmlessly.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import StoreError
from engine.messages import Message
from engine.store.faults import StoreDamaged, translate
from engine.store.labels_schema import labels_v5
from engine.store.lock import StoreWriteLock, os_words, read_only_store
from engine.store.purge import finish_owed_purge
from engine.store.transaction import write_transaction

if TYPE_CHECKING:  # SQLAlchemy and SQLModel are imported only to create or migrate a schema (issue 26:
    from sqlalchemy import Table  # 0.3 s of every command's start, spent on reads that never needed them)
    from sqlalchemy.engine import Engine
else:
    Engine = Table = Any

DB_FILE_NAME = "flashback.sqlite3"
SCHEMA_VERSION = 10

# FTS5 over message text. External content: the index stores no copy of the text.
# `remove_diacritics 2` folds Latin accents; ё→е is folded by SQL replace() when indexing
# (engine.importers.writer) and by `fold_for_search` on queries,
# because unicode61 treats them as different letters.
_FTS_DDL = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS message_fts USING fts5("
    "text, content='message', content_rowid='id', "
    "tokenize=\"unicode61 remove_diacritics 2\")"
)


def fold_for_search(text: str) -> str:
    """Normalise text the way the FTS index sees it (same length, so snippets line up)."""
    return text.replace("ё", "е").replace("Ё", "Е")


def apply_pragmas(connection: sqlite3.Connection) -> None:
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("PRAGMA foreign_keys=ON")
    connection.execute("PRAGMA busy_timeout=5000")


def _create_tables(connection: sqlite3.Connection, engine: Engine, tables: list[Table] | None = None) -> None:
    """What `SQLModel.metadata.create_all` makes (tables, then their indexes), as IF NOT EXISTS
    statements on the migration's own connection: create_all would run them on another one,
    outside the migration's transaction (and wait behind its write lock)."""
    from sqlalchemy.schema import CreateIndex, CreateTable
    from sqlmodel import SQLModel

    from engine.store import models  # noqa: F401  (registers the tables on SQLModel.metadata)

    for table in tables if tables is not None else SQLModel.metadata.sorted_tables:
        connection.execute(str(CreateTable(table, if_not_exists=True).compile(dialect=engine.dialect)))
        for index in sorted(table.indexes, key=lambda index: index.name or ""):
            connection.execute(str(CreateIndex(index, if_not_exists=True).compile(dialect=engine.dialect)))


def _create_v1(connection: sqlite3.Connection, engine: Engine) -> None:
    _create_tables(connection, engine)
    connection.execute(_FTS_DDL)


def _topic_columns_v2(connection: sqlite3.Connection, engine: Engine) -> None:
    # The new tables (vector_item, embedding_cache) are made and existing ones skipped;
    # a v1 topic table gets the new columns here (a fresh store already has them).
    _create_tables(connection, engine)
    existing = {row[1] for row in connection.execute("PRAGMA table_info(topic)")}
    for column, sql_type in (("first_at", "FLOAT"), ("last_at", "FLOAT"), ("content_hash", "VARCHAR")):
        if column not in existing:
            connection.execute(f"ALTER TABLE topic ADD COLUMN {column} {sql_type}")
    # BM25 over whole topics (rowid = topic id): measured better than message-level BM25
    # lifted to topics on LoCoMo (docs/benchmarks.md). Text is stored folded (ё→е).
    connection.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS topic_fts USING fts5(body, tokenize=\"unicode61 remove_diacritics 2\")")


def _rerank_runs_v3(connection: sqlite3.Connection, engine: Engine) -> None:
    # Only the new table: later schemas may change others, and this step must not create
    # them ahead of their own migrations. A fresh store already has it (create_all in v1).
    from engine.store import models

    _create_tables(connection, engine, [models.RerankRun.__table__])  # type: ignore[attr-defined]  # SQLModel's metaclass adds it; its stubs do not say so


# Every insert or delete of a vector item bumps its (model, kind) generation, so "has the
# store changed since this index was saved?" is one primary-key read. It was a count and a
# sum over the kind's vector items on every search: 67 ms per query on the 1M-message store.
# A trigger rather than bookkeeping in Python, so no writer can forget it.
_VECTOR_GENERATION_DDL = (
    "CREATE TABLE IF NOT EXISTS vector_generation (model_id TEXT NOT NULL, kind TEXT NOT NULL, "
    "items INTEGER NOT NULL, generation INTEGER NOT NULL, PRIMARY KEY (model_id, kind)) WITHOUT ROWID",
    "INSERT OR IGNORE INTO vector_generation (model_id, kind, items, generation) "
    "SELECT model_id, kind, count(*), 1 FROM vector_item GROUP BY model_id, kind",
    "CREATE TRIGGER IF NOT EXISTS vector_item_added AFTER INSERT ON vector_item BEGIN "
    "INSERT INTO vector_generation (model_id, kind, items, generation) VALUES (NEW.model_id, NEW.kind, 1, 1) "
    "ON CONFLICT (model_id, kind) DO UPDATE SET items = items + 1, generation = generation + 1; END",
    "CREATE TRIGGER IF NOT EXISTS vector_item_removed AFTER DELETE ON vector_item BEGIN "
    "UPDATE vector_generation SET items = items - 1, generation = generation + 1 "
    "WHERE model_id = OLD.model_id AND kind = OLD.kind; END",
    "CREATE TRIGGER IF NOT EXISTS vector_item_moved AFTER UPDATE OF id, model_id, kind ON vector_item BEGIN "
    "UPDATE vector_generation SET items = items - 1, generation = generation + 1 "
    "WHERE model_id = OLD.model_id AND kind = OLD.kind; "
    "INSERT INTO vector_generation (model_id, kind, items, generation) VALUES (NEW.model_id, NEW.kind, 1, 1) "
    "ON CONFLICT (model_id, kind) DO UPDATE SET items = items + 1, generation = generation + 1; END",
)


def _vector_generation_v4(connection: sqlite3.Connection, engine: Engine) -> None:
    for statement in _VECTOR_GENERATION_DDL:
        connection.execute(statement)


def _facts_v6(connection: sqlite3.Connection, engine: Engine) -> None:
    """Branch facts-core (issue 33, the Archivist): the fact tables, and what is known of a
    person beyond their messages. A fresh store made by v1 already has both; the ALTERs are
    guarded, the tables IF NOT EXISTS."""
    from engine.store import models

    existing = {row[1] for row in connection.execute("PRAGMA table_info(person)")}
    for column, ddl in (("aliases", "VARCHAR NOT NULL DEFAULT '[]'"), ("circle", "VARCHAR"),
                        ("bio", "VARCHAR NOT NULL DEFAULT ''")):
        if column not in existing:
            connection.execute(f"ALTER TABLE person ADD COLUMN {column} {ddl}")
    _create_tables(connection, engine, [models.Fact.__table__, models.FactMessage.__table__,  # type: ignore[attr-defined]  # SQLModel's metaclass adds it
                                        models.FactHistory.__table__])  # type: ignore[attr-defined]  # as above


_PEOPLE_MERGE_DDL = (
    # first_id < second_id: one row per pair, whichever order the person saw it in
    "CREATE TABLE IF NOT EXISTS person_not_same (first_id INTEGER NOT NULL, second_id INTEGER NOT NULL, "
    "at FLOAT NOT NULL, PRIMARY KEY (first_id, second_id)) WITHOUT ROWID",
    # the merged row stays (no messages left, so no list shows it) and its key names who it became
    "CREATE TABLE IF NOT EXISTS person_merge (id INTEGER PRIMARY KEY, kept_id INTEGER NOT NULL, "
    "merged_id INTEGER NOT NULL, merged_name TEXT NOT NULL, merged_key TEXT NOT NULL, messages INTEGER NOT NULL, "
    "facts INTEGER NOT NULL, at FLOAT NOT NULL)",
)


def _people_merge_v7(connection: sqlite3.Connection, engine: Engine) -> None:
    """Branch facts-ui (issue 33, one person across chats): who the person said is not the same
    as whom, which people were merged into which, and whether a bio is the person's own words.
    Idempotent: the ALTER is guarded, the tables IF NOT EXISTS."""
    existing = {row[1] for row in connection.execute("PRAGMA table_info(person)")}
    if "bio_by_person" not in existing:
        connection.execute("ALTER TABLE person ADD COLUMN bio_by_person INTEGER NOT NULL DEFAULT 0")
    for statement in _PEOPLE_MERGE_DDL:
        connection.execute(statement)


# What the importers wrote before the message had a `meta` column: a message's reactions as one
# artifact row of this type, named by their summary ("❤️ Anna, Boris · 👍 3").
_OLD_REACTIONS_MIME = "text/x-flashback-reactions"


def _message_meta_v8(connection: sqlite3.Connection, engine: Engine) -> None:
    """Branch import-rest (issue 34): `message.meta`, what an export says beside a message's
    text (its reactions, the model that wrote it). The reactions older imports kept as artifact
    rows move there, and those rows (and any vectors made of them: they were searched as
    files) go. Signal's and iMessage's reactions, older imports' system lines, are left as
    they are: a line's text alone does not say which message it reacted to (docs/formats.md)."""
    existing = {row[1] for row in connection.execute("PRAGMA table_info(message)")}
    if "meta" not in existing:
        connection.execute("ALTER TABLE message ADD COLUMN meta VARCHAR")
    rows = connection.execute("SELECT id, message_id, file_name FROM artifact WHERE mime = ?",
                              (_OLD_REACTIONS_MIME,)).fetchall()
    for _artifact_id, message_id, summary in rows:
        reactions = _reactions_from_summary(summary or "")
        stored = connection.execute("SELECT meta FROM message WHERE id = ?", (message_id,)).fetchone()
        meta = json.loads(stored[0]) if stored and stored[0] else {}
        meta.setdefault("reactions", reactions)
        connection.execute("UPDATE message SET meta = ? WHERE id = ?", (json.dumps(meta, ensure_ascii=False),
                                                                       message_id))
    for start in range(0, len(rows), 500):
        ids = [row[0] for row in rows[start:start + 500]]
        marks = ",".join("?" * len(ids))
        connection.execute(f"DELETE FROM vector_item WHERE kind = 'artifact' AND entity_id IN ({marks})", ids)
        connection.execute(f"DELETE FROM artifact WHERE id IN ({marks})", ids)


def _reactions_from_summary(summary: str) -> list[dict[str, object]]:
    """"❤️ Anna, Boris · 👍 3" (the old artifact's name) → the `meta` reactions it summed up."""
    reactions: list[dict[str, object]] = []
    for part in summary.split(" \u00b7 "):
        emoji, _, rest = part.strip().partition(" ")
        if not emoji:
            continue
        if rest.isdigit():
            reactions.append({"emoji": emoji, "by": [], "count": int(rest)})
        else:
            people = [name.strip() for name in rest.split(", ") if name.strip()]
            reactions.append({"emoji": emoji, "by": people, "count": len(people)})
    return reactions


def _archivist_bio_v9(connection: sqlite3.Connection, engine: Engine) -> None:
    """Issue 33: what the Archivist last said of a person ("Alice's sister") kept apart from the
    bio rebuilt from their facts, which opens with it: a relation said only there would
    otherwise be lost at the first rebuild. Older stores: a bio not the person's own and not yet
    rebuilt from facts is the Archivist's. Idempotent (the ALTER is guarded)."""
    existing = {row[1] for row in connection.execute("PRAGMA table_info(person)")}
    if "model_bio" not in existing:
        connection.execute("ALTER TABLE person ADD COLUMN model_bio VARCHAR NOT NULL DEFAULT ''")
        connection.execute("UPDATE person SET model_bio = bio WHERE bio_by_person = 0 AND bio != '' AND id NOT IN "
                           "(SELECT person_id FROM fact WHERE person_id IS NOT NULL)")


def _facts_parts_v10(connection: sqlite3.Connection, engine: Engine) -> None:
    """The Archivist reads a topic longer than one prompt in parts: how far it has read. Older
    stores read only a long topic's first part; those are marked read and stay so.
    Idempotent (the ALTER is guarded)."""
    existing = {row[1] for row in connection.execute("PRAGMA table_info(topic)")}
    if "facts_read_through" not in existing:
        connection.execute("ALTER TABLE topic ADD COLUMN facts_read_through INTEGER")


# version reached → function that brings a store from the previous version to it.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection, Engine], None]] = {
    1: _create_v1, 2: _topic_columns_v2, 3: _rerank_runs_v3, 4: _vector_generation_v4}
MIGRATIONS[5] = labels_v5  # the user's relevance labels (engine/store/labels_schema.py)
MIGRATIONS[6] = _facts_v6  # branch facts-core: facts, their messages and history; person aliases, circle, bio
MIGRATIONS[7] = _people_merge_v7  # branch facts-ui: "not the same" refusals, merges, the person's own bio
MIGRATIONS[8] = _message_meta_v8  # branch import-rest: message.meta (reactions, the answering model)
MIGRATIONS[9] = _archivist_bio_v9  # what the Archivist said of a person, apart from the bio its facts make
MIGRATIONS[10] = _facts_parts_v10  # how far the Archivist has read a topic too long for one prompt


def db_path(data_dir: Path) -> Path:
    return Path(data_dir) / DB_FILE_NAME


def _create_private(data_dir: Path, path: Path) -> None:
    """A new data folder is 0700 and a new store 0600, whatever the caller's umask: it is a
    person's whole chat history. SQLite gives its -wal and -shm files the store's own mode.
    Parents are made with the usual modes (they are not ours); existing files are left to
    the app (`app.privacy.tighten`), which can tell the user what it changed."""
    if not data_dir.is_dir():
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        try:
            data_dir.mkdir(mode=0o700)
        except FileExistsError:
            pass  # made by another process in between: it created it with these same modes
        else:
            os.chmod(data_dir, 0o700)  # mkdir's mode is masked by the umask: say it exactly
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))  # an empty file is a new SQLite database


def open_store(data_dir: Path) -> None:
    """Create the data dir and database if needed and migrate it. A store already at
    SCHEMA_VERSION costs one `PRAGMA user_version` read: SQLAlchemy is imported only when a
    schema has to be created or changed."""
    data_dir = Path(data_dir)
    path = db_path(data_dir)
    try:
        _create_private(data_dir, path)
    except OSError as exc:
        reason = os_words(exc)  # the system's refusal, in the person's language where it is a known one
        raise StoreError(Message("store.cannot_create_folder", {"folder": str(data_dir), "reason": reason})) from exc
    migrate(path)


def open_engine(data_dir: Path) -> Engine:
    """`open_store`, then a SQLAlchemy engine on the store (tests and tools that want one)."""
    open_store(data_dir)
    return _schema_engine(db_path(data_dir))


def _schema_engine(path: Path) -> Engine:
    from sqlalchemy import event
    from sqlmodel import create_engine

    engine = create_engine(f"sqlite:///{path}")
    event.listen(engine, "connect", lambda dbapi_conn, _record: apply_pragmas(dbapi_conn))
    return engine


def connect(path: Path) -> sqlite3.Connection:
    """A raw connection in autocommit mode; callers issue BEGIN/COMMIT themselves. A store
    this process cannot write (`read_only_store`) is opened read-only (issue 23)."""
    path = Path(path)
    if read_only_store(path.parent) is not None:
        return _connect_read_only(path)
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    apply_pragmas(connection)
    return connection


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """SQLite's own read-only mode. A WAL store needs its -shm file to be read: where it
    exists (or the folder lets SQLite make it) `mode=ro` reads the store and the WAL as they
    are; in a read-only folder without one only `immutable=1` opens it. Immutable tells SQLite
    nobody writes the file while this connection is open, which holds there: a writer would
    have made the -shm (and connections are short: the next one reads what changed)."""
    base = path.resolve().as_uri()
    connection = sqlite3.connect(f"{base}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
    try:
        connection.execute("PRAGMA user_version").fetchone()  # the -shm is opened on the first read
    except sqlite3.OperationalError:  # "unable to open database file": no -shm, and none can be made
        connection.close()
        connection = sqlite3.connect(f"{base}?mode=ro&immutable=1", uri=True, isolation_level=None,
                                     check_same_thread=False)
    connection.execute("PRAGMA foreign_keys=ON")
    connection.execute("PRAGMA busy_timeout=5000")
    return connection


def migrate(path: Path, engine: Engine | None = None) -> None:
    """Bring the store to SCHEMA_VERSION, every step in one transaction (see the module
    docstring), then finish a purge a killed forget left owed (engine.store.purge) before the
    caller reads anything. Two processes opening a new folder at once both see version 0: the
    schema is created under the store's write lock, and the version is read again once it is
    held, so the second finds the work done (issue 12: it used to report "table message_fts
    already exists" as a damaged store)."""
    connection = None
    try:
        connection = connect(path)
        if _version(connection, path) != SCHEMA_VERSION:
            _migrate(connection, path, engine)
        finish_owed_purge(path.parent, connection)
    except (sqlite3.DatabaseError, OSError) as exc:  # OSError: no room for the lock file
        plain = translate(exc, path.parent, "")  # opening: any command, or the window
        if plain is None and not isinstance(exc, sqlite3.DatabaseError):
            raise
        if isinstance(plain, StoreDamaged) or plain is None:
            detail = plain.message.params["detail"] if plain is not None else str(exc)  # SQLite's words as a code
            raise StoreError(Message("store.not_a_store", {"path": str(path), "detail": detail})) from exc
        raise plain from exc
    finally:
        if connection is not None:
            connection.close()


def _migrate(connection: sqlite3.Connection, path: Path, engine: Engine | None) -> None:
    refused = read_only_store(path.parent)
    if refused is not None:  # searching could work, but not before the schema is brought up to date
        raise StoreError(Message("store.read_only_old", {"folder": str(path.parent)}))
    owned = engine is None
    engine = engine or _schema_engine(path)  # the dialect the table definitions are compiled for
    try:
        with StoreWriteLock(path.parent, "schema"), write_transaction(connection):
            for target in range(_version(connection, path) + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[target](connection, engine)
                connection.execute(f"PRAGMA user_version={target}")  # commits with the steps, or not at all
    finally:
        if owned:
            engine.dispose()


def _version(connection: sqlite3.Connection, path: Path) -> int:
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(Message("store.newer_schema", {"folder": str(path.parent), "version": version}))
    return version
