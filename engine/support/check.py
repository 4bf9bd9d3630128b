"""Is a claim supported by the messages it cites? Only if they hold what the claim *adds*.

A claim answering a question repeats the question's words ("Where did Audrey get Pixie
from: …"), and its cited messages hold them too, so counting shared words says yes to any
answer. What decides is the rest: the answer-bearing words (names, places, numbers, dates,
other content words the question does not have). Each must be found in the cited messages:
- a date as a date, at the precision the claim says it ("7 May 2023" = "2023-05-07" = a
  message of 8 May 2023 saying "yesterday"; "2022" = a message of 2023 saying "last year");
- a number as a number ("two" = "2" = "две");
- a word by its stem ("adopted" = "adoption" share "adopt"), or by meaning: the embedder's
  cosine between the word and one of the cited words at or above `MEANING_BAR` (calibrated by
  `bench/verify_probe.py` on LoCoMo dev claims, see docs/benchmarks.md).
A claim is supported when every date and number is found and at least `WORD_SHARE` of its
other new words are (all of them when it adds one or two). A claim that adds nothing to the
question is judged by how much of it the messages hold. Without a question (a fact the
Archivist keeps), every content word is answer-bearing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

import numpy as np

from engine.support.values import DateValue, find_dates, find_numbers, relative_dates
from engine.support.words import SOFT_WORDS, STOPWORDS, content_words

MEANING_BAR = 0.80  # word-to-word cosine that counts as "said in other words" (bench/verify_probe.py)
MEANING_BARS = {"BuiltinEmbedder": 0.80, "LocalEmbedder": 0.92}  # by embedder class: see meaning_bar_for
# Across scripts (a Russian claim over English messages): only a multilingual model compares them.
CROSS_BARS = {"LocalEmbedder": 0.88}
# Across scripts a word often has no one-word twin ("сдаваться" / "not giving up", "упорный труд
# окупается" / "hard work's paying off"): the claim's new words as one phrase against each cited
# clause, at this cosine, find them together (bench/verify_probe.py --russian, first half).
PHRASE_CROSS_BARS = {"LocalEmbedder": 0.85}
WORD_SHARE = 0.5  # share of a claim's new words (other than names, dates, numbers) that must be found
COVER_BAR = 0.5  # a claim adding nothing to the question: share of its words the messages hold
MIN_WORDS_ALL = 1  # a claim adding one word must have it; two or more: WORD_SHARE of them
_CITATION = re.compile(r"\s*\[\d+(?:\s*[,;]\s*\d+)*\]")
_NAME = re.compile(r"(?<![\w'’])[A-ZА-ЯЁ][^\W_]*")
_MAX_CITED_WORDS = 400
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")  # words compared by meaning (the most a few cited messages hold)
_CLAUSE = re.compile(r"[.!?;:,\n()\[\]]+|\s+(?:and|but|so|because|и|а|но|потому что)\s+|\s+[-–—]\s+")
_MAX_CLAUSES = 80


@dataclass(frozen=True)
class Evidence:
    """One cited message: its text and when it was sent (relative dates resolve against it)."""

    text: str
    sent: date | datetime | None = None
    author: str = ""


@dataclass(frozen=True)
class Verdict:
    supported: bool
    score: float  # the share of the claim's answer-bearing words found, in [0, 1]
    missing: tuple[str, ...] = ()  # the claim's new words the cited messages do not hold, as written
    found: tuple[str, ...] = ()
    adds_nothing: bool = False  # the claim only restates the question
    matched_by_meaning: tuple[str, ...] = field(default=())


def check(claim: str, cited: Sequence[Evidence], question: str = "", embedder: object | None = None,
          meaning_bar: float | None = None, cross_bar: float | None = None,
          phrase_cross_bar: float | None = None) -> Verdict:
    """The verdict on `claim` against `cited`: see the module's docstring for the rule."""
    claim = _CITATION.sub("", claim)
    evidence_text = "\n".join(_with_author(e) for e in cited)
    claim_dates, date_spans = find_dates(claim)
    claim_numbers, number_spans = find_numbers(claim, date_spans)
    question_words = {stem for stem, _ in content_words(question)}
    taken = [*date_spans, *number_spans]
    words = [(stem, surface) for stem, surface in content_words(_blank(claim, taken))
             if stem not in question_words]
    words = list(dict(words).items())  # one entry per stem, first surface form kept

    said_dates, said_spans = find_dates(evidence_text)
    have_dates = said_dates + _sent_dates(cited)
    have_numbers = set(find_numbers(evidence_text, said_spans)[0])
    have_words = {stem: surface for stem, surface in content_words(evidence_text)}

    missing: list[str] = []
    found: list[str] = []
    for value, span in zip(claim_dates, date_spans, strict=True):
        (found if any(value.within(h) for h in have_dates) else missing).append(claim[span[0]:span[1]])
    for number, span in zip(claim_numbers, number_spans, strict=True):
        hit = number in have_numbers or _number_as_year(number, have_dates)
        (found if hit else missing).append(claim[span[0]:span[1]])
    if claim_dates and not missing:
        words = [(stem, surface) for stem, surface in words if stem not in SOFT_WORDS]
    unmatched = [(stem, surface) for stem, surface in words if not _by_stem(stem, have_words)]
    bar = meaning_bar if meaning_bar is not None else meaning_bar_for(embedder)
    cross = cross_bar if cross_bar is not None else CROSS_BARS.get(type(embedder).__name__)
    by_meaning = _by_meaning(embedder, [s for _, s in unmatched], list(have_words.values()), bar, cross)
    missed = {s for _, s in unmatched if s not in by_meaning}
    phrase_bar = phrase_cross_bar if phrase_cross_bar is not None else PHRASE_CROSS_BARS.get(type(embedder).__name__)
    if missed and phrase_bar is not None and _across_scripts(claim, evidence_text):
        names = set().union(*_names(claim)) if _names(claim) else set()
        soft = [s for _, s in words if s not in names]
        if soft and _phrase_found(embedder, " ".join(soft), [e.text for e in cited], phrase_bar):
            by_meaning = by_meaning + [s for s in soft if s in missed]
            missed -= set(soft)
    hard_missing = len(missing) + sum(1 for name in _names(claim) if name <= missed)
    word_found = len(words) - len(unmatched) + len(by_meaning)
    found += [s for stem, s in words if (stem, s) not in unmatched] + by_meaning
    missing += [s for _, s in unmatched if s not in by_meaning]

    total = len(claim_dates) + len(claim_numbers) + len(words)
    if total == 0:
        cover = _cover(claim, have_words)
        return Verdict(cover >= COVER_BAR, round(cover, 3), (), (), adds_nothing=True)
    need = len(words) if len(words) <= MIN_WORDS_ALL else int(np.ceil(WORD_SHARE * len(words)))
    supported = hard_missing == 0 and word_found >= need
    return Verdict(supported, round((total - len(missing)) / total, 3), tuple(missing), tuple(found),
                   matched_by_meaning=tuple(by_meaning))


