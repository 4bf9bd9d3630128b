"""Step 4, compose (seed 002's compose_context): the kept topics' messages as numbered sources.

The export's packer decides what fits the token budget (engine/export/pack.py: whole
topics while they fit, then a topic's start and end around a "left out" line), so a
question's context is cut exactly as an exported pack is. Each packed topic is then split
into sources of at most `per_source` consecutive messages: a citation points at a few lines
with their chat, authors and times, not at a whole conversation, which is what lets verify
check a claim against what it cites and lets the window highlight the cited messages.

Topics become sources, and so do messages no build has reached yet (kind "message", with the
chat's messages around them, as exported): both are messages someone wrote. A person is a
description, not a message: what a kept person candidate brings is the messages behind the facts
the question is about ("what does my sister do?" → the owner's "my sister Lena teaches piano"),
each fact's messages one source, after the topics, within what is left of the budget. Files are
descriptions only.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from engine.ask.types import Source
from engine.export.pack import assemble_context
from engine.rerank.base import Candidate, Selection
from engine.retrieval.people import person_knowledge
from engine.text.tokens import estimate_tokens
from engine.topics.content import COLUMNS, format_log, topic_messages
from engine.topics.message_row import MessageRow
from engine.topics.summary import author_label


@dataclass
class Composed:
    sources: list[Source]
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.sources)


def _stamp(epoch: float) -> str:
    return f"{datetime.fromtimestamp(epoch, UTC):%Y-%m-%d %H:%M}"


def header(number: int, chat: str, authors: list[str], first_at: float, last_at: float) -> str:
    span = _stamp(first_at)
    if last_at != first_at:
        end = _stamp(last_at)
        span += "–" + (end[11:] if end[:10] == span[:10] else end)
    return f"[{number}] {chat} · {', '.join(authors)} · {span} UTC"


def _source(number: int, topic_id: int | None, chat: str, rows: list[MessageRow], lines: list[str]) -> Source:
    authors = list(dict.fromkeys(author_label(r) for r in rows))
    head = header(number, chat, authors, rows[0].sent_at, rows[-1].sent_at)
    text = head + "\n" + "\n".join(lines)
    return Source(number, topic_id, chat, [r.id for r in rows], rows[0].sent_at, rows[-1].sent_at, authors, text,
                  estimate_tokens(text), [r.text for r in rows], [author_label(r) for r in rows],
                  [r.sent_at for r in rows])


def _kept(item_text: str, rows: list[MessageRow]) -> list[tuple[int, str]]:
    """(index into rows, the line as packed) of each message the packer kept, in order. A
    message is kept when its whole log line stands between line breaks in the packed text;
    a first message the packer clipped (nothing else fitted) is kept as clipped."""
    framed = "\n" + item_text + "\n"
    kept = [(i, format_log([row])) for i, row in enumerate(rows) if "\n" + format_log([row]) + "\n" in framed]
    if not kept and rows and item_text.strip():
        kept = [(0, item_text.split("\n[… ", 1)[0])]
    return kept


def compose_sources(connection: sqlite3.Connection, question: str, selected: list[Selection],
                    candidates: list[Candidate], budget_tokens: int, per_source: int, *,
                    reranker: str | None = None, first_number: int = 1) -> Composed:
    """Numbered sources for the topics and unbuilt messages in `selected` (in the reranker's order)
    within the budget."""
    written = [replace(s, excerpt=None) for s in selected if s.kind in ("topic", "message")]
    pack = assemble_context(connection, question, written, candidates, budget_tokens, reranker=reranker)
    sources: list[Source] = []
    number = first_number
    for item in pack.items:
        topic_id: int | None = item.id if item.kind == "topic" else None
        rows = topic_messages(connection, item.id) if topic_id is not None else _rows_around(connection, item.sources)
        kept = _kept(item.text, rows)
        run: list[tuple[int, str]] = []
        for index, line in kept:
            # A new source at the size limit and wherever the packer left messages out between.
            if run and (len(run) >= per_source or index != run[-1][0] + 1):
                sources.append(_source(number, topic_id, item.chat or "", [rows[i] for i, _ in run],
                                       [t for _, t in run]))
                number += 1
                run = []
            run.append((index, line))
        if run:
            sources.append(_source(number, topic_id, item.chat or "", [rows[i] for i, _ in run],
                                   [t for _, t in run]))
            number += 1
    facts = _fact_sources(connection, question, selected, number, budget_tokens - sum(s.tokens for s in sources),
                          {i for s in sources for i in s.message_ids})
    sources += facts
    detail = {"budget_tokens": budget_tokens, "packed_tokens": pack.used_tokens,
              "topics": [item.id for item in pack.items if item.kind == "topic"],
              "unbuilt_messages": [item.id for item in pack.items if item.kind == "message"],
              "truncated": [i.id for i in pack.items if i.truncated],
              "omitted": pack.omitted, "not_topics": sum(1 for s in selected if s.kind not in ("topic", "message")),
              "sources": len(sources), "source_tokens": sum(s.tokens for s in sources),
              "fact_sources": len(facts)}
    return Composed(sources, detail)


def _fact_sources(connection: sqlite3.Connection, question: str, selected: list[Selection], number: int,
                  budget_left: int, already: set[int]) -> list[Source]:
    """Sources for the kept people: the messages that state the facts the question is about
    (the person candidate's facts, engine.retrieval.people), one source per fact, skipping
    messages a topic source already holds, while they fit in `budget_left` tokens."""
    people = [s.id for s in selected if s.kind == "person"]
    if not people:
        return []
    knowledge = person_knowledge(connection)
    sources: list[Source] = []
    for person_id in people:
        known = knowledge.get(person_id)
        for fact in known.matching(question, everything=True) if known is not None else []:
            ids = [i for i in fact.message_ids if i not in already]
            if not ids:
                continue
            marks = ",".join("?" * len(ids))
            rows = [MessageRow._make(r) for r in connection.execute(
                f"SELECT {COLUMNS} FROM message WHERE id IN ({marks}) ORDER BY sent_at, id", ids)]
            if not rows:
                continue
            title = connection.execute("SELECT title FROM chat WHERE id = ?", (rows[0].chat_id,)).fetchone()
            source = _source(number, None, title[0] if title else "", rows, [format_log([r]) for r in rows])
            if source.tokens > budget_left:
                return sources
            sources.append(source)
            budget_left -= source.tokens
            already.update(ids)
            number += 1
    return sources


def _rows_around(connection: sqlite3.Connection, sources: dict[str, Any]) -> list[MessageRow]:
    """The messages an unbuilt message's packed item holds (its chat's, from the first to the last id)."""
    first, last = sources.get("first_message_id"), sources.get("last_message_id")
    if first is None or last is None:
        return []
    rows = connection.execute(f"SELECT {COLUMNS} FROM message WHERE chat_id = (SELECT chat_id FROM message "
                              "WHERE id = ?) AND is_service = 0 AND (sent_at, id) >= (SELECT sent_at, id FROM message "
                              "WHERE id = ?) AND (sent_at, id) <= (SELECT sent_at, id FROM message WHERE id = ?) "
                              "ORDER BY sent_at, id", (first, first, last)).fetchall()
    return [MessageRow._make(row) for row in rows]


def render_sources(sources: list[Source]) -> str:
    """The sources as the answer's prompt shows them, each under its [n] header."""
    return "\n\n".join(s.text for s in sources)


_PROFILE_TAG = re.compile(r"<(/?\s*user_profile\b)", re.IGNORECASE)


def fence_profile(text: str) -> str:
    """The profile between <user_profile> tags that its own text cannot close early."""
    return "<user_profile>\n" + _PROFILE_TAG.sub(lambda m: "‹" + m.group(1), text.strip()) + "\n</user_profile>"
