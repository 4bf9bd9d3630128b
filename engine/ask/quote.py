"""Ask without a model answers by quoting (issue 32): the one to three sentences of the sources
that best answer the question, each with its [n], author and date, and the words that answer
marked, so the person reads a line instead of every source.

A sentence answers when it holds the question's subject (its content words, by stem) and adds
something the question does not have: the same split between the question's words and the
answer-bearing ones that the verifier (`engine.support`) makes. A "when" question wants a date
(said as one, or as "yesterday", "last week" in a message whose date resolves it), "how
many/long/much" a number, "who/where" a name. A sentence that is itself a question answers
less; an earlier source (the reranker's order) wins a tie.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

from engine.ask.types import Quote, Source
from engine.support.values import find_dates, find_numbers, relative_dates
from engine.support.words import content_words

MAX_QUOTES = 3
MAX_SENTENCE_CHARS = 400
KEEP_SHARE = 0.6  # a further quote scores at least this share of the first's
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_NAME = re.compile(r"(?<![\w'’])[A-ZА-ЯЁ][^\W_]+")
_WHEN = re.compile(r"^\s*(when|what (?:date|day|year|month|time)|когда|в каком году|какого числа)\b", re.IGNORECASE)
_COUNT = re.compile(r"^\s*(how (?:many|much|long|old|often)|сколько|как долго|как часто)\b", re.IGNORECASE)
_WHO_WHERE = re.compile(r"^\s*(who|whom|whose|where|which|кто|кого|кому|где|куда|откуда|чей|чья|какой|какая)\b",
                        re.IGNORECASE)


def quote_sources(question: str, sources: Sequence[Source], limit: int = MAX_QUOTES) -> list[Quote]:
    """The sentences of `sources` that best answer `question`, best first (at most `limit`)."""
    asked = {stem for stem, _ in content_words(question)}
    if not asked:
        return []
    scored: list[tuple[float, int, frozenset[tuple[int, int]], Quote]] = []
    order = 0
    for rank, source in enumerate(sources):
        ids = source.message_ids if len(source.message_ids) == len(source.messages) else [None] * len(source.messages)
        authors = source.message_authors or [""] * len(source.messages)
        times = source.message_times or [source.first_at] * len(source.messages)
        for index, (text, message_id, author, sent) in enumerate(zip(source.messages, ids, authors, times,
                                                                     strict=False)):
            sentences = _sentences(text)
            # A sentence alone, or with the next one ("I finally booked the therapist. For 14 March, 9:30."):
            # the subject in one and the answer in the other are still one quote.
            spans = [(i, i + 1) for i in range(len(sentences))] + [(i, i + 2) for i in range(len(sentences) - 1)]
            for first, end in spans:
                sentence = " ".join(sentences[first:end])
                score, marks = _score(question, asked, sentence, sent)
                if score <= 0:
                    continue
                score -= 0.01 * rank + 0.05 * (end - first - 1)  # the reranker's order, then the shorter quote
                order += 1
                where = frozenset((rank * 10_000 + index, i) for i in range(first, end))
                scored.append((score, -order, where, Quote(source.number, message_id, author, sent, sentence,
                                                           round(score, 3), marks)))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    quotes: list[Quote] = []
    used: set[tuple[int, int]] = set()
    for score, _, where, quote in scored:
        if where & used or quote.text in {q.text for q in quotes}:
            continue
        if quotes and score < KEEP_SHARE * quotes[0].score:
            break  # far below the best: it would only be read as noise
        quotes.append(quote)
        used |= where
        if len(quotes) == limit:
            break
    return quotes


def _sentences(text: str) -> list[str]:
    return [s.strip()[:MAX_SENTENCE_CHARS] for s in _SENTENCE_END.split(text) if len(s.strip()) > 2]


def _score(question: str, asked: set[str], sentence: str, sent: float) -> tuple[float, list[tuple[int, int]]]:
    words = content_words(sentence)
    stems = {stem for stem, _ in words}
    held = sum(1 for stem in asked if stem in stems or any(len(stem) >= 4 and s.startswith(stem) for s in stems))
    cover = held / len(asked)
    if cover == 0:
        return 0.0, []
    marks = _answer_marks(sentence, asked)
    adds = sum(1 for stem, _ in words if stem not in asked)
    score = cover * (1.0 if adds else 0.3)
    dates = find_dates(sentence)[0] or relative_dates(sentence, datetime.fromtimestamp(sent, UTC).date())
    if _WHEN.search(question):
        score += 0.4 if dates else 0.0
    elif _COUNT.search(question):
        score += 0.4 if find_numbers(sentence, find_dates(sentence)[1])[0] else 0.0
    elif _WHO_WHERE.search(question):
        score += 0.2 if any(_NAME.fullmatch(sentence[a:b]) for a, b in marks) else 0.0
    if sentence.rstrip().endswith("?"):
        score *= 0.5
    return score, marks


def _answer_marks(sentence: str, asked: set[str]) -> list[tuple[int, int]]:
    """Where the answer-bearing words stand: dates, numbers and names the question does not
    have; without any, the sentence's other new content words."""
    date_spans = find_dates(sentence)[1]
    spans = list(date_spans) + list(find_numbers(sentence, date_spans)[1])
    for match in _NAME.finditer(sentence):
        before = sentence[:match.start()].rstrip()
        stem = content_words(match.group(0))
        if before and stem and stem[0][0] not in asked:
            spans.append(match.span())
    if not spans:
        for match in re.finditer(r"[^\W_]+", sentence):
            found = content_words(match.group(0))
            if found and found[0][0] not in asked:
                spans.append(match.span())
    taken: list[tuple[int, int]] = []
    for span in sorted(spans):
        if not any(span[0] < end and start < span[1] for start, end in taken):
            taken.append(span)
    return taken
