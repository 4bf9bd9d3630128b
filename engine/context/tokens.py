"""Token estimates without a tokenizer: no download, no network, the same answer everywhere.

The pack is pasted into whichever model the user talks to, so no one tokenizer is right
anyway. The rule, by character class:

- ASCII (English, code, digits, punctuation, spaces): 4 characters per token, the usual
  figure for BPE tokenizers on English text;
- other alphabets below U+2E80 (Cyrillic, Greek, accented Latin, Hebrew, Arabic, …): 3
  characters per token; tokenizers split these words more finely (cl100k is near 2.5 for
  Russian, o200k near 4), and 3 is the middle;
- everything from U+2E80 up (CJK, kana, hangul, emoji): 1 token per character, the
  pessimistic end, since overshooting a budget costs more than undershooting it.

Each class is rounded up separately, so any non-empty text is at least one token.
"""

from __future__ import annotations

import math
import re

# Counted with C-speed primitives rather than a Python loop: packing measures every
# message of every selected topic, and a 25,000-character topic is common.
_WIDE = re.compile("[\u2e80-\U0010ffff]")


def estimate_tokens(text: str) -> int:
    """Approximate token count of `text` (see the module docstring for the rule)."""
    if not text:
        return 0
    if text.isascii():
        return math.ceil(len(text) / 4)
    ascii_chars = len(text.encode("ascii", "ignore"))
    wide = len(_WIDE.findall(text))
    return math.ceil(ascii_chars / 4) + math.ceil((len(text) - ascii_chars - wide) / 3) + wide
