"""build_topics: every message without a topic ends up in exactly one new topic.

Per chat, the unassigned messages are cut into chunks (sessions.py); each chunk becomes
topics either by the splitter agent (validated by coverage.py) or, without one or when its
answer is unusable, as one topic with an extractive summary (summary.py).

Transactions: one per batch of whole chunks (`settings.batch_messages`, 20,000 by
default), not one per chat and not one overall. A chunk is never split across batches, so
every committed topic is complete; a cancel rolls back only the batch in progress, and
the next build continues from the first message still without a topic, cutting the same
chunks it would have cut anyway (cutting is greedy from the first unassigned message).
One transaction per chat would hold the write lock for minutes on a large chat and throw
it all away on cancel; one overall would do that for the whole store.

Incremental by construction: only `topic_id IS NULL AND is_service = 0` is read, so a
second build after a new import touches only the new messages and existing topics are
never recomputed.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.errors import CancelToken
from engine.messages import msg
from engine.store.transaction import write_transaction
from engine.topics.agents import SplitterAgent
from engine.topics.coverage import validate_coverage
from engine.topics.errors import AgentError, TopicBuildCancelled, TopicsError
from engine.topics.sessions import (
    MessageRow,
    chats_with_unassigned,
    count_unassigned,
    cut_sessions,
    unassigned_messages,
)
from engine.topics.settings import TopicSettings
from engine.topics.summary import Summarizer, chat_language

_INSERT_TOPIC = (
    "INSERT INTO topic (id, chat_id, summary, start_msg_id, end_msg_id, size_chars, message_count, first_at, "
    "last_at, content_hash, facts_extracted, is_consolidated, consolidation_checked, created_at) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,0,0,0,?)"
)
_MAX_EXAMPLES = 20
_WRITE_MESSAGES = 2_000  # messages assigned per write transaction: well under 0.1 s each
_PRELOAD_FROM = 20_000  # messages to build: above this one vocabulary scan beats per-topic lookups
_GIVE_UP_AFTER = 5  # LLM failures in a row (not bad answers) before the build stops


@dataclass
class TopicBuildReport:
    topics_created: int = 0
    messages_assigned: int = 0
    stragglers: int = 0  # messages the splitter left out (they went to "General conversation")
    merged: int = 0  # always 0 here; consolidate() reports its own merges
    seconds: float = 0.0
    chats: int = 0
    llm_chunks: int = 0  # chunks whose topics came from the splitter
    created_ids: list[int] = field(default_factory=list)  # to embed
    fallbacks: Counter[str] = field(default_factory=Counter)  # reason → chunks summarised extractively
    fallback_examples: list[str] = field(default_factory=list)  # the first few, with the model's detail


@dataclass(frozen=True, slots=True)
class _Draft:
    summary: str
    rows: Sequence[MessageRow]  # in (sent_at, id) order


def build_topics(
    connection: sqlite3.Connection,
    *,
    splitter: SplitterAgent | None = None,
    settings: TopicSettings = TopicSettings(),
    on_progress: Callable[[int, int], None] | None = None,
    cancel: CancelToken | None = None,
) -> TopicBuildReport:
    """Build topics for every message that has none. `connection` is an autocommit
    connection (engine.store.database.connect); raises TopicBuildCancelled on cancel."""
    started = time.perf_counter()
    report = TopicBuildReport()
    total = count_unassigned(connection)
    progress = on_progress or (lambda done, total: None)
    progress(0, total)
    builder = _Builder(connection, splitter, settings, cancel or CancelToken(), report,
                       preload_vocabulary=total >= _PRELOAD_FROM)
    try:
        for chat_id in chats_with_unassigned(connection):
            report.chats += 1
            builder.start_chat(chat_id)
            batch: list[list[MessageRow]] = []
            size = 0
            for chunk in cut_sessions(unassigned_messages(connection, chat_id), settings):
                batch.append(chunk)
                size += len(chunk)
                if size >= settings.batch_messages:
                    builder.commit(batch)
                    progress(report.messages_assigned, total)
                    batch, size = [], 0
            if batch:
                builder.commit(batch)
                progress(report.messages_assigned, total)
    finally:
        report.seconds = time.perf_counter() - started
    return report


class _Builder:
    """The state of one build: the chat being built, the summariser's df cache, the
    splitter's failure streak."""

    def __init__(self, connection, splitter, settings: TopicSettings, cancel: CancelToken, report,
                 preload_vocabulary: bool) -> None:
        self.connection = connection
        self.splitter = splitter
        self.settings = settings
        self.cancel = cancel
        self.report = report
        self.summarizer = Summarizer(connection, preload=preload_vocabulary)
        self.llm_failures_in_a_row = 0
        self.chat_id = 0
        self.title: str | None = None
        self.language = "en"

    def start_chat(self, chat_id: int) -> None:
        self.chat_id = chat_id
        found = self.connection.execute("SELECT title FROM chat WHERE id = ?", (chat_id,)).fetchone()
        self.title = found[0] if found else None
        self.language = chat_language(self.connection, chat_id)

    def commit(self, batch: list[list[MessageRow]]) -> None:
        if self.cancel.cancelled:
            raise TopicBuildCancelled(self.report)
        drafts = self._drafts(batch)
        ids = _write(self.connection, self.chat_id, drafts)
        self.report.created_ids.extend(ids)
        self.report.topics_created += len(ids)
        self.report.messages_assigned += sum(len(draft.rows) for draft in drafts)

    def _drafts(self, batch: list[list[MessageRow]]) -> list[_Draft]:
        if self.splitter is None:
            return [_Draft(self.summarizer.summarize(chunk, self.language), chunk) for chunk in batch]
        answers = self.splitter.split_many(batch, self.language, self.title,
                                           concurrency=self.settings.splitter_concurrency,
                                           stop=lambda: self.cancel.cancelled)
        if self.cancel.cancelled:  # the splitter may have run for minutes
            raise TopicBuildCancelled(self.report)
        self._check_endpoint(answers)
        drafts: list[_Draft] = []
        for chunk, answer in zip(batch, answers, strict=True):
            if not isinstance(answer, AgentError):
                coverage = validate_coverage([row.id for row in chunk], answer, self.language)
                if coverage.accepted:
                    self.report.llm_chunks += 1
                    self.report.stragglers += coverage.stragglers
                    for topic in coverage.topics:
                        rows = [chunk[index] for index in topic.positions]
                        # A bare "General conversation" finds nothing: say what is in it.
                        summary = (self.summarizer.summarize(rows, self.language, prefix=topic.summary)
                                   if topic.is_general else topic.summary)
                        drafts.append(_Draft(summary, rows))
                    continue
                answer = AgentError("no_valid_topics", msg("topics.agent.none_usable", count=coverage.dropped))
            self._record_fallback(chunk, answer)
            drafts.append(_Draft(self.summarizer.summarize(chunk, self.language), chunk))
        return drafts

    def _check_endpoint(self, answers: list) -> None:
        """Stop, keeping this batch unassigned, when the model keeps failing outright (bad key,
        server down): falling back chunk by chunk would quietly give the whole history
        extractive summaries that a later build with a working model never revisits."""
        for answer in answers:
            failed = isinstance(answer, AgentError) and answer.reason in ("llm_error", "timeout")
            self.llm_failures_in_a_row = self.llm_failures_in_a_row + 1 if failed else 0
            if self.llm_failures_in_a_row >= _GIVE_UP_AFTER:
                raise TopicsError(msg("topics.build_gave_up", count=_GIVE_UP_AFTER,
                                      last_error=answer.detail_message or answer.detail))

    def _record_fallback(self, chunk: list[MessageRow], error: AgentError) -> None:
        self.report.fallbacks[error.reason] += 1
        if len(self.report.fallback_examples) < _MAX_EXAMPLES:
            self.report.fallback_examples.append(
                f"chat {self.chat_id}, messages {chunk[0].id}…{chunk[-1].id}: {error.reason} {error.detail}".strip())


