"""Step 6, verify (seed 002 §8): each claim checked against the messages it cites.

Offline, with no model (issue 32): a claim is supported only when its cited messages hold
what it adds beyond the question: its names, places, dates, numbers and other new words
(`engine.support.check`: dates as dates, numbers as numbers, words by stem or, with an
embedder that knows meaning, by meaning). Sharing the question's own words supports nothing:
the messages the search found hold them whatever the answer says. A claim in another script
than its sources cannot be compared word by word; with a multilingual embedder its words are
compared by meaning, otherwise it is left unchecked (supported None) rather than called
unsupported. With `verify="llm"` the offline check still runs first; then one bounded call
judges every claim by the same rule, and a claim it skips (or a call that fails) keeps the
offline verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from engine.ask.calls import CallOutcome, schema_call
from engine.ask.types import Claim, Source
from engine.messages import Message, msg
from engine.retrieval.fusion import script_overlap, script_shares
from engine.support import Evidence, check
from engine.support.words import content_words

SUPPORT_BAR = 0.5  # kept for the answer's share: under half the claims supported → refine / refuse


def evidence_of(sources: Sequence[Source]) -> list[Evidence]:
    """Each message of `sources` with its author and date (relative dates resolve against it)."""
    found = []
    for source in sources:
        authors = source.message_authors or [""] * len(source.messages)
        times = source.message_times or [source.first_at] * len(source.messages)
        for text, author, sent in zip(source.messages, authors, times, strict=False):
            if text.strip():
                found.append(Evidence(text, datetime.fromtimestamp(sent, UTC), author))
    return found


def check_offline(claims: list[Claim], sources: Sequence[Source], embedder, question: str = "") -> dict[str, Any]:
    """Mark each claim in place; the figures for the trace."""
    by_number = {s.number: s for s in sources}
    multilingual = bool(getattr(embedder, "multilingual", False))
    for claim in claims:
        claim.method = "offline"
        cited = [by_number[n] for n in claim.citations if n in by_number]
        if not cited:
            claim.supported, claim.support = False, 0.0
            _note(claim, msg("ask.claim.no_source"))
            continue
        if _asks_again(claim.text, question):
            # A small model's "claim" that is the question itself: no message can state an answer
            # it does not give, though the cited messages may well hold the question's words.
            claim.supported, claim.support = False, 0.0
            _note(claim, msg("ask.claim.asks_again"))
            continue
        evidence = evidence_of(cited)
        overlap = script_overlap(script_shares(claim.text), "\n".join(e.text for e in evidence))
        if not multilingual and overlap < 0.2:
            claim.supported, claim.support = None, 0.0
            _note(claim, msg("ask.claim.other_language"))
            continue
        verdict = check(claim.text, evidence, question, embedder)
        if not verdict.supported and not multilingual and overlap < 0.5:
            # Mostly another script: its words cannot be found word by word, and no embedder
            # here compares across languages; unchecked, not called wrong.
            claim.supported, claim.support = None, verdict.score
            _note(claim, msg("ask.claim.other_language"))
            continue
        claim.support, claim.supported = verdict.score, verdict.supported
        if verdict.supported:
            _note(claim, None)
        elif verdict.missing:
            _note(claim, msg("ask.claim.words_missing", words=", ".join(verdict.missing[:6])))
        else:
            _note(claim, msg("ask.claim.restates_question"))
    return supported_share(claims)


def _asks_again(text: str, question: str) -> bool:
    """A claim that is a question made only of the question's words."""
    if not question or not text.rstrip().endswith("?"):
        return False
    asked = {stem for stem, _ in content_words(question)}
    return {stem for stem, _ in content_words(text)} <= asked


def supported_share(claims: list[Claim]) -> dict[str, Any]:
    checked = [c for c in claims if c.supported is not None]
    supported = sum(1 for c in checked if c.supported)
    return {"claims": len(claims), "checked": len(checked), "supported": supported,
            "share": round(supported / len(checked), 3) if checked else None}


VERIFY_SYSTEM = ("You check an answer against the chat messages it cites. A claim is supported only when its "
                 "cited messages state what the claim adds to the question: its names, places, dates, numbers "
                 "and other facts. Words the claim shares with the question prove nothing. For each numbered "
                 "claim say whether its cited messages state it. Reply with JSON only.")


def verify_schema(count: int) -> dict[str, Any]:
    verdict = {"type": "object", "additionalProperties": False, "required": ["claim", "supported"], "properties": {
        "claim": {"type": "integer", "enum": list(range(1, count + 1))}, "supported": {"type": "boolean"}}}
    return {"type": "object", "additionalProperties": False, "required": ["verdicts"], "properties": {
        "verdicts": {"type": "array", "minItems": 1, "maxItems": count, "items": verdict}}}


def verify_messages(claims: list[Claim], sources: Sequence[Source], question: str = "") -> list[dict]:
    """The cited sources once each, then the claims naming theirs by number. Written per claim,
    a source cited by every claim went into the prompt once per claim: a small model's ten claims
    on four sources made an 11K-token request that an 8K llama.cpp context refused. Listed once,
    the prompt is bounded by the sources' own budget (compose) plus the claims."""
    by_number = {s.number: s for s in sources}
    cited = sorted({n for claim in claims for n in claim.citations if n in by_number})
    parts = [f"Question: {question}"] if question else []
    if cited:
        parts.append("Messages:\n" + "\n\n".join(by_number[n].text for n in cited))
    for i, claim in enumerate(claims, 1):
        numbers = [n for n in claim.citations if n in by_number]
        cites = ", ".join(f"[{n}]" for n in numbers) if numbers else "no message"
        parts.append(f"Claim {i} (cites {cites}): {claim.text}")
    return [{"role": "system", "content": VERIFY_SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


async def check_with_model(client, claims: list[Claim], sources: Sequence[Source], *, max_tokens: int,
                           timeout: float, model: str | None = None, question: str = "") -> CallOutcome:
    """Mark each claim from one verify call; claims the model skipped keep what they had."""
    call = await schema_call(client, verify_messages(claims, sources, question), verify_schema(len(claims)),
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
            if not claim.citations or _asks_again(claim.text, question):
                continue  # nothing cited, or the question asked again: no model can make it supported
            claim.supported, claim.support, claim.method = verdict, 1.0 if verdict else 0.0, "llm"
            _note(claim, None if verdict else msg("ask.claim.model_says_unstated"))
    return call


def _note(claim: Claim, message: Message | None) -> None:
    """Why the claim is marked: English in `note` (the trace, --json), the code beside it."""
    claim.note, claim.note_message = (str(message) if message is not None else ""), message
