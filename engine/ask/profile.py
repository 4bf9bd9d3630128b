"""What the plan needs to know about a store: its chats by name, and the languages they are written in.

Languages are read from the letters of a sample of messages spread over the whole store
(Cyrillic → Russian, Latin → English): the plan asks for a sub-query in each, so a question
in one language finds messages written in the other through BM25 too.
"""

from __future__ import annotations

import sqlite3

from engine.retrieval.fusion import script_shares

SAMPLE_MESSAGES = 2000
MIN_SHARE = 0.1  # a script with less than this share of the sample's letters is not a language of the store
SCRIPT_LANGUAGES = {"LATIN": "en", "CYRILLIC": "ru"}
# The languages read per store file and its messages (their count and newest id): reading them
# looks at every letter of the sample (~50 ms on the demo, more on a big store), and an Ask
# reads the profile on the thread that awaits it, the window's GUI thread (issue 31).
_languages_read: dict[tuple[str, int, int], list[str]] = {}


def store_profile(connection: sqlite3.Connection) -> tuple[dict[str, int], list[str]]:
    """(chat name → id, busiest first; the store's languages, most letters first, "en" when unknown)."""
    chats: dict[str, int] = {}
    for chat_id, title in connection.execute("SELECT id, title FROM chat ORDER BY message_count DESC, id"):
        if title and title.strip() and title not in chats:  # two chats of one name: the busier is meant
            chats[title] = chat_id
    count, newest = connection.execute("SELECT count(*), coalesce(max(id), 0) FROM message "
                                       "WHERE is_service = 0").fetchone()
    database = next((row[2] for row in connection.execute("PRAGMA database_list") if row[1] == "main"), "")
    key = (database, count, newest)
    if database and key in _languages_read:
        return chats, list(_languages_read[key])
    languages = _store_languages(connection, count)
    if database:
        _languages_read[key] = list(languages)
    return chats, languages


def _store_languages(connection: sqlite3.Connection, count: int) -> list[str]:
    step = max(1, count // SAMPLE_MESSAGES)
    texts = [row[0] for row in connection.execute(
        "SELECT text FROM message WHERE is_service = 0 AND id % ? = 0 LIMIT ?", (step, SAMPLE_MESSAGES))]
    letters: dict[str, float] = {}
    for text in texts:
        for script, share in script_shares(text).items():
            letters[script] = letters.get(script, 0.0) + share * len(text)
    total = sum(letters.values())
    languages = [SCRIPT_LANGUAGES[script] for script, amount in sorted(letters.items(), key=lambda kv: -kv[1])
                 if script in SCRIPT_LANGUAGES and total and amount / total >= MIN_SHARE]
    return languages or ["en"]
