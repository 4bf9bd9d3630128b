"""Cutting a long session where its subject changes, so a topic is a few thousand chars.

A session (messages without a pause of `chunk_interval_s`) can run for hours and several
subjects; as one topic it is too big to read, to show, or to put into a model's context
next to others (evidence within 8,000 chars on LoCoMo: 0.744 with whole sessions of ~3,000
chars, 0.815 with topics of ~2,000; docs/benchmarks.md). Without a language model to split
it, this module does, offline, in the spirit of TextTiling (Hearst 1997):

1. How many parts: k = round(session chars / `subject_chars`), so parts are near the
   target size (a session under 1.5× the target stays whole). Sizes are balanced because
   the cut placement is free only within `SLACK` of each ideal position: a cap cutting
   greedily leaves small remainders (LoCoMo, cap 1,500: 336 topics, recall@5 0.887 against
   0.909 for this splitter at 1,500).
2. Where: at each gap between two messages, lexical cohesion = cosine of the word
   counts in the ~`WINDOW_CHARS` before and after it; the depth of a valley (how far
   cohesion falls below the peaks on either side) says how much the subject changes
   there, and a pause adds to it (half the interval adds 0.25). Each cut goes to the
   deepest gap within its slack; ties go to the gap nearest the ideal position.

Words are letters only, 3-30 long, lowercased, ё→е, cut to their first `STEM` letters
(a cheap stem that works for Russian and English alike), minus a few function words.
A session with fewer than `MIN_WORDS` such words is never cut: with nothing to read there
is no evidence of a subject change ("ok", stickers, runs of one letter).
Deterministic: the same messages always give the same parts, so an interrupted build
that resumes cuts exactly as an uninterrupted one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from engine.topics.message_row import MessageRow

SLACK = 0.35  # a cut may move this share of one part's size away from its ideal position
WINDOW_CHARS = 400  # text on each side of a gap that cohesion compares (at least one message)
PAUSE_WEIGHT = 0.5  # depth added by a pause of a whole chunk_interval (proportionally less for shorter)
STEM = 6
MIN_WORDS = 20
BUCKETS = 256  # columns of the word-count matrix; words beyond share them (ids are per chunk: deterministic)
_WORD = re.compile(r"[^\W\d_]{3,30}")
_FUNCTION_WORDS = frozenset("""
the and for you that this with have are was not but what all can just your from they will about would there
out get like one know how yes yeah okay its then them when who why did does has had were been more some here
now also too very really think want need going well sure thanks thank please could should which their our any
see got let это что как так все вот еще уже они она оно его там тут где когда если или чтобы потому тоже только
меня тебя тебе мне нас вас вам нам был была были будет есть нет ладно хорошо просто очень можно нужно надо сейчас
потом может могу хочу пока спасибо привет давай даже этот эта эти того тем чем при без для про над под
""".split())


@lru_cache(maxsize=1 << 18)
def _term(word: str) -> str | None:
    """A lowercased word's cheap stem, or None for a function word or a run of one letter ("ааааа", "xxxx")."""
    if word in _FUNCTION_WORDS or word == word[0] * len(word):
        return None
    return word[:STEM]


def _words(text: str) -> list[str]:
    return [term for term in map(_term, _WORD.findall(text.lower().replace("ё", "е"))) if term]