def content_hash(summary: str, rows: Sequence[MessageRow]) -> str:
    """sha256 of the summary and the members (id and content hash): changes when the topic does."""
    digest = hashlib.sha256(summary.encode("utf-8", "surrogatepass"))
    for row in rows:
        digest.update(f"\x1f{row.id}:{row.content_hash}".encode())
    return digest.hexdigest()


def topic_fields(summary: str, rows: Sequence[MessageRow]) -> tuple:
    """(summary, start_msg_id, end_msg_id, size_chars, message_count, first_at, last_at,
    content_hash) of a topic over `rows`, which are in (sent_at, id) order."""
    return (summary, rows[0].id, rows[-1].id, sum(len(row.text) for row in rows), len(rows),
            rows[0].sent_at, rows[-1].sent_at, content_hash(summary, rows))


def _write(connection: sqlite3.Connection, chat_id: int, drafts: list[_Draft]) -> list[int]:
    """Insert the topics and assign their messages, a topic and its messages in the same
    transaction, about `_WRITE_MESSAGES` messages per transaction (a batch of 20,000 in one
    kept other processes' writes out for seconds: issue 22); returns the new ids."""
    now = time.time()
    fields = [topic_fields(draft.summary, draft.rows) for draft in drafts]  # hashing: before the write lock
    ids: list[int] = []
    start = 0
    while start < len(drafts):
        stop, size = start, 0
        while stop < len(drafts) and (stop == start or size + len(drafts[stop].rows) <= _WRITE_MESSAGES):
            size += len(drafts[stop].rows)
            stop += 1
        ids += _write_group(connection, chat_id, drafts[start:stop], fields[start:stop], now)
        start = stop
    return ids


def _write_group(connection: sqlite3.Connection, chat_id: int, drafts: list[_Draft], fields: list[tuple],
                 now: float) -> list[int]:
    with write_transaction(connection):
        # Ids chosen here (under the write lock), so the message updates need no read-back.
        first_id = connection.execute("SELECT coalesce(max(id), 0) + 1 FROM topic").fetchone()[0]
        ids = list(range(first_id, first_id + len(drafts)))
        connection.executemany(_INSERT_TOPIC, [(topic_id, chat_id, *topic_fields_, now)
                                               for topic_id, topic_fields_ in zip(ids, fields, strict=True)])
        assignments = [(topic_id, row.id) for topic_id, draft in zip(ids, drafts, strict=True) for row in draft.rows]
        before = connection.total_changes
        connection.executemany("UPDATE message SET topic_id = ? WHERE id = ? AND topic_id IS NULL", assignments)
        if connection.total_changes - before != len(assignments):
            raise TopicsError(msg("topics.store_changed"))
    return ids
