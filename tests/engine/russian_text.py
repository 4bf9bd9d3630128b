"""A check for engine messages rendered in Russian (issue 22): Cyrillic prose, and no English word
left in it except the names a message carries (file names, model ids, identifiers)."""

from __future__ import annotations

import re

_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z']+")
PRODUCT = ("Flashback", "Flash")  # names, said as they are in every language


def english_words(text: str, names: tuple[str, ...] = ()) -> list[str]:
    """Latin words of `text` outside `names` (each name is removed whole before looking)."""
    for name in sorted((*names, *PRODUCT), key=len, reverse=True):
        text = text.replace(name, " ")
    return _LATIN_WORD.findall(text)


def assert_russian(text: str, *names: str) -> None:
    assert re.search("[А-Яа-яЁё]", text), text
    assert english_words(text, names) == [], text
