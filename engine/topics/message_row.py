"""The one row type topic building reads: a message's columns, straight from SQLite."""

from __future__ import annotations

from typing import NamedTuple


class MessageRow(NamedTuple):
    """The columns topic building needs. A NamedTuple: built straight from sqlite rows."""

    id: int
    chat_id: int
    author: str | None
    role: str
    sent_at: float
    text: str
    content_hash: str


COLUMNS = "id, chat_id, author, role, sent_at, text, content_hash"  # in MessageRow's order
