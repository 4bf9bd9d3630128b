"""consolidate: merge topics that are one conversation cut in pieces (seed 004).

Only topics with `consolidation_checked = 0` start a comparison, so a run costs what is
new. Candidates are pairs in the same chat (a topic is a segment of one chat's log; a
merged cross-chat topic would have no chat) with cosine ≥ `consolidation_threshold`
whose combined size stays within `max_merged_chars`.

With a merger agent (seed 004): each unchecked topic is compared with the topics of its
chat within `_TIME_WINDOW` places of it in time order (bounded cost: an exhaustive
all-pairs pass over a chat of 100k topics is not affordable, and continuations sit close
in time), and the agent is asked about its best candidates until one merge is accepted.

Without one, the rule: merge only *adjacent* topics of a chat (no other topic between
them) whose vectors agree. Adjacent plus similar is what a session cut at an hour's pause
or at a size cap looks like; without a judge, merging non-adjacent topics would interleave
separate conversations. Chains (A, B, C about the same thing) merge into one, compared
through the mean of the members' vectors so a chain cannot drift A→B→…→Z, and stop at the
size cap.

A merge keeps the earlier topic's id: messages are re-pointed, bounds, sizes and hash are
recomputed from the members, the summary is the agent's or re-extracted, the source rows
are deleted. The report lists changed and deleted ids so the caller can re-embed and
`mark_deleted` in the index. A topic whose merge question failed (LLM down) stays
unchecked, so the next run asks again.
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import numpy as np

from engine.errors import CancelToken
from engine.store.transaction import write_transaction
from engine.topics.agents import MergerAgent
from engine.topics.builder import topic_fields
from engine.topics.content import format_log, topic_messages
from engine.topics.errors import AgentError, TopicBuildCancelled
from engine.topics.settings import TopicSettings
from engine.topics.summary import Summarizer, chat_language

VectorsFor = Callable[[list[int]], np.ndarray]  # ids → (len(ids), dim) L2-normalised rows; zeros = no vector
_BLOCK = 1024  # topics whose vectors are held at once (plus the window around them)
_TIME_WINDOW = 200
_GIVE_UP_AFTER = 3  # consecutive LLM failures: the endpoint is down, stop asking this run
_MAX_DECISIONS = 50


@dataclass
class ConsolidationReport:
    checked: int = 0
    candidates: int = 0  # pairs at or above the threshold
    over_cap: int = 0  # of those, pairs that would exceed max_merged_chars
    merged: int = 0  # topics merged away (= len(deleted_ids))
    changed_ids: list[int] = field(default_factory=list)  # re-embed these
    deleted_ids: list[int] = field(default_factory=list)  # mark_deleted these
    failures: Counter[str] = field(default_factory=Counter)  # merger failures by reason
    decisions: list[str] = field(default_factory=list)  # the merger's first answers, for the trace
    seconds: float = 0.0


class _Topic(NamedTuple):
    id: int
    size: int
    checked: bool


def consolidate(
    connection: sqlite3.Connection,
    vectors_for: VectorsFor,
    *,
    merger: MergerAgent | None = None,
    settings: TopicSettings = TopicSettings(),
    on_progress: Callable[[int, int], None] | None = None,
    cancel: CancelToken | None = None,
) -> ConsolidationReport:
    """Merge similar topics among the unchecked ones; commits per chat block of topics."""
    started = time.perf_counter()
    report = ConsolidationReport()
    cancel = cancel or CancelToken()
    total = connection.execute("SELECT count(*) FROM topic WHERE consolidation_checked = 0").fetchone()[0]
    chats = [chat_id for (chat_id,) in connection.execute(
        "SELECT DISTINCT chat_id FROM topic WHERE consolidation_checked = 0 ORDER BY chat_id")]
    summarizer = Summarizer(connection)
    try:
        for chat_id in chats:
            topics = [_Topic(*row) for row in connection.execute(
                "SELECT id, size_chars, consolidation_checked FROM topic WHERE chat_id = ? ORDER BY first_at, id",
                (chat_id,))]
            language = chat_language(connection, chat_id)
            if merger is None:
                plans = _adjacent_merges(topics, vectors_for, settings, report)
            else:
                plans = _MergerPass(connection, merger, settings, report, language, cancel).plans(topics, vectors_for)
            for merges, checked in plans:
                # Applied even when cancelled: the merger's answers cost money and time.
                _apply(connection, summarizer, language, merges, checked, report)
                if on_progress:
                    on_progress(report.checked, total)
                if cancel.cancelled:
                    raise TopicBuildCancelled(report)
    finally:
        report.seconds = time.perf_counter() - started
    return report


def _load(vectors_for: VectorsFor, ids: list[int]) -> dict[int, np.ndarray]:
    """id → unit vector, leaving out ids the caller has no vector for (zero rows)."""
    if not ids:
        return {}
    matrix = np.asarray(vectors_for(ids), dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1)
    return {topic_id: matrix[i] / norms[i] for i, topic_id in enumerate(ids) if norms[i] > 1e-6}


def _adjacent_merges(topics: list[_Topic], vectors_for: VectorsFor, settings: TopicSettings,
                     report: ConsolidationReport) -> Iterator[tuple[list[tuple[list[int], str | None]], list[int]]]:
    """The rule without an agent: chains of adjacent similar topics, block by block.

    Yields (merges, checked ids) per block; a chain still open at a block's end is carried
    into the next block and written with it.
    """
    unchecked = [not topic.checked for topic in topics]
    group: list[int] = []  # positions
    group_sum: np.ndarray | None = None
    group_size, group_new = 0, False

    def close(merges: list, checked: list[int]) -> None:
        if len(group) > 1:
            merges.append(([topics[i].id for i in group], None))
        # A topic without a vector yet (not embedded) was compared with nothing: it stays unchecked.
        checked.extend(topics[i].id for i in group if unchecked[i] and group_sum is not None)

    for start in range(0, len(topics), _BLOCK):
        window = range(start, min(start + _BLOCK, len(topics)))
        # Checked pairs were judged before; only topics next to an unchecked one need vectors.
        needed = [topics[i].id for i in window
                  if unchecked[i] or (i > 0 and unchecked[i - 1]) or (i + 1 < len(topics) and unchecked[i + 1])]
        vectors = _load(vectors_for, needed)
        merges: list[tuple[list[int], str | None]] = []
        checked: list[int] = []
        for i in window:
            vector = vectors.get(topics[i].id)
            joins = False
            if group_sum is not None and vector is not None and (unchecked[i] or group_new):
                cosine = float(group_sum @ vector) / float(np.linalg.norm(group_sum))
                if cosine >= settings.consolidation_threshold:
                    report.candidates += 1
                    joins = group_size + topics[i].size <= settings.max_merged_chars
                    report.over_cap += not joins
            if joins:
                assert group_sum is not None and vector is not None  # `joins` is set only when both are
                group.append(i)
                group_sum = group_sum + vector
                group_size += topics[i].size
                group_new = group_new or unchecked[i]
                continue
            close(merges, checked)
            group, group_sum, group_size, group_new = [i], vector, topics[i].size, unchecked[i]
        if window.stop == len(topics):
            close(merges, checked)
        yield merges, checked


class _MergerPass:
    """The agent's path: windowed candidates, one question at a time, one merge per topic per run."""

    def __init__(self, connection, merger: MergerAgent, settings: TopicSettings, report: ConsolidationReport,
                 language: str, cancel: CancelToken) -> None:
        self.connection, self.merger, self.cancel = connection, merger, cancel
        self.settings, self.report, self.language = settings, report, language
        self.touched: set[int] = set()  # merged this run: gone, or its vector is stale
        self.asked: set[tuple[int, int]] = set()
        self.failed: set[tuple[int, int]] = set()
        self.failures_in_a_row = 0

    def plans(self, topics: list[_Topic], vectors_for: VectorsFor):
        position = {topic.id: i for i, topic in enumerate(topics)}
        unchecked = [topic for topic in topics if not topic.checked]
        for start in range(0, len(unchecked), _BLOCK):
            block = unchecked[start:start + _BLOCK]
            low = max(0, position[block[0].id] - _TIME_WINDOW)
            high = min(len(topics), position[block[-1].id] + _TIME_WINDOW + 1)
            around = topics[low:high]
            vectors = _load(vectors_for, [topic.id for topic in around])
            merges: list[tuple[list[int], str | None]] = []
            checked: list[int] = []
            for topic in block:
                if self.cancel.cancelled:
                    break  # what was decided so far is still written
                outcome = self._judge(topic, around, position, vectors)
                if outcome is None:
                    continue  # failed or deferred: stays unchecked, asked again next run
                checked.append(topic.id)
                if outcome:
                    merges.append(outcome)
            yield merges, checked

    def _judge(self, topic: _Topic, around: list[_Topic], position: dict[int, int],
               vectors: dict[int, np.ndarray]) -> tuple[list[int], str | None] | Literal[False] | None:
        """A merge (ids, summary), False for "nothing to merge", None to leave it unchecked."""
        if topic.id in self.touched:
            return False  # merged already this run; its new vector is compared next run
        vector = vectors.get(topic.id)
        if vector is None or self.failures_in_a_row >= _GIVE_UP_AFTER:
            return None
        here = position[topic.id]
        candidates = []
        for other in around:
            if other.id == topic.id or abs(position[other.id] - here) > _TIME_WINDOW or other.id not in vectors:
                continue
            cosine = float(vector @ vectors[other.id])
            if cosine < self.settings.consolidation_threshold:
                continue
            self.report.candidates += 1
            if topic.size + other.size > self.settings.max_merged_chars:
                self.report.over_cap += 1
                continue
            candidates.append((cosine, other))
        candidates.sort(key=lambda item: -item[0])
        deferred = False
        for _cosine, other in candidates[: self.settings.max_merge_candidates]:
            pair = (min(topic.id, other.id), max(topic.id, other.id))
            if other.id in self.touched:
                deferred = True  # it changed this run: ask about it once it is re-embedded
                continue
            if pair in self.failed:
                deferred = True  # its question failed this run: both sides wait for the next run
                continue
            if pair in self.asked:
                continue
            self.asked.add(pair)
            first, second = sorted((topic, other), key=lambda item: position[item.id])
            try:
                decision = self.merger.evaluate_sync(self._view(first.id), self._view(second.id), self.language)
            except AgentError as exc:
                self.failed.add(pair)
                self.report.failures[exc.reason] += 1
                self.failures_in_a_row += 1
                return None
            self.failures_in_a_row = 0
            if len(self.report.decisions) < _MAX_DECISIONS:
                self.report.decisions.append(
                    f"{first.id}+{second.id}: {'merge' if decision.should_merge else 'keep'} ({decision.reason})")
            if decision.should_merge:
                self.touched.update((first.id, second.id))
                return [first.id, second.id], decision.merged_summary or None
        return None if deferred else False

    def _view(self, topic_id: int) -> tuple[str, str]:
        summary = self.connection.execute("SELECT summary FROM topic WHERE id = ?", (topic_id,)).fetchone()[0]
        return summary, format_log(topic_messages(self.connection, topic_id))


