"""Stage 1: a query becomes ranked candidates (topics, people, artifacts) with calibrated scores.

Topics: hnswlib top-N by cosine (best chunk per topic), optionally fused with FTS5 BM25
over stemmed terms and diversified by MMR; then the safety threshold. Fusion adds the
calibrated similarity and BM25's `lexical_relevance`, both absolute scales in [0, 1], so
the fused score is what ranks a topic, what the candidate shows and what the thresholds
cut (reciprocal rank fusion, the alternative, ranks only: its candidates show the
similarity). Date and chat filters are exact: when they leave few topics, those are
scored directly from their stored vectors instead of hoping an approximate search finds them.
They hold for people and files too (issue 23): a person is a candidate only with a message
in the filtered chats and days, a file only if it was sent there; an assistant
(`ASSISTANT_PERSON_SQL`) never is. A date range that ends before it starts is refused.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

import numpy as np

from engine.embeddings.base import Embedder
from engine.errors import EngineError
from engine.memory.calibration import Calibration, background_sample, query_background
from engine.memory.indexes import IndexSet
from engine.memory.people_and_files import ASSISTANT_PERSON_SQL
from engine.messages import Message
from engine.retrieval.candidate import Candidate
from engine.retrieval.fusion import (
    LEXICAL_WEIGHT_BUILTIN,
    LEXICAL_WEIGHT_OTHER,
    calibrated_fusion,
    lexical_weight_for,
    maximal_marginal_relevance,
    reciprocal_rank_fusion,
    script_overlap,
    script_shares,
)
from engine.retrieval.lexical import TermStatistics, chat_filter, topic_lexical_scores
from engine.retrieval.people import PersonEvidence, named_and_known_scores, person_knowledge, person_line, said_scores
from engine.retrieval.settings import RetrievalSettings
from engine.store.sql import select_in

EXACT_FILTER_LIMIT = 20000  # filtered sets up to this many topics are scored exactly
# People and files are few beside topics; under a filter their approximate search is widened
# (×4 a round) until enough pass it, up to this many hits, then what passed is what there is.
ENTITY_WIDEN_LIMIT = 4096
__all__ = ["LEXICAL_WEIGHT_BUILTIN", "LEXICAL_WEIGHT_OTHER", "EmptyDateRange", "RetrievalSettings", "Retriever",
           "Stage1Result", "check_date_range", "default_lexical_weight"]


class EmptyDateRange(EngineError):
    """A date filter whose first day is after its last: nothing could match, so nothing is searched."""

    code = "search.dates_inverted"


def check_date_range(date_from: float | None, date_to: float | None) -> None:
    """Raise EmptyDateRange when both bounds are set and the range ends before it starts."""
    if date_from is not None and date_to is not None and date_from > date_to:
        raise EmptyDateRange(first=_iso_date(date_from) or "", last=_iso_date(date_to) or "")


def default_lexical_weight(embedder: Embedder) -> float:
    """BM25's share in score fusion by embedder (measured: engine.retrieval.fusion)."""
    return lexical_weight_for(embedder)


@dataclass
class Stage1Result:
    query: str
    candidates: list[Candidate]
    timings_ms: dict[str, float] = field(default_factory=dict)
    rebuilt: dict[str, Message | str] = field(default_factory=dict)  # kind → why its index was rebuilt (a note)
    settings: RetrievalSettings = field(default_factory=RetrievalSettings)  # what produced them


DAY_S = 86400


def day_bounds(first_day: str | None, last_day: str | None) -> tuple[float | None, float | None]:
    """`date_from`/`date_to` for whole UTC days given as "YYYY-MM-DD" (empty or None: no bound);
    the last day counts to its final moment. ValueError on anything else."""
    def start(day: str) -> float:
        return datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC).timestamp()

    return (start(first_day) if first_day else None,
            start(last_day) + DAY_S - 0.001 if last_day else None)


