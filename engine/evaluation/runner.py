"""`flashback eval QRELS.json`: run every judged query through search and score the rankings.

QRELS name messages by the export's own ids (`chat`, `message` = the JSONL `chat`/`id`),
so judgements survive re-imports; they are mapped to topics through the store. A topic
ranking is the reranker's selection first, then the remaining candidates in stage-1 order
(with no reranker: stage 1's order), which is also how the evidence budget is filled.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.errors import EngineError
from engine.evaluation.metrics import QueryOutcome, summarise
from engine.rerank.base import RerankResult
from engine.retrieval.search import Stage1Result


class QrelsError(EngineError):
    """The judgement file cannot be used; says what to fix."""


@dataclass(frozen=True)
class JudgedQuery:
    id: str
    query: str
    category: str
    relevant: tuple[tuple[str, str], ...]  # (chat, message id) as in the export


def load_qrels(path: Path) -> list[JudgedQuery]:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        queries = raw["queries"]
        return [JudgedQuery(str(q["id"]), str(q["query"]), str(q.get("category") or "all"),
                            tuple((str(r["chat"]), str(r["message"])) for r in q["relevant"])) for q in queries]
    except OSError as exc:
        raise QrelsError(f"Cannot read {path}: {exc.strerror}.") from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise QrelsError(f"{path} is not a QRELS file: expected {{\"queries\": [{{\"id\", \"query\", "
                         f"\"relevant\": [{{\"chat\", \"message\"}}]}}]}} ({exc}).") from exc


def _message_topics(connection: sqlite3.Connection, queries: list[JudgedQuery]) -> dict[tuple[str, str], int | None]:
    chats: dict[str, list[int]] = {}
    for chat_id, key, title in connection.execute("SELECT id, key, title FROM chat"):
        chats.setdefault(title, []).append(chat_id)
        chats.setdefault(key, []).append(chat_id)
        if ":" in key:
            chats.setdefault(key.split(":", 1)[1], []).append(chat_id)
    found: dict[tuple[str, str], int | None] = {}
    for query in queries:
        for chat, message in query.relevant:
            if (chat, message) in found:
                continue
            topic = None
            for chat_id in dict.fromkeys(chats.get(chat, [])):
                row = connection.execute("SELECT topic_id FROM message WHERE chat_id = ? AND external_id = ?",
                                         (chat_id, message)).fetchone()
                if row is not None:
                    topic = row[0]
                    break
            found[(chat, message)] = topic
    return found


SearchFn = Callable[[str], tuple[Stage1Result, RerankResult | None]]


def evaluate(connection: sqlite3.Connection, queries: list[JudgedQuery], search: SearchFn,
             on_progress: Callable[[int, int], None] | None = None) -> dict:
    message_topic = _message_topics(connection, queries)
    unknown = sum(1 for topic in message_topic.values() if topic is None)
    topic_chars = dict(connection.execute("SELECT id, size_chars FROM topic").fetchall())
    outcomes: list[QueryOutcome] = []
    for done, query in enumerate(queries, 1):
        stage1, reranked = search(query.query)
        candidates = [c.id for c in stage1.candidates if c.kind == "topic"]
        chosen = reranked.selected_ids("topic") if reranked is not None else []
        ranking = list(dict.fromkeys(chosen + candidates))
        evidence = tuple(message_topic[pair] for pair in query.relevant)
        relevant = frozenset(t for t in evidence if t is not None)
        outcomes.append(QueryOutcome(query.category, ranking, relevant, evidence,
                                     stage1.timings_ms.get("total", 0.0)))
        if on_progress:
            on_progress(done, len(queries))
    categories = sorted({o.category for o in outcomes})
    return {
        "metrics": summarise(outcomes, topic_chars),
        "by_category": {c: summarise([o for o in outcomes if o.category == c], topic_chars) for c in categories},
        "unmatched_messages": unknown,
    }
