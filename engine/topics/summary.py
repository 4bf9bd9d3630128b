"""Extractive topic summaries: who, when, the distinctive terms, the opening request.

Used when no chat model is configured, for the splitter's fallback and for the general
topic. One line of at most ~300 characters, in the chat's language, meant for a reader
scanning fifty of them and for a lexical embedder: names, dates, rare words and numbers
are what tell two topics apart, so those are what it keeps.

Term weights are tf-idf. Document frequencies come from the store's FTS5 index through
`fts5vocab` (per-term document counts over every message of every chat) instead of a df
table of our own: the importer already maintains it, it covers the whole history (an
incremental build of 50 new messages still knows "the" is common), and a per-build cache
means each term costs one lookup. The tokenizer below mirrors FTS5 `unicode61
remove_diacritics 2` plus the store's ё→е folding, so the terms match the index's.
"""

from __future__ import annotations

import math
import re
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from engine.store.sql import select_in
from engine.topics.sessions import MessageRow

_TOKEN = re.compile(r"[^\W_]+")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_MAX_TERMS = 6
_MAX_LENGTH = 300
_VOCAB_DDL = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_vocab USING fts5vocab(main, message_fts, 'row')"

# Function words idf cannot be trusted to sink in a small store (tf-idf handles them in a big one).
_STOPWORDS = frozenset("""
the and for you that this with have are was not but what all can just your from they will about would there
out get like one know how yes yeah okay its it's then them when who why did does has had were been more some
here now also too very really think want need going well sure thanks thank please could should which their
our any see got let lol hmm
это что как так все всё вот ещё еще уже они она оно его her him там тут где когда если или чтобы потому
тоже только меня тебя тебе мне нас вас вам нам был была были будет есть нет да ну ладно хорошо просто очень
можно нужно надо сейчас потом может могу хочу пока спасибо привет давай даже этот эта эти того тем чем при
без для про над под
""".split())
# No words of ours in a summary: it is stored once, at build time, and read in whichever
# language the window is in, so "ключевые слова:" would be wrong in an English UI and
# "key terms:" in a Russian one. Only the quote marks follow the chat's language.
_QUOTES = {"en": "“{}”", "ru": "«{}»"}


def detect_language(texts: Iterable[str], sample_chars: int = 20_000) -> str:
    """"ru" when Cyrillic letters are at least as common as Latin ones, else "en"."""
    sample, size = [], 0
    for text in texts:
        sample.append(text)
        size += len(text)
        if size >= sample_chars:
            break
    joined = "\n".join(sample)
    cyrillic, latin = len(_CYRILLIC.findall(joined)), len(_LATIN.findall(joined))
    return "ru" if cyrillic and cyrillic >= latin else "en"


def fold_term(token: str) -> str:
    """A token as the FTS5 index stores it: case-folded, ё→е, Latin diacritics removed."""
    token = token.lower().replace("ё", "е")
    if token.isascii():
        return token
    return "".join(ch for ch in unicodedata.normalize("NFKD", token) if not unicodedata.combining(ch)
                   ) if _LATIN.search(token) else token


def chat_language(connection: sqlite3.Connection, chat_id: int) -> str:
    """The chat's language from its recent messages: every topic of a chat gets the same
    labels and instructions, whatever one short chunk happens to contain."""
    sample = connection.execute(
        "SELECT text FROM message WHERE chat_id = ? AND is_service = 0 AND text != '' "
        "ORDER BY sent_at DESC LIMIT 400", (chat_id,))
    return detect_language(text for (text,) in sample)


def author_label(row: MessageRow) -> str:
    return row.author or {"user": "User", "assistant": "Assistant"}.get(row.role, "Unknown")


