"""The token heuristic against counts known from real tokenizers (ranges, not exact)."""

from __future__ import annotations

import time

from engine.context.tokens import estimate_tokens

# cl100k / o200k give about 10 tokens for the English pangram and 14–30 for the Russian
# one (o200k splits Cyrillic coarser than cl100k); the estimate must land in between.
ENGLISH = "The quick brown fox jumps over the lazy dog."
RUSSIAN = "Съешь же ещё этих мягких французских булок, да выпей чаю."


def test_estimates_fall_in_the_range_of_real_tokenizers():
    assert 9 <= estimate_tokens(ENGLISH) <= 14
    assert 14 <= estimate_tokens(RUSSIAN) <= 30
    assert estimate_tokens(ENGLISH * 100) in range(1000, 1400)


def test_edge_cases_and_wide_scripts():
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("日本語のテキスト") == 8  # one per CJK character: the pessimistic end
    assert estimate_tokens("ok 😀") == 2


def test_never_shrinks_when_text_grows():
    text = ""
    previous = 0
    for char in "Привет, world! 日本 " * 5:
        text += char
        assert estimate_tokens(text) >= previous
        previous = estimate_tokens(text)


def test_fast_enough_for_every_message_of_a_big_topic():
    text = ("Мы сравнили задержку репликации, and the index bloat. " * 500)
    started = time.perf_counter()
    for _ in range(100):
        estimate_tokens(text)
    assert time.perf_counter() - started < 1.0  # 100 × 27,000 chars
