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


def store_profile(connection: sqlite3.Connection) -> tuple[dict[str, int], list[str]]:
    """(chat name → id, busiest first; the store's languages, most letters first, "en" when unknown)."""
    chats: dict[str, int] = {}
    for chat_id, title in connection.execute("SELECT id, title FROM chat ORDER BY message_count DESC, id"):
        if title and title.strip() and title not in chats:  # two chats of one name: the busier is meant
            chats[title] = chat_id
    count = connection.execute("SELECT count(*) FROM message WHERE is_service = 0").fetchone()[0]
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
    return chats, languages or ["en"]
