"""BM25 over stemmed topics on a real store: word forms, Russian, dates in words, an old index rebuilt."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.memory.lexical_index import TOPIC_FTS_DDL, sync_topic_fts, topic_fts_is_current
from engine.memory.topic_documents import topic_search_texts
from engine.retrieval.lexical import HALF_MATCH, lexical_relevance, topic_bm25, topic_lexical_scores
from engine.text.stemming import stem_text
from engine.topics import build_topics
from tests.engine.topics.conftest import conversation

MAY = datetime(2023, 5, 8, 13, 0, tzinfo=UTC).timestamp()
JULY = datetime(2023, 7, 20, 9, 0, tzinfo=UTC).timestamp()
SEPTEMBER = datetime(2023, 9, 2, 18, 0, tzinfo=UTC).timestamp()


def _store(store):
    rows = conversation("Mel", MAY, [("Mel", "We finished a painting of the lake with the kids"),
                                     ("Caro", "Lovely colours, which paints did you use?")])
    rows += conversation("Mel", JULY, [("Mel", "The garden needs watering every day now"),
                                       ("Caro", "Tomatoes love the heat though")], first_id=10)
    rows += conversation("Друзья", SEPTEMBER, [("Аня", "Отвезла машину в сервис, меняют тормоза"),
                                               ("Олег", "Сколько стоит ремонт тормозов?")], first_id=20)
    store.add(rows)
    build_topics(store.connection)
    sync_topic_fts(store.connection)
    return {store.scalar("SELECT t.id FROM topic t JOIN message m ON m.topic_id = t.id WHERE m.text LIKE ?",
                         f"%{word}%"): word for word in ("painting", "garden", "машину")}


def _best(store, query: str) -> int | None:
    hits = topic_bm25(store.connection, query)
    return hits[0][0] if hits else None


def test_word_forms_and_russian_cases_find_their_topic(store):
    topics = {word: topic for topic, word in _store(store).items()}
    assert _best(store, "Who painted the lake?") == topics["painting"]
    assert _best(store, "где машины ремонтируют") == topics["машину"]
    assert _best(store, "тормоз") == topics["машину"]


def test_dates_in_words_match_month_names_in_either_language(store):
    topics = {word: topic for topic, word in _store(store).items()}
    assert _best(store, "what happened in July 2023") == topics["garden"]
    assert _best(store, "что было в сентябре") == topics["машину"]
    assert _best(store, "8 May") == topics["painting"]


def test_only_function_words_or_unknown_words_find_nothing(store):
    _store(store)
    assert topic_bm25(store.connection, "what was it?") == []
    assert topic_bm25(store.connection, "xylophone") == []


def test_an_index_of_the_old_definition_is_rebuilt_and_searched_meanwhile(store):
    topics = _store(store)
    connection = store.connection
    connection.execute("DROP TABLE topic_fts")
    connection.execute("CREATE VIRTUAL TABLE topic_fts USING fts5(body, tokenize=\"unicode61 remove_diacritics 2\")")
    connection.execute("INSERT INTO topic_fts (rowid, body) SELECT id, summary FROM topic")
    assert not topic_fts_is_current(connection)
    assert topic_bm25(connection, "garden")  # unstemmed words still work until the next build
    added = sync_topic_fts(connection)
    assert topic_fts_is_current(connection) and added == len(topics)
    assert connection.execute("SELECT sql FROM sqlite_master WHERE name = 'topic_fts'").fetchone()[0] == TOPIC_FTS_DDL
    assert _best(store, "paints") == {w: t for t, w in topics.items()}["painting"]
    assert sync_topic_fts(connection) == 0  # nothing new: nothing indexed twice


def test_lexical_relevance_is_the_share_of_the_query_bent_into_0_1():
    assert lexical_relevance(0.0, 5.0) == 0.0 and lexical_relevance(3.0, 0.0) == 0.0
    assert abs(lexical_relevance(HALF_MATCH * 4.0, 4.0) - 0.5) < 1e-12
    shares = [lexical_relevance(bm25, 4.0) for bm25 in (1.0, 4.0, 8.0, 40.0)]
    assert shares == sorted(shares) and shares[-1] < 1.0  # strong matches stay apart, never capped


def test_lexical_scores_keep_bm25_order_and_rate_a_full_match_above_a_partial_one(store):
    topics = {word: topic for topic, word in _store(store).items()}
    raw = topic_bm25(store.connection, "garden tomatoes")
    scored = topic_lexical_scores(store.connection, "garden tomatoes")
    assert [t for t, _ in scored] == [t for t, _ in raw] and scored[0][0] == topics["garden"]
    assert 0.5 < scored[0][1] < 1.0  # both words, once each
    partial = dict(topic_lexical_scores(store.connection, "garden xylophone tomatoes lake"))
    assert partial[topics["garden"]] < scored[0][1]  # the same topic holds a smaller share of this query


def test_a_chat_title_finds_its_topics(store):
    """A ChatGPT conversation's title names its subject ("Weeknight pasta"): BM25 finds it
    even when no message repeats the title's words."""
    rows = conversation("Weeknight pasta", MAY, [("Me", "What can I cook in twenty minutes tonight?"),
                                                 ("ChatGPT", "Garlic, olive oil, chilli and spaghetti.")])
    rows += conversation("Mel", JULY, [("Mel", "The garden needs watering every day now")], first_id=10)
    store.add(rows)
    build_topics(store.connection)
    sync_topic_fts(store.connection)
    pasta = store.scalar("SELECT t.id FROM topic t JOIN chat c ON c.id = t.chat_id WHERE c.title = ?",
                         "Weeknight pasta")
    assert _best(store, "pasta") == pasta


