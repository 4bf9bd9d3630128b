"""The QRELS file (`{"queries": [{"id", "query", "relevant": [{"chat", "message"}], "category"}]}`)
and the mapping of its (chat, message) pairs onto the store's messages.

Judgements name messages the way the export did (`chat` = the chat's key, its name, or the
key without its format prefix; `message` = the export's message id), so a file survives
re-imports and rebuilds. Labels exported from the window add two optional keys:
`not_relevant` (messages judged not relevant), which `flashback eval` ignores, and `filters` (chats,
days), which it searches with, as the Evaluate dock does (issue 31: one file, one figure).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import EngineError
from engine.messages import Message, msg
from engine.store.sql import select_in

SHAPE = '{"queries": [{"id", "query", "relevant": [{"chat", "message"}]}]}'


class QrelsError(EngineError):
    """The judgement file cannot be used; says what to fix, in one sentence."""


@dataclass(frozen=True)
class QueryFilters:
    """What narrowed a labelled search: chats by store id, and whole UTC days (inclusive)."""

    chat_ids: tuple[int, ...] = ()
    since: str | None = None  # "YYYY-MM-DD"
    until: str | None = None

    def as_json(self) -> str:
        """The canonical text stored with a labelled query (equal filters, equal text)."""
        return json.dumps({"chat_ids": sorted(self.chat_ids), "since": self.since, "until": self.until},
                          sort_keys=True)

    @classmethod
    def from_json(cls, text: str | dict | None) -> QueryFilters:
        raw = json.loads(text) if isinstance(text, str) else (text or {})
        return cls(tuple(int(c) for c in raw.get("chat_ids") or ()), raw.get("since") or None,
                   raw.get("until") or None)

    def is_empty(self) -> bool:
        return not (self.chat_ids or self.since or self.until)


@dataclass(frozen=True)
class JudgedQuery:
    id: str
    query: str
    category: str
    relevant: tuple[tuple[str, str], ...]  # (chat, message id) as in the export
    not_relevant: tuple[tuple[str, str], ...] = ()
    filters: QueryFilters = field(default_factory=QueryFilters)


class _Malformed(ValueError):
    """What is wrong with a QRELS document, as a message (load_qrels puts it in its QrelsError)."""

    def __init__(self, problem: Message) -> None:
        super().__init__(str(problem))
        self.problem = problem


def _pairs(entries: object, key: str, number: int) -> tuple[tuple[str, str], ...]:
    if not isinstance(entries, list):
        raise _Malformed(msg("evaluation.qrels.key_not_list", key=key, number=number))
    return tuple((str(e["chat"]), str(e["message"])) for e in entries)


def parse_qrels(raw: object) -> list[JudgedQuery]:
    """The judged queries of a parsed QRELS document; ValueError/KeyError/TypeError when malformed."""
    queries = raw["queries"] if isinstance(raw, dict) else None
    if not isinstance(queries, list):
        raise _Malformed(msg("evaluation.qrels.queries_not_list"))
    judged = []
    for number, q in enumerate(queries, 1):
        if not isinstance(q, dict) or not str(q.get("query") or "").strip():
            raise _Malformed(msg("evaluation.qrels.no_text", number=number))
        judged.append(JudgedQuery(str(q.get("id", number)), str(q["query"]), str(q.get("category") or "all"),
                                  _pairs(q["relevant"], "relevant", number),
                                  _pairs(q.get("not_relevant") or [], "not_relevant", number),
                                  QueryFilters.from_json(q.get("filters"))))
    return judged


def load_qrels(path: Path) -> list[JudgedQuery]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise QrelsError(msg("evaluation.qrels.unreadable", path=str(path), problem=str(exc.strerror or exc))) from exc
    except UnicodeDecodeError as exc:
        raise QrelsError(msg("evaluation.qrels.not_utf8", path=str(path))) from exc
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise QrelsError(msg("evaluation.qrels.not_json", path=str(path), line=getattr(exc, "lineno", "?"))) from exc
    try:
        return parse_qrels(raw)
    except KeyError as exc:
        raise QrelsError(msg("evaluation.qrels.missing_key", path=str(path), key=str(exc), shape=SHAPE)) from exc
    except (ValueError, TypeError, AttributeError) as exc:
        problem = exc.problem if isinstance(exc, _Malformed) else str(exc)
        raise QrelsError(msg("evaluation.qrels.malformed", path=str(path), problem=problem, shape=SHAPE)) from exc


def resolve_messages(connection: sqlite3.Connection,
                     pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], int | None]:
    """(chat, message) → the store's message id, or None when the store has no such message.

    The chat may be its key ("jsonl:Team"), its title, or the key without the format; the
    message its export id (the dedup key, indexed) or the stored external id."""
    chats: dict[str, list[int]] = {}
    for chat_id, key, title in connection.execute("SELECT id, key, title FROM chat"):
        chats.setdefault(key, []).append(chat_id)
        chats.setdefault(title, []).append(chat_id)
        if ":" in key:
            chats.setdefault(key.split(":", 1)[1], []).append(chat_id)
    found: dict[tuple[str, str], int | None] = {}
    for chat, message in pairs:
        if (chat, message) in found:
            continue
        found[(chat, message)] = None
        for chat_id in dict.fromkeys(chats.get(chat, [])):
            row = connection.execute("SELECT id FROM message WHERE chat_id = ? AND dedup_key = ?",
                                     (chat_id, message)).fetchone() or connection.execute(
                "SELECT id FROM message WHERE chat_id = ? AND external_id = ?", (chat_id, message)).fetchone()
            if row is not None:
                found[(chat, message)] = row[0]
                break
    return found


def message_topics(connection: sqlite3.Connection, message_ids: Iterable[int]) -> dict[int, int | None]:
    """message id → the topic holding it in the current build (None: in no topic yet)."""
    ids = list(dict.fromkeys(message_ids))
    topics: dict[int, int | None] = dict(
        select_in(connection, "SELECT id, topic_id FROM message WHERE id IN ({ids})", ids))
    return {m: topics.get(m) for m in ids}


def message_names(connection: sqlite3.Connection, message_ids: Iterable[int]) -> dict[int, tuple[str, str]]:
    """message id → (chat key, export id) as a QRELS file names it (the inverse of resolve_messages)."""
    ids = list(dict.fromkeys(message_ids))
    names: dict[int, tuple[str, str]] = {}
    for message_id, key, dedup in select_in(
            connection, "SELECT m.id, c.key, m.dedup_key FROM message m JOIN chat c ON c.id = m.chat_id "
            "WHERE m.id IN ({ids})", ids):
        names[message_id] = (key, dedup)
    return names
