"""Which stored chat a chat the import would create already is, by its messages (issue 23).

A chat's key is its name where the format has no chat ids (WhatsApp: the file, zip or folder
name), and names change: a browser's second download ("… (1).txt"), a renamed file, an iOS
`_chat.txt` in a zip named otherwise. A new chat whose messages are keyed by their content
(time, author, text: `RowBuilder`'s dedup keys) is therefore looked for by its first messages
in the stored chats of the same format before it is created: when enough of them are stored
in one chat, it *is* that chat, and its rows are written there. The unique (chat, dedup key)
index then turns the messages already stored into no-ops, so a newer export adds only what
is new, as Telegram's ids do.

Chats whose messages carry the export's own ids (Telegram, ChatGPT, JSONL with ids) are never
matched by content: their keys are real ids.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

PROBE_MESSAGES = 8  # first content-keyed messages of a new chat looked up in the store
_SURE_FROM = 3  # below this many, every probe must be found; from it, half

_CHAT, _KEY, _EXTERNAL, _SENT, _SERVICE = 1, 2, 3, 7, 12  # places in a message row (see RowBuilder.add_message)


@dataclass(frozen=True)
class ChatMatch:
    """A stored chat an export's messages went into."""

    chat_id: int
    title: str  # the stored chat's name
    by: str  # "key": the same id or name; "content": its first messages were already stored


@dataclass
class Probe:
    """The first content-keyed, non-service messages of a new chat: their dedup keys and times."""

    keys: list[str]
    first: float = float("inf")
    last: float = float("-inf")


def probes(rows: list[tuple], chat_ids: set[int]) -> dict[int, Probe]:
    """chat id → the probe of its first `PROBE_MESSAGES` content-keyed, non-service rows in
    `rows` (no keys for a chat whose rows all carry the export's ids), for the chats in
    `chat_ids` that have rows here."""
    found: dict[int, Probe] = {}
    for row in rows:
        chat_id = row[_CHAT]
        if chat_id not in chat_ids:
            continue
        probe = found.setdefault(chat_id, Probe([]))
        if row[_EXTERNAL] is None and not row[_SERVICE] and len(probe.keys) < PROBE_MESSAGES:
            probe.keys.append(row[_KEY])
            probe.first, probe.last = min(probe.first, row[_SENT]), max(probe.last, row[_SENT])
    return found


def stored_chat_holding(connection: sqlite3.Connection, format_name: str, probe: Probe) -> ChatMatch | None:
    """The stored chat of `format_name` holding enough of the probe's messages (all of one or
    two, half of three or more: one ordinary message sent to two chats in the same minute must
    not merge them), the one holding most; None when no chat does."""
    dedup_keys = probe.keys
    if not dedup_keys:
        return None
    wanted = len(dedup_keys) if len(dedup_keys) < _SURE_FROM else (len(dedup_keys) + 1) // 2
    marks = ",".join("?" * len(dedup_keys))
    # CROSS JOIN keeps `chat` outside: one probe of the (chat_id, dedup_key) index per chat
    # and key, instead of a scan of every message; only chats whose span holds the messages'
    # times (or not known yet: made earlier in this import) are probed (measured: 45 ms for a
    # store of 2,000 WhatsApp chats probed whole, 1M messages).
    row = connection.execute(
        f"SELECT c.id, c.title, count(*) AS held FROM chat c CROSS JOIN message m "
        f"ON m.chat_id = c.id AND m.dedup_key IN ({marks}) WHERE c.format = ? "
        "AND (c.first_at IS NULL OR (c.first_at <= ? AND c.last_at >= ?)) "
        "GROUP BY c.id ORDER BY held DESC, c.id LIMIT 1",
        (*dedup_keys, format_name, probe.last, probe.first)).fetchone()
    if row is None or row[2] < wanted:
        return None
    return ChatMatch(row[0], row[1], "content")