def _apply(connection: sqlite3.Connection, summarizer: Summarizer, language: str,
           merges: list[tuple[list[int], str | None]], checked: list[int], report: ConsolidationReport) -> None:
    """Carry out the merges and mark the checked topics, in one transaction."""
    with write_transaction(connection):
        for ids, summary in merges:
            target, sources = ids[0], ids[1:]
            marks = ",".join("?" * len(sources))
            connection.execute(f"UPDATE message SET topic_id = ? WHERE topic_id IN ({marks})", (target, *sources))
            rows = topic_messages(connection, target)
            fields = topic_fields(summary or summarizer.summarize(rows, language), rows)
            connection.execute(
                "UPDATE topic SET summary = ?, start_msg_id = ?, end_msg_id = ?, size_chars = ?, message_count = ?, "
                "first_at = ?, last_at = ?, content_hash = ?, is_consolidated = 1, consolidation_checked = 1 "
                "WHERE id = ?", (*fields, target))
            connection.execute(f"DELETE FROM topic WHERE id IN ({marks})", sources)
        connection.executemany("UPDATE topic SET consolidation_checked = 1 WHERE id = ?", [(i,) for i in checked])
    report.checked += len(checked)
    for ids, _summary in merges:
        report.changed_ids.append(ids[0])
        report.deleted_ids.extend(ids[1:])
        report.merged += len(ids) - 1
