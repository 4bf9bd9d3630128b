"""Step 6, verify (seed 002 §8): each claim checked against the messages it cites.

Offline, with no model: a claim's support is the larger of
- its lexical cover: the share of its content words (stemmed, Russian and English alike,
  numbers included) that the cited messages contain, and
- its similarity: the embedder's cosine between the claim and the closest cited message,
  scaled by where it stands among the claim's cosines with every message in the context
  (a z-score, so the bar holds for any embedder's range),
and a claim naming a number the cited messages do not hold is capped below the bar.
A claim in another script than its sources cannot be compared by a monolingual embedder and
has no shared words: it is left unchecked (supported None) rather than called unsupported.
With `verify="llm"` the offline check still runs first; then one bounded call judges every
claim against its cited sources, and a claim it skips (or a call that fails) keeps the
offline verdict.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.ask.calls import CallOutcome, schema_call
from engine.ask.types import Claim, Source
from engine.messages import Message, msg
from engine.retrieval.fusion import script_overlap, script_shares
from engine.text.stemming import terms

SUPPORT_BAR = 0.5  # support ≥ this: supported (the bar the calibration test measures against)
Z_FOR_FULL = 3.0  # a cited message this many deviations above the context's mean scores 1
_DIGITS = re.compile(r"\d+")
# Words that carry no fact: a claim is not "supported" by sharing them.
STOPWORDS = frozenset(terms(
    "a an the and or but of to in on at for with from by about as is are was were be been it its this that these "
    "those he she they them his her their you your we our i me my not no yes will would can could did do does "
    "has have had there here what when where who which how on so than then also just said says say told "
    "и в во не что он она они оно на я с со как а то все всё так его её их но да ты к у же вы за бы по только "
    "ее мне было было вот от меня еще ещё нет о из ему теперь когда даже ну ли если уже или ни быть был была "
    "были до вас нибудь опять уж вам ведь там потом себя ничего ей может тут где есть надо ней для мы тебя чем "
    "сказал сказала это этот эта эти"))


def content_terms(text: str) -> set[str]:
    return {t for t in terms(text) if t not in STOPWORDS and (len(t) > 1 or t.isdigit())}


def lexical_cover(claim: str, cited: str) -> float:
    wanted = content_terms(claim)
    if not wanted:
        return 0.0
    return len(wanted & content_terms(cited)) / len(wanted)


def missing_numbers(claim: str, cited: str) -> list[str]:
    have = set(_DIGITS.findall(cited))
    return [n for n in dict.fromkeys(_DIGITS.findall(claim)) if n not in have and n.lstrip("0") not in have]


def _similarity(embedder, claim: str, cited: list[str], context: list[str]) -> float:
    """The closest cited message's cosine as a share: z over the context's cosines, Z_FOR_FULL → 1."""
    if embedder is None or not cited or len(context) < 3:
        return 0.0
    vectors = embedder.embed([claim, *context], "document")
    cosines = vectors[1:] @ vectors[0]
    index = {text: i for i, text in enumerate(context)}
    best = max(float(cosines[index[t]]) for t in cited if t in index)
    deviation = float(np.std(cosines))
    if deviation < 1e-6:
        return 0.0
    return float(np.clip((best - float(np.mean(cosines))) / deviation / Z_FOR_FULL, 0.0, 1.0))


def check_offline(claims: list[Claim], sources: Sequence[Source], embedder) -> dict[str, Any]:
    """Mark each claim in place; the figures for the trace."""
    by_number = {s.number: s for s in sources}
    context = list(dict.fromkeys(m for s in sources for m in s.messages if m.strip()))
    multilingual = bool(getattr(embedder, "multilingual", False))
    for claim in claims:
        claim.method = "offline"
        cited = [by_number[n] for n in claim.citations if n in by_number]
        if not cited:
            claim.supported, claim.support = False, 0.0
            _note(claim, msg("ask.claim.no_source"))
            continue
        cited_messages = [m for s in cited for m in s.messages if m.strip()]
        cited_text = "\n".join(s.text for s in cited)  # headers too: dates and names count as evidence
        if not multilingual and script_overlap(script_shares(claim.text), "\n".join(cited_messages)) < 0.2:
            claim.supported, claim.support = None, 0.0
            _note(claim, msg("ask.claim.other_language"))
            continue
        lexical = lexical_cover(claim.text, cited_text)
        similarity = _similarity(embedder, claim.text, cited_messages, context)
        support = max(lexical, similarity)
        numbers = missing_numbers(claim.text, cited_text)
        if numbers:
            support = min(support, SUPPORT_BAR - 0.01)
        claim.support = round(support, 3)
        claim.supported = support >= SUPPORT_BAR
        if numbers:
            _note(claim, msg("ask.claim.numbers_missing", numbers=", ".join(numbers[:5])))
        elif not claim.supported:
            _note(claim, msg("ask.claim.little_shared", words=lexical, meaning=similarity))
    return supported_share(claims)


def supported_share(claims: list[Claim]) -> dict[str, Any]:
    checked = [c for c in claims if c.supported is not None]
    supported = sum(1 for c in checked if c.supported)
    return {"claims": len(claims), "checked": len(checked), "supported": supported,
            "share": round(supported / len(checked), 3) if checked else None}


VERIFY_SYSTEM = ("You check an answer against the chat messages it cites. For each numbered claim say whether "
                 "its cited messages state it. Reply with JSON only.")


def verify_schema(count: int) -> dict[str, Any]:
    verdict = {"type": "object", "additionalProperties": False, "required": ["claim", "supported"], "properties": {
        "claim": {"type": "integer", "enum": list(range(1, count + 1))}, "supported": {"type": "boolean"}}}
    return {"type": "object", "additionalProperties": False, "required": ["verdicts"], "properties": {
        "verdicts": {"type": "array", "minItems": 1, "maxItems": count, "items": verdict}}}


def verify_messages(claims: list[Claim], sources: Sequence[Source]) -> list[dict]:
    by_number = {s.number: s for s in sources}
    parts = []
    for i, claim in enumerate(claims, 1):
        cited = "\n".join(by_number[n].text for n in claim.citations if n in by_number) or "(no source cited)"
        parts.append(f"Claim {i}: {claim.text}\nCited messages:\n{cited}")
    return [{"role": "system", "content": VERIFY_SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


async def check_with_model(client, claims: list[Claim], sources: Sequence[Source], *, max_tokens: int,
                           timeout: float, model: str | None = None) -> CallOutcome:
    """Mark each claim from one verify call; claims the model skipped keep what they had."""
    call = await schema_call(client, verify_messages(claims, sources), verify_schema(len(claims)),
                             name="verdicts", description="Whether each claim is stated by its cited messages.",
                             max_tokens=max_tokens, timeout=timeout, model=model)
    if not call.ok:
        return call
    raw = call.value.get("verdicts")
    for entry in raw if isinstance(raw, list) else []:
        number = entry.get("claim") if isinstance(entry, dict) else None
        verdict = entry.get("supported") if isinstance(entry, dict) else None
        if isinstance(number, int) and 1 <= number <= len(claims) and isinstance(verdict, bool):
            claim = claims[number - 1]
            if not claim.citations:
                continue  # nothing cited: no model can make it supported
            claim.supported, claim.support, claim.method = verdict, 1.0 if verdict else 0.0, "llm"
            _note(claim, None if verdict else msg("ask.claim.model_says_unstated"))
    return call


def _note(claim: Claim, message: Message | None) -> None:
    """Why the claim is marked: English in `note` (the trace, --json), the code beside it."""
    claim.note, claim.note_message = (str(message) if message is not None else ""), message