def _names(claim: str) -> list[set[str]]:
    """The claim's names: runs of words capitalised inside a sentence, or in all capitals
    ("Japan", "Turkish Airlines", "LGBTQ"). A name is found when one of its words is ("Weir"
    for "Andy Weir"); a name the messages do not hold is never outweighed by other words."""
    names: list[set[str]] = []
    previous_end = -2
    for match in _NAME.finditer(claim):
        word = match.group(0)
        start = claim[:match.start()].rstrip()
        if not ((start and start[-1] not in ".!?:;\n\"«(") or (word.isupper() and len(word) > 1)):
            continue
        if names and claim[previous_end:match.start()].strip() == "":
            names[-1].add(word)
        else:
            names.append({word})
        previous_end = match.end()
    return names


def _with_author(evidence: Evidence) -> str:
    return f"{evidence.author}: {evidence.text}" if evidence.author else evidence.text


def _blank(text: str, spans: Sequence[tuple[int, int]]) -> str:
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _sent_dates(cited: Sequence[Evidence]) -> list[DateValue]:
    """Each message's own day, and the days its "yesterday", "last week", … mean."""
    values: list[DateValue] = []
    for evidence in cited:
        if evidence.sent is None:
            continue
        day = evidence.sent.date() if isinstance(evidence.sent, datetime) else evidence.sent
        values.append(DateValue(day.year, day.month, day.day))
        values.extend(relative_dates(evidence.text, day))
    return values


