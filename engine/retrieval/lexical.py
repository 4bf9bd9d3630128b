"""BM25 over whole topics (`topic_fts`, kept by the build), for hybrid retrieval.

Query and topics are reduced to the same stemmed terms (`engine.text.stemming`), and
function words are left out of the query (`query_stopwords`).

Which query terms are searched is bounded by cost, not by a share of the store: FTS5
scores every topic that holds any query term (~0.7 µs per posting, measured on 100k
topics), so terms are taken rarest first while their postings together stay within
`POSTING_BUDGET` (the rarest useful one up to three budgets). A term in more than half
of the topics is never useful: FTS5's IDF floors it at 1e-6. In a store of a few hundred
topics every other term is searched (dropping the words in more than a quarter of the
topics, names among them, cost 0.013 recall@5 on LoCoMo); in a store of 100k topics the
words in more than a few percent of the topics, whose IDF is small, are left out and a
query stays within a few milliseconds.

Document frequencies come from `fts5vocab`, which counts them by reading the term's
postings: as slow as searching for it (6 ms per query at 100k topics). `TermStatistics`
remembers them between queries; the retriever keeps one per store and drops it after a
build. A frequency a little out of date only changes which terms are searched, never a
score (FTS5 computes BM25 itself).

A query's distinct terms are capped (`MAX_QUERY_TERMS`, the first ones kept) and their
frequencies read `IN_CHUNK` per statement, and a chat filter is one parameter
(`chat_filter`), so no query, however long, builds a statement past SQLite's
host-parameter limit (999 on old builds, 32,766 on most) or reads thousands of
vocabularies' postings (issue 35: 32,767 distinct words failed with "too many SQL
variables")."""

from __future__ import annotations

import functools
import json
import math
import re
import sqlite3
from collections.abc import Sequence

from engine.memory.lexical_index import topic_fts_is_stemmed
from engine.store.database import fold_for_search
from engine.store.sql import select_in
from engine.text.stemming import fold, stem_word
from engine.text.stemming import terms as stemmed_terms

POSTING_BUDGET = 8_000  # topic postings a query may touch (~5 ms of FTS5 on this VM)
SINGLE_TERM_BUDGETS = 3  # a query's rarest useful term is searched up to 3 budgets (~15 ms)
SUMMARY_WEIGHT = 0.3  # BM25 column weights: log 1.0, summary this (see docs/benchmarks.md)
# The share of a query's IDF mass at which `lexical_relevance` is 0.5. On LoCoMo the topic
# holding the evidence has a median share of 1.1 (→ 0.69) and other candidates 0.24 (→ 0.32),
# their 90th percentile 0.68 (→ 0.58): the threshold slider's 0.5 sits between the two.
HALF_MATCH = 0.5
# Distinct query terms searched at most: a question has a dozen, a pasted paragraph a hundred; the
# posting budget then keeps the rarest of them. Also the prefixes `unbuilt` matches messages with.
MAX_QUERY_TERMS = 128

# Function words of questions and requests, English and Russian (the usual IR stop lists,
# minus words that are also names of months or numbers). They are left out of the query
# only (topics keep every word): "what did … do" otherwise ranks topics by how often they
# say "what" and "did" (+0.015 recall@5 on LoCoMo, docs/benchmarks.md). A query made only
# of them keeps them.
_QUERY_STOPWORDS = """
a about above after again against all am an and any are as at be because been before being below between both but
by can could did do does doing down during each few for from further had has have having he her here hers herself
him himself his how i if in into is it its itself just me might more most must my myself no nor not now of off on
once only or other our ours ourselves out over own same shall she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom whose why will with would you your yours yourself yourselves
и в во не что он на я с со как а то все всё она так его но да ты к у же вы за бы по только ее её мне было вот от
меня еще ещё нет о об из ему теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь опять уж
вам ведь там потом себя ничего ей может они тут где есть надо ней для мы тебя их чем была сам чтоб без будто чего
раз тоже себе под будет ж тогда кто этот того потому этого какой какая какие каким какую совсем ним здесь этом
почти мой тем чтобы нее сейчас были куда зачем всех никогда можно при наконец другой хоть после над больше тот
через эти нас про всего них много разве эту моя впрочем свою этой перед иногда том нельзя такой им более всегда
конечно всю между это мной тебе твой твоя свой сколько почему
""".split()


def chat_filter(column: str, chat_ids: Sequence[int]) -> tuple[str, str]:
    """`column IN (chat_ids)` as SQL with one host parameter (a JSON array), and that parameter:
    a filter of any number of chats stays within SQLite's host-parameter limit."""
    return f"{column} IN (SELECT value FROM json_each(?))", json.dumps([int(chat) for chat in chat_ids])


@functools.cache
def query_stopwords() -> frozenset[str]:
    """The function words' stems, made on first use: stemming them costs 9 ms, a good part of
    a cold `flashback search` that may never reach BM25 (issue 26)."""
    return frozenset(stem_word(fold(word)) for word in _QUERY_STOPWORDS)


def query_terms(text: str) -> list[str]:
    """The distinct stemmed terms of a query, in order, without function words (unless that leaves
    none); one-letter words only if they are digits; the first `MAX_QUERY_TERMS` of them."""
    seen: dict[str, None] = {}
    for term in stemmed_terms(text):
        if len(term) > 1 or term.isdigit():
            seen.setdefault(term, None)
    stopwords = query_stopwords()
    content = [term for term in seen if term not in stopwords]
    return (content or list(seen))[:MAX_QUERY_TERMS]


