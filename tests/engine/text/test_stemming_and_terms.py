"""Search terms: folding and Snowball stems (Russian and English), query stop words, the posting budget."""

from __future__ import annotations

import sqlite3

from engine.memory.lexical_index import TOPIC_FTS_DDL
from engine.retrieval.lexical import TermStatistics, query_terms, within_budget
from engine.text.stemming import fold, stem_text, terms


def test_english_and_russian_word_forms_share_a_stem():
    assert len(set(terms("painting painted paints paint"))) == 1
    assert len(set(terms("машина машину машины машиной"))) == 1
    assert terms("в мае") == terms("в мая")  # month names in any case meet their date words


def test_folding_matches_fts_unicode61_with_diacritics_removed():
    assert fold("Ёлка CAFÉ Über") == "елка cafe uber"
    assert fold("йогурт") == "йогурт"  # й keeps its breve: it is a letter of its own
    assert stem_text("foo_bar 2023-05-08 ёлки") == "foo bar 2023 05 08 елк"
    assert stem_text("") == ""


def test_query_terms_drop_function_words_unless_nothing_else_is_left():
    assert query_terms("What did Melanie paint recently?") == ["melani", "paint", "recent"]
    assert query_terms("Что мы обсуждали про машину?") == terms("обсуждали машину")
    assert query_terms("what was that") == ["what", "was", "that"]
    assert query_terms("a b 7") == ["7"]  # one-letter words only when they are digits


def test_budget_takes_rare_terms_first_and_skips_terms_in_most_topics():
    frequencies = {"rare": 5, "mid": 3000, "common": 6000, "everywhere": 60_000, "absent": 0}
    assert within_budget(frequencies, topics=100_000, budget=8000) == ["rare", "mid"]
    assert within_budget(frequencies, topics=200_000, budget=100_000) == ["rare", "mid", "common", "everywhere"]
    assert within_budget(frequencies, topics=100_000, budget=100_000) == ["rare", "mid", "common"]  # > half: IDF 0
    assert within_budget(frequencies, topics=10_000, budget=100_000) == ["rare", "mid"]
    assert within_budget({"only": 20_000}, topics=100_000, budget=8000) == ["only"]  # the rarest, up to 3 budgets
    assert within_budget({"only": 30_000}, topics=100_000, budget=8000) == []
    assert within_budget({"x": 0}, topics=10) == []


def test_term_statistics_are_cached_until_topics_change():
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE topic (id INTEGER PRIMARY KEY)")
    connection.execute(TOPIC_FTS_DDL)
    for topic_id, text in ((1, "paint kids"), (2, "paint dog"), (3, "car")):
        connection.execute("INSERT INTO topic (id) VALUES (?)", (topic_id,))
        connection.execute("INSERT INTO topic_fts (rowid, log_terms, heading_terms) VALUES (?, ?, '')",
                           (topic_id, stem_text(text)))
    statistics = TermStatistics()
    assert statistics.frequencies(connection, ["paint", "car", "none"]) == {"paint": 2, "car": 1, "none": 0}
    assert statistics.topics == 3
    connection.execute("INSERT INTO topic_fts (rowid, log_terms, heading_terms) VALUES (9, 'car', '')")
    assert statistics.frequencies(connection, ["car"]) == {"car": 1}  # same topics: remembered
    connection.execute("INSERT INTO topic (id) VALUES (9)")
    assert statistics.frequencies(connection, ["car"]) == {"car": 2} and statistics.topics == 4