class Summarizer:
    """Extractive summaries over one connection, with a cache of document frequencies.

    `preload` reads the whole vocabulary in one scan (0.18 s for 80k terms, measured)
    instead of looking terms up topic by topic (16.5k lookups took 3 s on the same
    100k-message store): right for a big build, wasteful for fifty new messages. Terms
    seen in a single message are left out of the preload (half of a vocabulary, and the
    default df of 1 is their value anyway).
    """

    def __init__(self, connection: sqlite3.Connection | None, preload: bool = False) -> None:
        self._connection = connection
        self._df: dict[str, int] = {}
        self._terms: dict[str, str | None] = {}
        self._documents = 1
        self._vocab = False
        self._complete = False  # every term with df > 1 is in _df
        if connection is None:
            return
        try:
            connection.execute(_VOCAB_DDL)
            self._documents = max(1, connection.execute(
                "SELECT count(*) FROM message WHERE is_service = 0 AND text != ''").fetchone()[0])
            if preload:
                self._df = dict(connection.execute("SELECT term, doc FROM temp.fts_vocab WHERE doc > 1"))
                self._complete = True
            self._vocab = True
        except sqlite3.OperationalError:
            pass  # no FTS index (a bare test store): plain term frequency and the stop list

    def _document_frequencies(self, terms: list[str]) -> None:
        """Look up terms not seen before in this build (one query per 500 of them)."""
        assert self._connection is not None  # called only when `_vocab`, which only a connection sets
        missing = [term for term in terms if term not in self._df]
        for term in missing:
            self._df[term] = 1  # not indexed (only in service messages?): as rare as can be
        self._df.update(select_in(
            self._connection, "SELECT term, doc FROM temp.fts_vocab WHERE term IN ({ids})", missing))

    def summarize(self, rows: Sequence[MessageRow], language: str | None = None, prefix: str = "") -> str:
        """One line: [prefix ·] who · when · key terms · “the opening request”, ≤ ~300 characters,
        with no label words (see `_QUOTES`)."""
        if not rows:
            return prefix
        language = language or detect_language(row.text for row in rows)
        quote = _QUOTES.get(language, _QUOTES["en"])
        parts = [part for part in (prefix, _who(rows), _when(rows)) if part]
        opening = _opening(rows)
        # Words the quote will show would spend the budget twice: name other ones.
        shown = {self._term(token) for token in _TOKEN.findall(opening[:120])}
        terms = self.distinctive_terms(rows, shown=shown)
        if terms:
            parts.append(", ".join(terms))
        head = _trim(" · ".join(parts), _MAX_LENGTH - 60)
        # The quote gets what the rest left (at least ~40 characters), so it is never cut mid-quote.
        room = _MAX_LENGTH - len(head) - 5
        opening = _trim(opening, max(room, 40))
        return f"{head} · {quote.format(opening)}" if opening else head

    def distinctive_terms(self, rows: Sequence[MessageRow], limit: int = _MAX_TERMS,
                          shown: set[str | None] | frozenset[str] = frozenset()) -> list[str]:
        """Top terms by tf-idf; shown in their most common spelling ("Docker", "GPU")."""
        # One regex pass and a C-level Counter per topic; the Python loop then runs over
        # distinct spellings only (this is the hot loop of a million-message build).
        spellings = Counter(_TOKEN.findall("\n".join(row.text for row in rows)))
        names = {self._term(token) for author in {row.author for row in rows if row.author}
                 for token in _TOKEN.findall(author)}
        counts: dict[str, int] = {}
        capitalised: dict[str, int] = {}
        best: dict[str, tuple[str, int]] = {}
        for token, count in spellings.items():
            term = self._term(token)
            if term is None or term in names or term in shown:
                continue
            counts[term] = counts.get(term, 0) + count
            if token[0].isupper():
                capitalised[term] = capitalised.get(term, 0) + count
            if count > best.get(term, ("", 0))[1]:
                best[term] = (token, count)
        if self._vocab and not self._complete:
            self._document_frequencies(list(counts))
        scored = []
        for term, count in counts.items():
            idf = math.log((self._documents + 1) / (self._df.get(term, 1) + 0.5)) if self._vocab else 1.0
            # Mostly written capitalised → probably a name, product or place: those distinguish.
            boost = 1.5 if capitalised.get(term, 0) * 2 > count else 1.0
            scored.append(((1 + math.log(count)) * idf * boost, term))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [best[term][0] for _score, term in scored[:limit]]

    def _term(self, token: str) -> str | None:
        """The folded term of a spelling, or None for stop words and noise (cached per build)."""
        if token in self._terms:
            return self._terms[token]
        folded = fold_term(token)
        term = None if folded in _STOPWORDS or not _useful(folded) else folded
        self._terms[token] = term
        return term


def _useful(term: str) -> bool:
    if term.isdigit():
        return 3 <= len(term) <= 12  # years, amounts, ports; not the "12" and "30" of "12:30"
    return len(term) >= 3 and len(term) <= 30


def _who(rows: Sequence[MessageRow], shown: int = 3) -> str:
    authors = Counter(author_label(row) for row in rows).most_common()
    names = ", ".join(_trim(name, 24) for name, _count in authors[:shown])
    rest = len(authors) - shown
    return f"{names} +{rest}" if rest > 0 else names


def _when(rows: Sequence[MessageRow]) -> str:
    first = datetime.fromtimestamp(min(row.sent_at for row in rows), UTC).strftime("%Y-%m-%d")
    last = datetime.fromtimestamp(max(row.sent_at for row in rows), UTC).strftime("%Y-%m-%d")
    return first if first == last else f"{first} – {last}"


def _opening(rows: Sequence[MessageRow]) -> str:
    """The first substantive message (whitespace collapsed): in an assistant chat the
    user's first request; failing that, the longest message."""
    assistant_chat = any(row.role == "assistant" for row in rows)
    candidates = [row for row in rows if row.role == "user"] if assistant_chat else rows
    for row in candidates or rows:
        if len(row.text) >= 12 and " " in row.text.strip():
            return " ".join(row.text.split())
    return " ".join(max((row.text for row in rows), key=len).split())


def _trim(text: str, limit: int) -> str:
    """Cut at a word boundary with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:·–-") + "…"
