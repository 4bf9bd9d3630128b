"""Context assembly: the reranker's selections turned into a pack that fits a token budget.

Items follow the selection order (the reranker's order is its ranking). Each costs its
text, summary and reason plus `ITEM_OVERHEAD_TOKENS` for the heading and source line the
export adds; `used_tokens` is the sum, and never exceeds the budget (the pack's own title
line is not counted). For each selection, in order:

1. the whole content, when it fits in what is left;
2. else, for a topic, a shortened transcript when at least `MIN_USEFUL_TOKENS` are left:
   whole messages from the start (up to two thirds of the room) and from the end (the
   rest: conversations often conclude there), with a "[… N messages left out …]" line
   between; `truncated=True`. A single first message longer than the room is clipped;
3. else it goes to `omitted` with why (over budget, or no longer in the store), and the
   next selections still get their chance, since a smaller one may fit.

A topic's content is the reranker's excerpt when it gave one (seed 000: topics over
25,000 characters), otherwise the whole conversation log.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from engine.export.errors import ContextError
from engine.export.material import Material, material
from engine.messages import Message, msg
from engine.rerank.base import Candidate, Selection
from engine.retrieval.candidate import CandidateKind
from engine.text.tokens import estimate_tokens

DEFAULT_BUDGET_TOKENS = 8000
ITEM_OVERHEAD_TOKENS = 24  # heading "Topic 42 · chat · dates", source line, blank lines
MIN_USEFUL_TOKENS = 150  # less than this of a topic is a few lines out of context: omit it
HEAD_SHARE = 2 / 3
_MARKER_TOKENS = 20  # the marker line with a five-digit count, and its newline


@dataclass
class ContextItem:
    kind: CandidateKind
    id: int
    reason: str  # the reranker's
    date: str | None  # ISO date: first message (topics), last seen (people), sent (artifacts)
    chat: str | None
    summary: str
    text: str
    chars: int
    truncated: bool = False
    tokens: int = 0  # what the item costs in the budget (text, summary, reason, heading)
    excerpt: bool = False  # text is the reranker's excerpt, not the whole conversation
    sources: dict[str, Any] = field(default_factory=dict)  # ids and first/last times, per kind

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ContextPack:
    query: str
    created_at: str  # ISO 8601, UTC
    budget_tokens: int
    used_tokens: int
    items: list[ContextItem]
    omitted: list[dict[str, Any]]  # {kind, id, reason, why, needed_tokens}
    reranker: str | None = None
    candidates: int = 0  # how many the reranker chose from


# What a selection is, as the error that cannot read one says it ("Could not read topic 42 …").
_WHAT: dict[CandidateKind, Message] = {
    "topic": msg("export.kind.topic"), "person": msg("export.kind.person"),
    "artifact": msg("export.kind.artifact"), "message": msg("export.kind.message")}


def _marker(count: int) -> str:
    noun = "message" if count == 1 else "messages"
    return f"[… {count} {noun} left out to fit the token budget …]"


def _clip(text: str, limit: int) -> str:
    """The start of `text` within `limit` tokens, ending in an ellipsis (3 tokens kept for
    it and the newline)."""
    limit = max(limit - 3, 1)
    size = len(text)
    while size > 0 and (cost := estimate_tokens(text[:size])) > limit:
        size = min(size - 1, int(size * limit / cost))
    return text[:max(size, 0)].rstrip() + " …"


def shorten(pieces: list[str], room: int) -> tuple[list[str], int]:
    """Whole pieces from both ends within `room` tokens, a marker line between them.
    Returns (lines, pieces kept); the first piece is clipped when nothing else fits."""
    costs = [estimate_tokens(piece) + 1 for piece in pieces]  # +1: the newline joining them
    available = room - _MARKER_TOKENS
    head = spent = 0
    while head < len(pieces) and spent + costs[head] <= available * HEAD_SHARE:
        spent += costs[head]
        head += 1
    tail = len(pieces)
    while tail > head and spent + costs[tail - 1] <= available:
        tail -= 1
        spent += costs[tail]
    while head < tail and spent + costs[head] <= available:  # room the end did not need
        spent += costs[head]
        head += 1
    if head == 0 and tail == len(pieces):
        return [_clip(pieces[0], available), _marker(len(pieces) - 1)] if len(pieces) > 1 else \
            [_clip(pieces[0], available)], 1
    return pieces[:head] + [_marker(tail - head)] + pieces[tail:], head + len(pieces) - tail


def _omission(selection: Selection, why: str, needed: int | None = None) -> dict[str, Any]:
    return {"kind": selection.kind, "id": selection.id, "reason": selection.reason, "why": why,
            "needed_tokens": needed}


def _item(selection: Selection, found: Material, summary: str, lines: list[str], fixed: int,
          truncated: bool) -> ContextItem:
    text = "\n".join(lines)
    return ContextItem(selection.kind, selection.id, selection.reason, found.date, found.chat, summary, text,
                       len(text), truncated, fixed + estimate_tokens(text), bool(selection.excerpt), found.sources)


def assemble_context(connection: sqlite3.Connection, query: str, selected: list[Selection],
                     candidates: list[Candidate], budget_tokens: int = DEFAULT_BUDGET_TOKENS, *,
                     reranker: str | None = None) -> ContextPack:
    """Pack `selected` (in order) into `budget_tokens`; see the module docstring for how."""
    if budget_tokens <= 0:
        raise ContextError(msg("export.budget_not_positive", budget=budget_tokens))
    known = {(c.kind, c.id): c for c in candidates}
    items: list[ContextItem] = []
    omitted: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    used = 0
    item: ContextItem | None
    for selection in selected:
        key = (selection.kind, selection.id)
        if key in seen:
            continue  # a reranker may repeat itself; the first mention holds the reason
        seen.add(key)
        try:
            found = material(connection, selection.kind, selection.id, selection.excerpt)
        except sqlite3.Error as exc:
            what = _WHAT.get(selection.kind, selection.kind)
            raise ContextError(msg("export.unreadable", what=what, id=selection.id, detail=str(exc))) from exc
        if found is None:
            omitted.append(_omission(selection, "not in the store any more (merged or deleted since the search)"))
            continue
        candidate = known.get(key)
        summary = found.summary or (candidate.summary if candidate else "")
        fixed = ITEM_OVERHEAD_TOKENS + estimate_tokens(selection.reason) + estimate_tokens(summary)
        room = budget_tokens - used - fixed
        whole = estimate_tokens("\n".join(found.pieces))
        if whole <= room:
            item = _item(selection, found, summary, found.pieces, fixed, False)
        elif found.cuttable and room >= MIN_USEFUL_TOKENS:
            lines, kept = shorten(found.pieces, room)
            item = _item(selection, found, summary, lines, fixed, True)
            item.sources = {**found.sources, "included_messages": kept, "total_messages": len(found.pieces)}
        else:
            item = None
        if item is None or item.tokens > budget_tokens - used:  # the estimate is additive; this is a guard
            omitted.append(_omission(selection, f"over the token budget: needs ~{whole + fixed} tokens, "
                                                f"{max(budget_tokens - used, 0)} left", whole + fixed))
            continue
        used += item.tokens
        items.append(item)
    created = datetime.now(UTC).isoformat(timespec="seconds")
    return ContextPack(query, created, budget_tokens, used, items, omitted, reranker, len(candidates))