def boundary_strength(rows: Sequence[MessageRow], interval_s: float,
                      words: list[list[str]] | None = None) -> np.ndarray:
    """For each gap g (before message g, g ≥ 1): valley depth of lexical cohesion plus pause; [0] = 0.

    Vectorised: word counts per message as rows of a matrix (only words in two messages or
    more: a word in one message cannot be on both sides of a gap; folded into `BUCKETS`
    columns, so a chunk of 400 messages stays a small matrix), prefix sums give every
    window's counts at once, so a 400-message chunk costs a few numpy operations.
    """
    n = len(rows)
    words = words if words is not None else [_words(row.text) for row in rows]
    seen_in: dict[str, int] = {}
    for message_words in words:
        for word in set(message_words):
            seen_in[word] = seen_in.get(word, 0) + 1
    column: dict[str, int] = {}
    cells_row, cells_column = [], []
    for index, message_words in enumerate(words):
        for word in message_words:
            if seen_in[word] > 1:
                cells_row.append(index)
                cells_column.append(column.setdefault(word, len(column)) % BUCKETS)
    counts = np.zeros((n + 1, min(BUCKETS, max(1, len(column)))), dtype=np.float32)
    np.add.at(counts, (np.asarray(cells_row, dtype=np.intp) + 1, np.asarray(cells_column, dtype=np.intp)), 1.0)
    prefix = np.cumsum(counts, axis=0)  # prefix[i] = counts of messages before i
    chars = np.concatenate([[0], np.cumsum([len(row.text) for row in rows])])
    gaps = np.arange(1, n)
    # Left window: messages [a, g) covering WINDOW_CHARS (at least one); right: [g, b).
    a = np.minimum(np.searchsorted(chars, chars[gaps] - WINDOW_CHARS, side="right") - 1, gaps - 1).clip(0)
    b = np.maximum(np.searchsorted(chars, chars[gaps] + WINDOW_CHARS, side="left"), gaps + 1).clip(max=n)
    left, right = prefix[gaps] - prefix[a], prefix[b] - prefix[gaps]
    norms = np.sqrt((left * left).sum(axis=1) * (right * right).sum(axis=1))
    cohesion = np.zeros(n)
    cohesion[1:] = np.divide((left * right).sum(axis=1), norms, out=np.zeros(n - 1), where=norms > 0)
    # The peak reached climbing from a gap to the left (to the right) while cohesion does not fall.
    peak_left, peak_right = cohesion.copy(), cohesion.copy()
    for gap in range(2, n):
        if cohesion[gap - 1] >= cohesion[gap]:
            peak_left[gap] = peak_left[gap - 1]
    for gap in range(n - 2, 0, -1):
        if cohesion[gap + 1] >= cohesion[gap]:
            peak_right[gap] = peak_right[gap + 1]
    pauses = np.zeros(n)
    pauses[1:] = np.clip(np.diff([row.sent_at for row in rows]) / interval_s, 0.0, 1.0)
    strength = (peak_left - cohesion) + (peak_right - cohesion) + PAUSE_WEIGHT * pauses
    strength[0] = 0.0
    return strength


def split_subjects(rows: Sequence[MessageRow], target_chars: int, interval_s: float) -> list[list[MessageRow]]:
    """`rows` (one session, time order) as consecutive parts near `target_chars` each, cut where the subject
    changes most; [rows] when it is short, has too few words to judge, or `target_chars` is 0."""
    rows = list(rows)
    if not rows:
        return []
    sizes = [len(row.text) for row in rows]
    total = sum(sizes)
    parts = math.floor(total / target_chars + 0.5) if target_chars > 0 else 1
    parts = min(parts, len(rows))
    if parts < 2:
        return [rows]
    words = [_words(row.text) for row in rows]
    if sum(map(len, words)) < MIN_WORDS:
        return [rows]
    strength = boundary_strength(rows, interval_s, words)
    prefix = [0]
    for size in sizes:
        prefix.append(prefix[-1] + size)
    share = total / parts
    cuts: list[int] = []
    for number in range(1, parts):
        ideal = number * share
        low, high = ideal - SLACK * share, ideal + SLACK * share
        last = cuts[-1] if cuts else 0
        candidates = [g for g in range(last + 1, len(rows)) if low <= prefix[g] <= high]
        if not candidates:  # one long message spans the whole slack: cut next to it
            candidates = [min(range(last + 1, len(rows)), key=lambda g: abs(prefix[g] - ideal), default=0)]
            if candidates[0] <= last:
                continue
        cuts.append(max(candidates, key=lambda g: (float(strength[g]), -abs(prefix[g] - ideal), -g)))
    edges = [0, *cuts, len(rows)]
    return [rows[a:b] for a, b in zip(edges, edges[1:], strict=False) if b > a]