def _number_as_year(number: float, have: list[DateValue]) -> bool:
    return number.is_integer() and 1900 <= number <= 2200 and any(h.year == int(number) for h in have)


def _by_stem(stem: str, have: dict[str, str]) -> bool:
    if stem in have:
        return True
    # one word's stem a prefix of the other's ("adopt" / "adoption", "vegan" / "veganism")
    return len(stem) >= 4 and any(len(h) >= 4 and (h.startswith(stem) or stem.startswith(h)) for h in have)


def meaning_bar_for(embedder: object | None) -> float:
    """The cosine at which `embedder` says two words mean the same: each model's cosines live
    in their own range (E5's rarely fall below 0.7), so each has its calibrated bar."""
    return MEANING_BARS.get(type(embedder).__name__, MEANING_BAR)


def _by_meaning(embedder: object | None, wanted: list[str], have: list[str], bar: float,
                cross_bar: float | None = None) -> list[str]:
    """The `wanted` words some cited word says in other words: cosine ≥ `bar` within a script,
    ≥ `cross_bar` between scripts (a Russian word and an English one: a multilingual model's
    cosines across languages run lower for the same meaning)."""
    embed = getattr(embedder, "embed", None)
    if embed is None or not wanted or not have:
        return []
    have = have[:_MAX_CITED_WORDS]
    vectors = np.asarray(embed([*wanted, *have], "query"), dtype=np.float32)
    cosines = vectors[:len(wanted)] @ vectors[len(wanted):].T
    cyrillic = np.array([bool(_CYRILLIC.search(word)) for word in have])
    found = []
    for row, word in zip(cosines, wanted, strict=True):
        same = cyrillic == bool(_CYRILLIC.search(word))
        within = float(row[same].max()) if same.any() else -1.0
        across = float(row[~same].max()) if (~same).any() else -1.0
        if within >= bar or (cross_bar is not None and across >= cross_bar):
            found.append(word)
    return found


def _across_scripts(claim: str, evidence_text: str) -> bool:
    """The claim and its messages are written in different scripts (Cyrillic vs Latin)."""
    def cyrillic_share(text: str) -> float:
        letters = [c for c in text if c.isalpha()]
        return sum(1 for c in letters if _CYRILLIC.match(c)) / len(letters) if letters else 0.0
    return abs(cyrillic_share(claim) - cyrillic_share(evidence_text)) >= 0.5


def _clauses(texts: Sequence[str]) -> list[str]:
    """Each cited message's sentences and the clauses inside them: where a phrase is said."""
    out: list[str] = []
    for text in texts:
        out.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", text) if s.strip())
        out.extend(c.strip() for c in _CLAUSE.split(text) if len(c.split()) >= 2)
    return list(dict.fromkeys(out))[:_MAX_CLAUSES]


def _phrase_found(embedder: object | None, phrase: str, texts: Sequence[str], bar: float) -> bool:
    embed = getattr(embedder, "embed", None)
    clauses = _clauses(texts)
    if embed is None or not clauses:
        return False
    vectors = np.asarray(embed([phrase, *clauses], "query"), dtype=np.float32)
    return float((vectors[1:] @ vectors[0]).max()) >= bar


def _cover(claim: str, have: dict[str, str]) -> float:
    words = [stem for stem, _ in content_words(claim)]
    if not words:
        return 0.0
    return sum(1 for stem in words if _by_stem(stem, have)) / len(words)


__all__ = ["COVER_BAR", "MEANING_BAR", "STOPWORDS", "WORD_SHARE", "Evidence", "Verdict", "check"]
