"""One person across chats and formats, where the user confirms it (issue 33, item 2), and a
person's short bio rebuilt from what is known of them.

Every import keys its people by its own format ("telegram:user123", "whatsapp:name:Bob"), and
the Archivist adds a row for each person it hears of ("archivist:name:lena"), so one human is
often several rows. `same_person_pairs` lists the likely ones: the same name or alias once
folded (case, "ё", emoji and punctuation dropped) on two rows of different keys. Nothing is
merged on a guess: the person confirms (`merge_people`, one transaction: messages, aliases,
facts and their history move to the kept person, and `person_merge` records it) or says "not
the same" (`refuse_same`, remembered in `person_not_same`, so the pair is never offered again).

The bio: the person's own words outrank the model's (`person.bio_by_person`); otherwise it is
rebuilt from the person's active facts, pinned and important first, at most `BIO_CHARS`.
Every function runs inside the caller's write transaction (engine.api opens it) and commits
nothing on its own.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import unicodedata
from dataclasses import dataclass

from engine.errors import EngineError
from engine.facts import store as facts_store

# Where a row came from, by its key's prefix: brand names, the same in every language.
SOURCE_NAMES = {"telegram": "Telegram", "whatsapp": "WhatsApp", "jsonl": "JSONL", "chatgpt": "ChatGPT",
                "discord": "Discord", "messenger": "Messenger", "slack": "Slack", "signal": "Signal",
                "imessage": "iMessage", "line": "LINE"}
BIO_CHARS = 240  # a card's two lines and a candidate's line for the rerankers
_WORD = re.compile(r"[^\W_]+")

# An assistant is nobody to merge: engine.memory.people_and_files.ASSISTANT_PERSON_SQL's rule,
# restated because facts may not import memory (the same layer, tests/engine/test_layering.py).
_ASSISTANT_SQL = ("(p.key IN ('chatgpt:assistant', 'chatgpt:system') OR p.key LIKE 'chatgpt:tool:%' "
                  "OR NOT EXISTS (SELECT 1 FROM message am WHERE am.person_id = p.id AND am.role != 'assistant'))")


class CannotMerge(EngineError):
    """Two rows that may not be merged: the same row, a missing one, or the owner (who is one
    person already, by `flashback owner --name`)."""

    code = "people.merge.refused"


@dataclass(frozen=True)
class PersonSide:
    """One of the two rows a suggestion names: enough for the person to judge."""

    id: int
    name: str
    messages: int
    chats: tuple[str, ...]
    facts: int
    source: str = ""  # the format it was imported from ("WhatsApp"); "" for a person the model heard of


@dataclass(frozen=True)
class SamePerson:
    """Two rows that are likely one person; `name` is the folded name they share. `kept` has
    more messages (ties: the older row) and is the one a merge keeps."""

    kept: PersonSide
    other: PersonSide
    name: str


@dataclass(frozen=True)
class MergeReport:
    kept_id: int
    merged_id: int
    messages: int
    facts: int


def fold(name: str) -> str:
    """A name as compared: NFKC, case-folded, "ё" as "е", only its letters and digits."""
    text = unicodedata.normalize("NFKC", name).casefold().replace("ё", "е")
    return " ".join(_WORD.findall(text))


def _aliases(stored: str | None) -> list[str]:
    try:
        return [str(a) for a in json.loads(stored or "[]") if str(a).strip()]
    except (ValueError, TypeError):
        return []


def _side(connection: sqlite3.Connection, person_id: int, name: str, messages: int, key: str) -> PersonSide:
    chats = tuple(r[0] for r in connection.execute(
        "SELECT c.title FROM chat c JOIN (SELECT chat_id, count(*) AS n FROM message WHERE person_id = ? "
        "GROUP BY chat_id) m ON m.chat_id = c.id ORDER BY m.n DESC, c.id LIMIT 3", (person_id,)))
    facts = connection.execute("SELECT count(*) FROM fact WHERE person_id = ? AND state = 'active'",
                               (person_id,)).fetchone()[0]
    return PersonSide(person_id, name, messages, chats, int(facts), SOURCE_NAMES.get(key.split(":", 1)[0], ""))


def same_person_pairs(connection: sqlite3.Connection, person_id: int | None = None) -> list[SamePerson]:
    """Pairs of people (not the owner, not an assistant) with a name or alias in common once
    folded, on rows of different keys, that the person has not refused; those involving
    `person_id` only when given. A row counts when it has messages or facts."""
    rows = connection.execute(
        "SELECT p.id, p.display_name, p.aliases, p.message_count, p.key FROM person p WHERE p.is_self = 0 "
        f"AND (p.message_count > 0 AND NOT {_ASSISTANT_SQL} OR p.message_count = 0 AND EXISTS "
        "(SELECT 1 FROM fact f WHERE f.person_id = p.id AND f.state = 'active')) ORDER BY p.id").fetchall()
    refused = {(a, b) for a, b in connection.execute("SELECT first_id, second_id FROM person_not_same")}
    by_name: dict[str, list[tuple[int, str, int, str]]] = {}
    for row_id, name, aliases, messages, key in rows:
        for folded in dict.fromkeys(fold(n) for n in [name, *_aliases(aliases)]):
            if folded:
                by_name.setdefault(folded, []).append((row_id, name, messages, key))
    pairs: dict[tuple[int, int], SamePerson] = {}
    for folded, named in by_name.items():
        for i, first in enumerate(named):
            for second in named[i + 1:]:
                key = (min(first[0], second[0]), max(first[0], second[0]))
                if key in pairs or key in refused or first[0] == second[0]:
                    continue
                if person_id is not None and person_id not in key:
                    continue
                if (first[2], -first[0]) < (second[2], -second[0]):
                    first, second = second, first  # more messages kept; on a tie the older row
                pairs[key] = SamePerson(_side(connection, *first), _side(connection, *second), folded)
    return sorted(pairs.values(), key=lambda p: (-(p.kept.messages + p.other.messages), p.kept.id, p.other.id))


def refuse_same(connection: sqlite3.Connection, first_id: int, second_id: int, now: float | None = None) -> None:
    """The person says these two are not the same: never offered again."""
    connection.execute("INSERT OR IGNORE INTO person_not_same (first_id, second_id, at) VALUES (?, ?, ?)",
                       (min(first_id, second_id), max(first_id, second_id), time.time() if now is None else now))


def merge_people(connection: sqlite3.Connection, kept_id: int, merged_id: int,
                 now: float | None = None) -> MergeReport:
    """Make `merged_id` part of `kept_id`, as the person confirmed: its messages, its facts
    (with their provenance and history, a "merge" line added to each), its name and aliases
    (as the kept person's aliases) and, where the kept has none, its circle. The merged row
    stays without messages, recorded in `person_merge`. CannotMerge for the owner, the same
    row twice or a missing row."""
    moment = time.time() if now is None else now
    rows = {r[0]: r for r in connection.execute(
        "SELECT id, display_name, key, aliases, circle, is_self, bio, bio_by_person FROM person WHERE id IN (?, ?)",
        (kept_id, merged_id))}
    if kept_id == merged_id or len(rows) != 2 or any(r[5] for r in rows.values()):
        raise CannotMerge(kept=kept_id, merged=merged_id)
    kept, merged = rows[kept_id], rows[merged_id]
    messages = connection.execute("UPDATE message SET person_id = ? WHERE person_id = ?",
                                  (kept_id, merged_id)).rowcount
    fact_ids = [r[0] for r in connection.execute("SELECT id FROM fact WHERE person_id = ?", (merged_id,))]
    connection.execute("UPDATE fact SET person_id = ? WHERE person_id = ?", (kept_id, merged_id))
    for fact_id in fact_ids:
        text = connection.execute("SELECT text FROM fact WHERE id = ?", (fact_id,)).fetchone()[0]
        facts_store.log_change(connection, fact_id, "merge", text, text, f"{merged[1]} merged into {kept[1]}",
                               None, moment)
    aliases: dict[str, str] = {}  # each other spelling once (case aside), in the order met
    for name in [*_aliases(kept[3]), merged[1], *_aliases(merged[3])]:
        if name.strip() and name.strip().casefold() != kept[1].strip().casefold():
            aliases.setdefault(name.strip().casefold(), name.strip())
    facts_store.set_person(connection, kept_id, aliases=list(aliases.values()), circle=kept[4] or merged[4])
    if not kept[7] and merged[7]:  # the person's own words about the merged row outrank a model's
        connection.execute("UPDATE person SET bio = ?, bio_by_person = 1 WHERE id = ?", (merged[6], kept_id))
    connection.execute(
        "UPDATE person SET (message_count, first_seen, last_seen) = (SELECT count(*), min(sent_at), max(sent_at) "
        "FROM message WHERE person_id = person.id) WHERE id IN (?, ?)", (kept_id, merged_id))
    connection.execute("UPDATE person SET bio = '', bio_by_person = 0, aliases = '[]' WHERE id = ?", (merged_id,))
    connection.execute("DELETE FROM person_not_same WHERE first_id = ? OR second_id = ?", (merged_id, merged_id))
    connection.execute(
        "INSERT INTO person_merge (kept_id, merged_id, merged_name, merged_key, messages, facts, at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)", (kept_id, merged_id, merged[1], merged[2], messages, len(fact_ids), moment))
    rebuild_bio(connection, kept_id)
    return MergeReport(kept_id, merged_id, messages, len(fact_ids))


def merges(connection: sqlite3.Connection) -> list[tuple[int, int, str, float]]:
    """Every merge so far, oldest first: (kept id, merged id, merged name, when)."""
    return [tuple(r) for r in connection.execute(  # type: ignore[misc]  # sqlite rows are tuples of these four
        "SELECT kept_id, merged_id, merged_name, at FROM person_merge ORDER BY at, id")]


def composed_bio(connection: sqlite3.Connection, person_id: int) -> str:
    """The person's active facts as one short text: pinned first, then identity and the most
    important (the order `facts_of` reads them in), whole facts only, at most BIO_CHARS. It
    opens with the first clause of what the Archivist said of them ("Alice's sister"), where a
    relation is often said and no fact repeats it."""
    parts: list[str] = []
    said = connection.execute("SELECT model_bio FROM person WHERE id = ?", (person_id,)).fetchone()
    opening = re.split(r"[.;,!?]\s|[.;!?]$", (said[0] if said else "").strip(), maxsplit=1)[0].strip()
    if opening and len(opening) <= BIO_CHARS // 2:
        parts.append(opening)
    for fact in facts_store.facts_of(connection, person_id):
        text = fact.text.strip().rstrip(".;")
        if not text:
            continue
        candidate = "; ".join([*parts, text])
        if len(candidate) > BIO_CHARS:
            if not parts:  # one long fact: cut at a word, never an empty bio
                parts.append(text[:BIO_CHARS - 1].rsplit(" ", 1)[0] + "…")
            break
        parts.append(text)
    return "; ".join(parts) + ("." if parts and not parts[-1].endswith("…") else "")


def rebuild_bio(connection: sqlite3.Connection, person_id: int | None) -> None:
    """The person's bio from their facts, unless they wrote it themselves. With no fact ever
    the bio stays as it is (what the Archivist said of a person it only heard of); with none
    active any more it is emptied."""
    if person_id is None:
        return  # the owner's card lists the owner's facts; "you" has no bio of its own
    row = connection.execute("SELECT bio_by_person FROM person WHERE id = ?", (person_id,)).fetchone()
    if row is None or row[0]:
        return
    bio = composed_bio(connection, person_id)
    if not bio and connection.execute("SELECT 1 FROM fact WHERE person_id = ? LIMIT 1", (person_id,)).fetchone():
        bio = ""  # their last fact was marked wrong or deleted: a bio made of it goes with it
    elif not bio:
        return
    connection.execute("UPDATE person SET bio = ? WHERE id = ?", (bio, person_id))


def rebuild_bios(connection: sqlite3.Connection) -> None:
    """Every person with active facts (after an extraction run)."""
    for person_id, in connection.execute(
            "SELECT DISTINCT person_id FROM fact WHERE person_id IS NOT NULL AND state = 'active'").fetchall():
        rebuild_bio(connection, person_id)