def _iso_date(epoch: float | None) -> str | None:
    return datetime.fromtimestamp(epoch, UTC).date().isoformat() if epoch is not None else None


def _in(ids: list[int]) -> str:
    return ",".join("?" * len(ids))


class Retriever:
    def __init__(self, embedder: Embedder, indexes: IndexSet, calibration: Calibration) -> None:
        self.embedder = embedder
        self.indexes = indexes
        self.calibration = calibration
        self.term_statistics = TermStatistics()  # BM25 document frequencies, kept between queries
        self._background: np.ndarray | None = None  # a relative calibration's sample, read on first use

    def _query_background(self, connection: sqlite3.Connection, vector: np.ndarray) -> tuple[float, float] | None:
        if not self.calibration.relative:
            return None
        if self._background is None:  # the retriever is rebuilt after every build, so the sample stays current
            self._background = background_sample(connection, self.embedder.model_id,
                                                 source=self.indexes.item_vectors(connection, "topic"))
        return query_background(self._background, vector)

    def search(self, connection: sqlite3.Connection, query: str, settings: RetrievalSettings,
               query_vector: np.ndarray | None = None) -> Stage1Result:
        check_date_range(settings.date_from, settings.date_to)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        if query_vector is None:
            query_vector = self.embedder.embed([query], "query")[0]
        timings["embed"] = (time.perf_counter() - started) * 1000
        result = Stage1Result(query, [], settings=settings)

        mark = time.perf_counter()
        allowed = self._allowed_topics(connection, settings)  # None: no date or chat filter
        topic_scores = self._topic_vector_scores(connection, query_vector, settings, allowed)
        timings["vector"] = (time.perf_counter() - mark) * 1000
        cosine = dict(topic_scores)
        background = self._query_background(connection, query_vector)
        ranked = [(t, float(self.calibration.score(c, background))) for t, c in topic_scores]
        lexical_hits: set[int] = set()
        if settings.hybrid:
            mark = time.perf_counter()
            lexical = topic_lexical_scores(connection, query, settings.candidates, list(settings.chat_ids) or None,
                                           self.term_statistics)
            if allowed is not None:
                allowed_set = set(allowed)
                lexical = [(t, s) for t, s in lexical if t in allowed_set]
            unseen = [t for t, _ in lexical if t not in cosine]  # BM25 found what the vector side missed
            cosine.update(self._exact_topic_scores(connection, query_vector, unseen))
            lexical = [(t, s) for t, s in lexical if t in cosine]
            lexical_hits = {t for t, _ in lexical}
            similarity = {t: float(self.calibration.score(c, background)) for t, c in cosine.items()}
            if settings.fusion == "rrf":  # ranks only: the score shown stays the similarity
                fused = reciprocal_rank_fusion([[t for t, _ in topic_scores], [t for t, _ in lexical]])
                ranked = [(t, similarity[t]) for t, _ in fused]
            else:
                weight = settings.lexical_weight
                if weight is None:
                    weight = default_lexical_weight(self.embedder)
                reach = self._lexical_reach(connection, query, list(similarity))
                ranked = calibrated_fusion(similarity, lexical, weight, reach)
            timings["lexical"] = (time.perf_counter() - mark) * 1000
        # The safety threshold drops what is too weak to show, on the score that ranks. Under
        # RRF that score is the similarity alone, so a topic BM25 found is kept whatever its
        # similarity: it shares the query's rare words.
        scored = [(t, s) for t, s in ranked
                  if s >= settings.safety_threshold or (settings.fusion == "rrf" and t in lexical_hits)]
        scored = scored[: settings.candidates]
        if settings.mmr and scored:
            scored = self._mmr(connection, scored, settings)
        mark = time.perf_counter()
        result.candidates = self._topic_candidates(connection, scored, cosine)
        if settings.people > 0:
            topics = [(c.id, c.score, c.raw_score) for c in result.candidates]
            result.candidates += self._person_candidates(connection, query, topics, settings)
        if settings.artifacts > 0:
            result.candidates += self._entity_candidates(connection, "artifact", query_vector, settings.artifacts,
                                                         settings, background)
        timings["load"] = (time.perf_counter() - mark) * 1000
        timings["total"] = (time.perf_counter() - started) * 1000
        result.timings_ms = {k: round(v, 2) for k, v in timings.items()}
        return result

    # -- topics -------------------------------------------------------------------------
    def _lexical_reach(self, connection: sqlite3.Connection, query: str, topics: list[int]) -> dict[int, float] | None:
        """Topic → how much of it BM25 can match for this query (its summary's script against
        the query's), for a multilingual embedder only: with the built-in one both sides read
        letters, and a topic in another script has nothing the vectors could add."""
        if not self.embedder.multilingual or not topics:
            return None
        shares = script_shares(query)
        rows = connection.execute(f"SELECT id, summary FROM topic WHERE id IN ({_in(topics)})", topics)
        return {topic: script_overlap(shares, summary) for topic, summary in rows}

    def _allowed_topics(self, connection: sqlite3.Connection, settings: RetrievalSettings) -> list[int] | None:
        clauses: list[str] = []
        params: list[float | str] = []  # the chats (a JSON array) and epoch seconds
        if settings.chat_ids:
            clause, chats = chat_filter("chat_id", settings.chat_ids)
            clauses.append(clause)
            params.append(chats)
        if settings.date_from is not None:
            clauses.append("last_at >= ?")
            params.append(settings.date_from)
        if settings.date_to is not None:
            clauses.append("first_at <= ?")
            params.append(settings.date_to)
        if not clauses:
            return None
        return [r[0] for r in connection.execute(f"SELECT id FROM topic WHERE {' AND '.join(clauses)}", params)]

    def _topic_vector_scores(self, connection: sqlite3.Connection, vector: np.ndarray,
                             settings: RetrievalSettings, allowed: list[int] | None) -> list[tuple[int, float]]:
        if allowed is None:
            return self.indexes.search(connection, "topic", vector, settings.candidates)
        if len(allowed) <= EXACT_FILTER_LIMIT:
            scores = self._exact_topic_scores(connection, vector, allowed)
            return sorted(scores.items(), key=lambda pair: -pair[1])[: settings.candidates]
        allowed_set = set(allowed)
        wanted = settings.candidates * 4
        while True:  # approximate search, widened until enough allowed topics show up
            hits = self.indexes.search(connection, "topic", vector, wanted)
            kept = [(t, s) for t, s in hits if t in allowed_set]
            if len(kept) >= settings.candidates or len(hits) < wanted:
                return kept[: settings.candidates]
            wanted *= 4

    def _exact_topic_scores(self, connection: sqlite3.Connection, vector: np.ndarray,
                            topics: list[int]) -> dict[int, float]:
        if not topics:
            return {}
        item_ids = [r[0] for r in select_in(
            connection, "SELECT id FROM vector_item WHERE model_id = ? AND kind = 'topic' AND entity_id IN ({ids})",
            topics, (self.embedder.model_id,))]
        _labels, entities, vectors = self.indexes.vectors(connection, "topic", item_ids)
        best: dict[int, float] = {}
        if len(entities):
            for entity, score in zip(entities.tolist(), (vectors @ vector).tolist(), strict=True):
                best[entity] = max(score, best.get(entity, -2.0))
        return best

    def _mmr(self, connection: sqlite3.Connection, scored: list[tuple[int, float]],
             settings: RetrievalSettings) -> list[tuple[int, float]]:
        topics = [t for t, _ in scored]
        _labels, entities, vectors = self.indexes.vectors(connection, "topic", self._first_items(connection, topics))
        row_of = {e: i for i, e in enumerate(entities.tolist())}
        keep = [i for i, t in enumerate(topics) if t in row_of]
        matrix = vectors[[row_of[topics[i]] for i in keep]]
        order = maximal_marginal_relevance([scored[i][1] for i in keep], matrix, len(keep), settings.mmr_lambda)
        return [scored[keep[i]] for i in order]

    def _first_items(self, connection: sqlite3.Connection, topics: list[int]) -> list[int]:
        rows = connection.execute(
            "SELECT id FROM vector_item WHERE model_id = ? AND kind = 'topic' AND chunk = 0 "
            f"AND entity_id IN ({_in(topics)})",
            [self.embedder.model_id, *topics])
        return [r[0] for r in rows]

    def _topic_candidates(self, connection: sqlite3.Connection, scored: list[tuple[int, float]],
                          cosine: dict[int, float]) -> list[Candidate]:
        if not scored:
            return []
        ids = [t for t, _ in scored]
        rows = connection.execute(
            "SELECT t.id, t.first_at, c.title, t.message_count, t.size_chars, t.summary FROM topic t "
            f"JOIN chat c ON c.id = t.chat_id WHERE t.id IN ({_in(ids)})", ids)
        meta = {r[0]: r for r in rows}
        return [Candidate("topic", t, rank, round(score, 4), round(cosine[t], 4), _iso_date(meta[t][1]), meta[t][2],
                          meta[t][3], meta[t][4], meta[t][5])
                for rank, (t, score) in enumerate(((t, s) for t, s in scored if t in meta), 1)]

    # -- people and artifacts -----------------------------------------------------------
    def _person_candidates(self, connection: sqlite3.Connection, query: str,
                           topics: list[tuple[int, float, float]], settings: RetrievalSettings) -> list[Candidate]:
        """People by what they said in the topics found and what is known of them
        (engine.retrieval.people), never by a profile vector: it matched every query."""
        evidence: dict[int, PersonEvidence] = {}
        said_scores(connection, topics, evidence)
        knowledge = person_knowledge(connection)
        named_and_known_scores(connection, query, knowledge, evidence)
        known_by_facts = [p for p in evidence if p in knowledge and not knowledge[p].message_count]
        passing = _passing_entities(connection, "person", list(evidence), settings, known_by_facts)
        ranked = sorted(((p, e) for p, e in evidence.items()
                         if p in passing and e.score >= settings.safety_threshold),
                        key=lambda pair: (-pair[1].score, pair[0]))[: settings.people]
        if not ranked:
            return []
        ids = [p for p, _ in ranked]
        meta = {r[0]: r for r in connection.execute(
            "SELECT id, last_seen, message_count, display_name || CASE WHEN is_self THEN ' (you)' ELSE '' END "
            f"FROM person WHERE id IN ({_in(ids)})", ids)}
        return [Candidate("person", p, rank, round(e.score, 4), round(e.raw, 4), _iso_date(meta[p][1]), None,
                          meta[p][2], 0, person_line(meta[p][3], knowledge.get(p), query,
                                                     about_them=bool({"named", "related"} & set(e.reasons))))
                for rank, (p, e) in enumerate(((p, e) for p, e in ranked if p in meta), 1)]

    def _entity_candidates(self, connection: sqlite3.Connection, kind: Literal["person", "artifact"],
                           vector: np.ndarray, limit: int, settings: RetrievalSettings,
                           background: tuple[float, float] | None = None) -> list[Candidate]:
        hits = self._entity_hits(connection, kind, vector, limit, settings)
        scored = [(e, float(self.calibration.score(s, background)), s) for e, s in hits]
        scored = [h for h in scored if h[1] >= settings.safety_threshold]
        if not scored:
            return []
        ids = [e for e, _, _ in scored]
        if kind == "person":
            sql = ("SELECT id, last_seen, NULL, message_count, 0, display_name || CASE WHEN is_self THEN ' (you)' "
                   f"ELSE '' END FROM person WHERE id IN ({_in(ids)})")
        else:
            sql = ("SELECT a.id, m.sent_at, c.title, 1, coalesce(a.size, 0), a.kind || ': ' || "
                   "coalesce(a.file_name, '(no name)') || coalesce(' | ' || a.caption, '') FROM artifact a "
                   f"JOIN message m ON m.id = a.message_id JOIN chat c ON c.id = m.chat_id WHERE a.id IN ({_in(ids)})")
        meta = {r[0]: r for r in connection.execute(sql, ids)}
        return [Candidate(kind, e, rank, round(score, 4), round(raw, 4), _iso_date(meta[e][1]), meta[e][2],
                          meta[e][3], meta[e][4], meta[e][5])
                for rank, (e, score, raw) in enumerate(((e, s, r) for e, s, r in scored if e in meta), 1)]

    def _entity_hits(self, connection: sqlite3.Connection, kind: str, vector: np.ndarray, limit: int,
                     settings: RetrievalSettings) -> list[tuple[int, float]]:
        """(entity, cosine) of the people or files that pass the filters, best first: the
        approximate search widened until `limit` pass or `ENTITY_WIDEN_LIMIT` hits were looked at."""
        wanted = limit
        while True:
            hits = self.indexes.search(connection, kind, vector, wanted, chunks_per_entity=1)
            passing = _passing_entities(connection, kind, [e for e, _ in hits], settings)
            kept = [(e, s) for e, s in hits if e in passing]
            if len(kept) >= limit or len(hits) < wanted or wanted >= ENTITY_WIDEN_LIMIT:
                return kept[:limit]
            wanted = min(wanted * 4, ENTITY_WIDEN_LIMIT)


