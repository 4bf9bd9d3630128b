"""Text → hashed features for the built-in embedder: normalisation, character n-grams, words.

Everything here is deterministic across processes and machines (Python's `hash()` is salted
per process, so it is never used): a feature is a 64-bit polynomial hash of its code points,
finished with MurmurHash3's fmix64 so that every bit is usable. The hashing is vectorised
with numpy over the whole text (no per-n-gram Python loop), which is what makes a pure-Python
embedder fast enough for 100k topics.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np

NGRAM_SIZES = (3, 4, 5)

_WORD = re.compile(r"\w+")
_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_SHORT_I = "\ue000"  # private-use stand-in: й must not lose its breve and become и

_P = 0x100000001B3  # FNV-64 prime: odd, so it has an inverse modulo 2**64
_P_INV = pow(_P, -1, 2**64)
_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)
_NGRAM_SALT = 0x9E3779B97F4A7C15
_WORD_SALT = 0xD1B54A32D192ED03
_MASK64 = 2**64 - 1


def normalise(text: str) -> str:
    """Lowercase, ё→е, accents stripped (é→e, ü→u) but й kept; words joined by single spaces and padded.

    The result is " word word … " so that n-grams can mark word starts and ends.
    """
    text = text.lower().replace("ё", "е")
    if not text.isascii():
        text = text.replace("й", _SHORT_I)
        text = _COMBINING.sub("", unicodedata.normalize("NFKD", text)).replace(_SHORT_I, "й")
    words = _WORD.findall(text)
    return " " + " ".join(words) + " " if words else ""


def _fmix64(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> _S33)
    h = h * _M1
    h = h ^ (h >> _S33)
    h = h * _M2
    return h ^ (h >> _S33)


def _powers(base: int, count: int) -> np.ndarray:
    """base**0 … base**(count-1) modulo 2**64 (numpy's uint64 arithmetic wraps)."""
    out = np.empty(count, dtype=np.uint64)
    if count:
        out[0] = 1
        out[1:] = np.uint64(base)
        np.cumprod(out, out=out)
    return out


def _substring_hashes(starts: np.ndarray, ends: np.ndarray, s: np.ndarray, p_pow: np.ndarray) -> np.ndarray:
    """Polynomial hash of codes[start:end] for each pair, from prefix sums `s` (see `features`)."""
    return (s[ends] - s[starts]) * p_pow[ends - 1]


def _prefix_hashes(padded: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Code points, prefix sums and powers such that `_substring_hashes` hashes any slice in O(1).

    s[i] = sum_{j<i} codes[j] * P_INV**j, so (s[b]-s[a]) * P**(b-1) = sum_j codes[j] * P**(b-1-j):
    the usual polynomial hash of codes[a:b], for every slice at once.
    """
    codes = np.frombuffer(padded.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    s = np.zeros(len(codes) + 1, dtype=np.uint64)
    np.cumsum(codes * _powers(_P_INV, len(codes)), out=s[1:])
    return codes, s, _powers(_P, len(codes))


def features(padded: str, sizes: tuple[int, ...] = NGRAM_SIZES) -> tuple[np.ndarray, np.ndarray]:
    """Distinct character n-gram hashes of a normalised text (see `normalise`) and their counts.

    N-grams never cross a word boundary: a space may only be an n-gram's first or last
    character (sklearn's `char_wb`), so " кот" and "кот " mark a word's start and end.
    """
    if not padded:
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
    codes, s, p_pow = _prefix_hashes(padded)
    length = len(codes)
    is_space = codes == 32
    hashes = []
    for n in sizes:
        if length < n:
            continue
        inside = np.ones(length - n + 1, dtype=bool)
        for k in range(1, n - 1):  # no space strictly inside the n-gram
            inside &= ~is_space[k:length - n + 1 + k]
        starts = np.flatnonzero(inside)
        hashes.append(_substring_hashes(starts, starts + n, s, p_pow) ^ np.uint64((_NGRAM_SALT * n) & _MASK64))
    if not hashes:
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
    return np.unique(_fmix64(np.concatenate(hashes)), return_counts=True)


def word_features(padded: str) -> tuple[np.ndarray, np.ndarray]:
    """Distinct whole-word hashes of a normalised text and their counts (never equal to an n-gram hash)."""
    if not padded:
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
    codes, s, p_pow = _prefix_hashes(padded)
    spaces = np.flatnonzero(codes == 32)  # normalised text: one space before and after every word
    return np.unique(_fmix64(_substring_hashes(spaces[:-1] + 1, spaces[1:], s, p_pow) ^ np.uint64(_WORD_SALT)),
                     return_counts=True)
