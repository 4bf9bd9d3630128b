"""The account owner: one person across every import (issue 23).

Each export says who made it its own way: Telegram names the account (`telegram:user123`),
ChatGPT calls its user "User" (`chatgpt:user`), a JSONL row may say `"role": "user"`, and a
WhatsApp export says nothing at all (its authors are keyed by name, `whatsapp:name:Alice`).
The importers mark what they know (`person.is_self`); this module makes those rows one
person, so "(you)" appears once, with all your messages:

- Owner rows: every `is_self` person, plus a name-keyed person (WhatsApp, JSONL) carrying a
  name an owner row of a name-keyed format already has. `flashback owner --name Alice`
  (`mark_owner_name`) marks the name-keyed people called Alice, and from then on a new
  WhatsApp or JSONL chat's "Alice" is you as well. Names are compared as the exports write them.
- One of them holds the messages (`canonical`): a Telegram account first (a real name),
  then a name-keyed row, then the rest (ChatGPT's "User"), the oldest first among equals.
  The others keep their rows (so a re-import finds them by key) with no messages; each
  import ends with `merge_owner`, which moves what it brought to the canonical row.
- The store keeps no setting beyond those rows: forgetting or re-importing never has to
  consult a file, and the CLI, the window and an assistant's server read the same store.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from engine.store.sql import execute_in

NAME_KEYED = "key LIKE '%:name:%'"  # formats without author ids key people by their name

# The owner row that holds the messages: a Telegram account, then a name-keyed row, then the rest.
_CANONICAL = (f"SELECT id FROM person WHERE is_self = 1 ORDER BY key LIKE 'telegram:%' DESC, {NAME_KEYED} DESC, "
              "id LIMIT 1")


@dataclass(frozen=True)
class OwnerAlias:
    name: str
    format: str  # the export format of the row: telegram, chatgpt, whatsapp, jsonl


@dataclass(frozen=True)
class OwnerInfo:
    """Who "(you)" is in this store; `id` None when no import said (`flashback owner --name`)."""

    id: int | None
    name: str = ""
    messages: int = 0
    chats: int = 0
    aliases: list[OwnerAlias] = field(default_factory=list)  # every owner row, the canonical one first


def merge_owner(connection: sqlite3.Connection) -> int | None:
    """Make the owner rows one person (inside the caller's write transaction); returns the
    owner's id, or None when no row is the owner."""
    connection.execute(
        f"UPDATE person SET is_self = 1 WHERE is_self = 0 AND {NAME_KEYED} AND display_name IN "
        f"(SELECT display_name FROM person WHERE is_self = 1 AND {NAME_KEYED})")
    row = connection.execute(_CANONICAL).fetchone()
    if row is None:
        return None
    owner = row[0]
    holding = [r[0] for r in connection.execute(
        "SELECT id FROM person WHERE is_self = 1 AND id != ? AND (message_count > 0 OR EXISTS "
        "(SELECT 1 FROM message WHERE person_id = person.id))", (owner,))]
    if holding:
        execute_in(connection, "UPDATE message SET person_id = ? WHERE person_id IN ({ids})", holding, (owner,))
        refresh_people(connection, [owner, *holding])
    return owner


def refresh_people(connection: sqlite3.Connection, person_ids: list[int]) -> None:
    connection.executemany(
        "UPDATE person SET (message_count, first_seen, last_seen) = "
        "(SELECT count(*), min(sent_at), max(sent_at) FROM message WHERE person_id = person.id) WHERE id = ?",
        [(person_id,) for person_id in person_ids])


def mark_owner_name(connection: sqlite3.Connection, name: str) -> int:
    """Mark the name-keyed people called `name` as the owner and merge; how many rows that marked
    (0: nobody of that name in a WhatsApp or JSONL chat, or they already were the owner)."""
    marked = connection.execute(f"UPDATE person SET is_self = 1 WHERE is_self = 0 AND {NAME_KEYED} "
                                "AND display_name = ?", (name,)).rowcount
    merge_owner(connection)
    return marked


def unmark_owner_name(connection: sqlite3.Connection, name: str) -> int:
    """Undo `mark_owner_name`: the name-keyed owner rows called `name` become people of their
    own again, with the messages they wrote (found by author and chat format); returns how many."""
    rows = connection.execute(f"SELECT id, key FROM person WHERE is_self = 1 AND {NAME_KEYED} "
                              "AND display_name = ?", (name,)).fetchall()
    if not rows:
        return 0
    row = connection.execute(_CANONICAL).fetchone()
    owner = row[0]
    theirs = "author = ? AND chat_id IN (SELECT id FROM chat WHERE format = ?)"
    execute_in(connection, "UPDATE person SET is_self = 0 WHERE id IN ({ids})", [r[0] for r in rows])
    successor = connection.execute(_CANONICAL).fetchone()
    touched = [owner]
    for person_id, key in sorted(rows, key=lambda r: r[0] == owner):  # the owner's row last: it keeps the rest
        fmt = key.split(":", 1)[0]
        if person_id == owner:  # it held every owner row's messages: the others' go to the next owner row
            if successor is not None:
                connection.execute(f"UPDATE message SET person_id = ? WHERE person_id = ? AND NOT ({theirs})",
                                   (successor[0], owner, name, fmt))
                touched.append(successor[0])
        else:
            connection.execute(f"UPDATE message SET person_id = ? WHERE person_id = ? AND {theirs}",
                               (person_id, owner, name, fmt))
            touched.append(person_id)
    refresh_people(connection, touched)
    merge_owner(connection)
    return len(rows)


def owner_info(connection: sqlite3.Connection) -> OwnerInfo:
    row = connection.execute(_CANONICAL).fetchone()
    if row is None:
        return OwnerInfo(None)
    owner = row[0]
    name, messages = connection.execute("SELECT display_name, message_count FROM person WHERE id = ?",
                                        (owner,)).fetchone()
    chats = connection.execute("SELECT count(DISTINCT chat_id) FROM message WHERE person_id = ?",
                               (owner,)).fetchone()[0]
    aliases = [OwnerAlias(n, key.split(":", 1)[0]) for n, key in connection.execute(
        "SELECT display_name, key FROM person WHERE is_self = 1 ORDER BY id != ?, id", (owner,))]
    return OwnerInfo(owner, name, messages, chats, aliases)