def _passing_entities(connection: sqlite3.Connection, kind: str, ids: list[int],
                      settings: RetrievalSettings, known_by_facts: Sequence[int] = ()) -> set[int]:
    """Which of `ids` may be candidates: a person who is no assistant and wrote in the filtered
    chats and days; a file sent there. Without filters every file passes. A person of
    `known_by_facts` (talked about, never in the chats) passes by the messages of their facts."""
    if not ids:
        return set()
    clauses: list[str] = []
    params: list[float | str] = []  # the chats (a JSON array) and epoch seconds
    if settings.chat_ids:
        clause, chats = chat_filter("m.chat_id", settings.chat_ids)
        clauses.append(clause)
        params.append(chats)
    if settings.date_from is not None:
        clauses.append("m.sent_at >= ?")
        params.append(settings.date_from)
    if settings.date_to is not None:
        clauses.append("m.sent_at <= ?")
        params.append(settings.date_to)
    if kind == "person":
        wrote = f"EXISTS (SELECT 1 FROM message m WHERE m.person_id = p.id AND {' AND '.join(clauses)}) AND " \
            if clauses else ""
        # message_count > 0: a row merged into the owner keeps its old vector until the next build
        rows = list(select_in(connection, f"SELECT p.id FROM person p WHERE {wrote}p.message_count > 0 "
                                          f"AND NOT {ASSISTANT_PERSON_SQL} "
                                          "AND p.id IN ({ids})", ids, params))
        if known_by_facts:
            stated = f"AND {' AND '.join(clauses)} " if clauses else ""
            rows = [*rows, *select_in(
                connection, "SELECT DISTINCT f.person_id FROM fact f JOIN fact_message fm ON fm.fact_id = f.id "
                            f"JOIN message m ON m.id = fm.message_id WHERE f.state = 'active' {stated}"
                            "AND f.person_id IN ({ids})", list(known_by_facts), params)]
    elif not clauses:
        return set(ids)
    else:
        # CROSS JOIN keeps the artifacts outer: from the chat's messages inward, SQLite checked every
        # message of the chat against the id list (71 ms for 400 ids, 0.2 ms this way)
        rows = list(select_in(connection, "SELECT a.id FROM artifact a CROSS JOIN message m ON m.id = a.message_id "
                                          f"WHERE {' AND '.join(clauses)} AND a.id IN ({{ids}})", ids, params))
    return {row[0] for row in rows}