def _legacy_terms(text: str) -> list[str]:
    """Unstemmed words, for a `topic_fts` still of the old definition (before the first build)."""
    seen: dict[str, None] = {}
    for word in re.findall(r"\w+", fold_for_search(text).lower()):
        if len(word) > 1 or word.isdigit():
            seen.setdefault(word, None)
    return list(seen)[:MAX_QUERY_TERMS]


class TermStatistics:
    """Document frequencies of `topic_fts` terms and the topic count, remembered between queries.

    Forgotten when the store's newest topic changes (a build added topics); thread-safe
    enough for its use (a dict filled with values that are equal whoever computes them).
    """

    MAX_TERMS = 200_000

    def __init__(self) -> None:
        self._frequencies: dict[str, int] = {}
        self._version: tuple | None = None
        self.topics = 0

    def frequencies(self, connection: sqlite3.Connection, terms: list[str]) -> dict[str, int]:
        version = connection.execute("SELECT max(id) FROM topic").fetchone()
        if version != self._version or len(self._frequencies) > self.MAX_TERMS:
            self._frequencies = {}
            self.topics = connection.execute("SELECT count(*) FROM topic").fetchone()[0]
            self._version = version
        missing = [t for t in terms if t not in self._frequencies]
        if missing:
            connection.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.topic_vocab USING fts5vocab(main, topic_fts, 'row')")
            found = dict(select_in(connection, "SELECT term, doc FROM temp.topic_vocab WHERE term IN ({ids})", missing))
            self._frequencies.update({t: found.get(t, 0) for t in missing})
        return {t: self._frequencies[t] for t in terms}


def within_budget(frequencies: dict[str, int], topics: int, budget: int = POSTING_BUDGET) -> list[str]:
    """Useful terms (in some topic, in at most half of them), rarest first, while their postings
    fit `budget`; the rarest one even beyond it, up to `SINGLE_TERM_BUDGETS` budgets."""
    chosen: list[str] = []
    spent = 0
    useful = ((t, n) for t, n in frequencies.items() if 0 < n and 2 * n <= max(topics, 1))
    for term, count in sorted(useful, key=lambda pair: (pair[1], pair[0])):
        if spent + count > (budget if chosen else SINGLE_TERM_BUDGETS * budget):
            break
        chosen.append(term)
        spent += count
    return chosen


def _idf(document_frequency: int, topics: int) -> float:
    """FTS5's BM25 IDF, floored as FTS5 floors it."""
    value = math.log((topics - document_frequency + 0.5) / (document_frequency + 0.5))
    return value if value > 0 else 1e-6


def _search(connection: sqlite3.Connection, query: str, limit: int, chat_ids: list[int] | None,
            statistics: TermStatistics | None) -> tuple[list[tuple[int, float]], float]:
    """(topic id, BM25) best first, and the query's IDF mass: the BM25 of a topic of average
    length holding each searched term once in its log."""
    current = topic_fts_is_stemmed(connection)
    terms = query_terms(query) if current else _legacy_terms(query)
    if not terms:
        return [], 0.0
    statistics = statistics or TermStatistics()
    frequencies = statistics.frequencies(connection, terms)
    chosen = within_budget(frequencies, statistics.topics)
    if not chosen:
        return [], 0.0
    mass = sum(_idf(frequencies[t], statistics.topics) for t in chosen)
    match = " OR ".join('"' + t.replace('"', '""') + '"' for t in chosen)
    rank = f"bm25(topic_fts, 1.0, {SUMMARY_WEIGHT})" if current else "bm25(topic_fts)"
    sql = f"SELECT f.rowid, -{rank} FROM topic_fts f"
    params: list[object] = [match]
    where = " WHERE topic_fts MATCH ?"
    if chat_ids:
        sql += " JOIN topic t ON t.id = f.rowid"
        clause, chats = chat_filter("t.chat_id", chat_ids)
        where += f" AND {clause}"
        params.append(chats)
    params.append(limit)
    return connection.execute(sql + where + f" ORDER BY {rank} LIMIT ?", params).fetchall(), mass


def topic_bm25(connection: sqlite3.Connection, query: str, limit: int = 50,
               chat_ids: list[int] | None = None, statistics: TermStatistics | None = None) -> list[tuple[int, float]]:
    """(topic id, BM25 score; higher is better) best first; [] when no query term is useful."""
    return _search(connection, query, limit, chat_ids, statistics)[0]


def lexical_relevance(bm25: float, idf_mass: float) -> float:
    """A topic's BM25 as a score in [0, 1) that means the same for every query and store.

    BM25 divided by the query's IDF mass is the share of the query's weight the topic
    holds (1.0: each searched word once, in a topic of average length; more with repeats),
    and x / (x + HALF_MATCH) bends that into [0, 1) without a ceiling that would erase
    differences between strong matches (capping at 1 cost 0.004 recall@5 on LoCoMo).
    """
    share = bm25 / idf_mass if idf_mass > 0 else 0.0
    return share / (share + HALF_MATCH) if share > 0 else 0.0


def topic_lexical_scores(connection: sqlite3.Connection, query: str, limit: int = 50,
                         chat_ids: list[int] | None = None,
                         statistics: TermStatistics | None = None) -> list[tuple[int, float]]:
    """(topic id, `lexical_relevance`) best first; [] when no query term is useful."""
    hits, mass = _search(connection, query, limit, chat_ids, statistics)
    return [(topic, lexical_relevance(score, mass)) for topic, score in hits]
