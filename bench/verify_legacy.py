"""The offline verifier's rule before issue 32, kept for bench/verify_probe.py's "before" figure:
support = max(lexical cover of the claim's content words, the embedder's z-scored similarity
to the closest cited message), capped below the bar when a number is missing."""

from __future__ import annotations

import re

import numpy as np

from engine.support.words import STOPWORDS
from engine.text.stemming import terms

SUPPORT_BAR = 0.5
Z_FOR_FULL = 3.0
_DIGITS = re.compile(r"\d+")


def _content(text: str) -> set[str]:
    return {t for t in terms(text) if t not in STOPWORDS and (len(t) > 1 or t.isdigit())}


def legacy_support(claim: str, evidence, context, embedder) -> bool:
    cited_text = "\n".join(f"[{t.speaker} ({t.sent:%Y-%m-%d %H:%M})]: {t.text}" for t in evidence)
    wanted = _content(claim)
    lexical = len(wanted & _content(cited_text)) / len(wanted) if wanted else 0.0
    similarity = 0.0
    texts = list(dict.fromkeys([t.text for t in evidence] + [t.text for t in context]))
    if embedder is not None and len(texts) >= 3:
        vectors = embedder.embed([claim, *texts], "document")
        cosines = vectors[1:] @ vectors[0]
        best = max(float(cosines[texts.index(t.text)]) for t in evidence)
        deviation = float(np.std(cosines))
        if deviation > 1e-6:
            similarity = float(np.clip((best - float(np.mean(cosines))) / deviation / Z_FOR_FULL, 0.0, 1.0))
    support = max(lexical, similarity)
    have = set(_DIGITS.findall(cited_text))
    if [n for n in _DIGITS.findall(claim) if n not in have and n.lstrip("0") not in have]:
        support = min(support, SUPPORT_BAR - 0.01)
    return support >= SUPPORT_BAR
