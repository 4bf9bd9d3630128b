"""Words → search terms for BM25: folded and stemmed, Russian and English alike.

A term is a run of letters and digits (`[^\\W_]+`, as FTS5's unicode61 tokenizer splits
text), lowercased, ё→е, Latin accents stripped (é→e) with й kept, then reduced to its
Snowball stem: the Russian algorithm for a word with Cyrillic letters, the English one
for a word with Latin letters, digits and other scripts unchanged. So "painting",
"painted" and "paints" are one term, and so are "машина", "машину" and "машины".

The same function makes the terms of a topic (at build time, stored in `topic_fts`) and of
a query, so both sides always agree. Stemming is pure Python (`snowballstemmer`; it uses
the C `PyStemmer` when that happens to be installed); a word costs ~30-40 µs the first
time and a dictionary lookup after that, so a build pays per distinct word, not per token.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import snowballstemmer

_TOKEN = re.compile(r"[^\W_]+")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[a-z]")
_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_SHORT_I = "\ue000"  # private-use stand-in: й must not lose its breve and become и
_RUSSIAN = snowballstemmer.stemmer("russian")
_ENGLISH = snowballstemmer.stemmer("english")
CACHE_WORDS = 1 << 19  # distinct words remembered (~50 MB at most); a chat history rarely has more


def fold(text: str) -> str:
    """Lowercase, ё→е, Latin diacritics stripped, й kept (what FTS5 `remove_diacritics 2` does)."""
    text = text.lower().replace("ё", "е")
    if text.isascii():
        return text
    text = text.replace("й", _SHORT_I)
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text)).replace(_SHORT_I, "й")


@lru_cache(maxsize=CACHE_WORDS)
def stem_word(word: str) -> str:
    """The stem of one folded word (see the module docstring for which stemmer)."""
    if _CYRILLIC.search(word):
        return _RUSSIAN.stemWord(word)
    if _LATIN.search(word):
        return _ENGLISH.stemWord(word)
    return word


def terms(text: str) -> list[str]:
    """Every term of `text` in order (repeats kept: term frequency matters to BM25)."""
    return [stem_word(word) for word in _TOKEN.findall(fold(text))]


def stem_text(text: str) -> str:
    """`text` as the space-separated terms that `topic_fts` stores."""
    return " ".join(map(stem_word, _TOKEN.findall(fold(text))))
