"""A message's reactions as people read them ("👍 Anna, Boris · ❤️ 3"), from `message.meta`
(issue 34: every importer that reads reactions keeps them there, beside the text)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from engine.store.sql import select_in


def reactions_of(connection: sqlite3.Connection, message_ids: Sequence[int]) -> dict[int, str]:
    """message id → its reactions in one line, for those of `message_ids` that have any."""
    said: dict[int, str] = {}
    for message_id, meta in select_in(connection, "SELECT id, meta FROM message WHERE meta IS NOT NULL "
                                                  "AND id IN ({ids})", list(message_ids)):
        try:
            reactions = json.loads(meta).get("reactions") or []
        except (ValueError, AttributeError):
            continue  # a meta no importer wrote: the message is shown without it
        parts = [f"{r.get('emoji')} {', '.join(r['by']) if r.get('by') else r.get('count')}"
                 for r in reactions if isinstance(r, dict)]
        if parts:
            said[message_id] = " \u00b7 ".join(parts)
    return said