def test_the_index_keeps_no_copy_of_its_terms_and_still_replaces_and_drops_rows(store):
    """Contentless (issue 26): FTS5 stores no second copy of the terms; `topic_terms` holds them
    packed, so a changed topic's old words and a deleted topic's words leave the index."""
    topics = {word: topic for topic, word in _store(store).items()}
    connection = store.connection
    assert connection.execute("SELECT count(*) FROM sqlite_master WHERE name = 'topic_fts_content'").fetchone() == (0,)
    assert connection.execute("SELECT count(*) FROM topic_terms").fetchone() == (len(topics),)
    garden = topics["garden"]
    connection.execute("UPDATE topic SET summary = 'Xylophone lessons' WHERE id = ?", (garden,))
    connection.execute("UPDATE message SET text = 'A xylophone for the kids' WHERE topic_id = ?", (garden,))
    assert sync_topic_fts(connection, [garden]) == 1
    assert _best(store, "xylophone") == garden
    assert topic_bm25(connection, "tomatoes") == []  # the old words are gone, not just outranked
    connection.execute("UPDATE message SET topic_id = NULL WHERE topic_id = ?", (topics["машину"],))
    connection.execute("DELETE FROM topic WHERE id = ?", (topics["машину"],))
    sync_topic_fts(connection)
    assert topic_bm25(connection, "тормоза") == []
    vocabulary = connection.execute("SELECT count(*) FROM topic_fts WHERE topic_fts MATCH 'тормоз'").fetchone()
    assert vocabulary == (0,)
    assert connection.execute("SELECT count(*) FROM topic_terms").fetchone() == (len(topics) - 1,)


def test_a_store_built_before_issue_26_searches_its_old_table_until_the_next_build(store):
    topics = {word: topic for topic, word in _store(store).items()}
    connection = store.connection
    connection.execute("DROP TABLE topic_fts")
    connection.execute("DROP TABLE topic_terms")
    connection.execute("CREATE VIRTUAL TABLE topic_fts USING fts5(log_terms, heading_terms, "
                       "tokenize=\"unicode61 remove_diacritics 2\")")
    connection.commit()
    texts = topic_search_texts(connection, list(topics.values()))
    connection.executemany("INSERT INTO topic_fts (rowid, log_terms, heading_terms) VALUES (?, ?, ?)",
                           [(t, stem_text(log), stem_text(heading)) for t, (log, heading) in texts.items()])
    assert not topic_fts_is_current(connection)
    assert _best(store, "paints") == topics["painting"]  # stemmed search, as before
    assert sync_topic_fts(connection) == len(topics)  # the build makes it contentless, every topic again
    assert topic_fts_is_current(connection) and _best(store, "paints") == topics["painting"]
