"""Secrets are never facts (issue 33): API keys, passwords, PINs, card numbers and tokens.

A fact naming a credential is refused outright, whatever its value looks like: "her wifi
password is …" is a secret even when the value is a plain word, and refusing "uses a
password manager" too is the cheap side of the trade. Key-shaped strings are found by shape
(`engine.scrub`'s rules plus common providers' prefixes), card numbers by the Luhn check.
"""

from __future__ import annotations

import re

from engine.scrub import scrub_text

_CREDENTIAL_WORDS = re.compile(
    r"(?i)\b(passwords?|passwd|passcodes?|passphrases?|pin(?:\s*code)?|cvv|cvc|api[\s_-]?keys?|access[\s_-]?tokens?|"
    r"secret[\s_-]?keys?|private[\s_-]?keys?|seed\s+phrase|recovery\s+codes?|2fa\s+codes?|one[\s-]time\s+codes?|"
    r"парол\w*|пин-?код\w*|секретн\w+\s+ключ\w*|api-?ключ\w*|токен\w*|код\w*\s+из\s+смс)\b")
_KEY_SHAPES = re.compile(
    r"(?<![A-Za-z0-9])(?:sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,})")
_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")


def _luhn(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def is_secret(text: str) -> bool:
    """True when `text` names a credential or holds something shaped like one."""
    if _CREDENTIAL_WORDS.search(text) or _KEY_SHAPES.search(text) or scrub_text(text) != text:
        return True
    return any(_luhn(re.sub(r"\D", "", match.group(0))) for match in _CARD.finditer(text))
