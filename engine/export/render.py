"""A context pack as Markdown (to paste into any chat) or JSON (for tools).

Markdown: a title with the query, one line on how the pack was made, a section per topic
(`## Topic 42 · chat · date range`, the reason in italics, the summary, the conversation
as "**Author** (date time): text" paragraphs), then people and attachments, then what
was left out and why. JSON: the same facts with stable keys (ids, kinds, reasons,
sources, dates, text), UTF-8 as-is (`ensure_ascii=False`).

Neither carries settings or keys: a pack has none. Both outputs still go through
`engine.scrub`'s credential patterns (`Bearer …`, `sk-…`), because people paste
API keys into chats, and an export is made to be pasted into someone else's model.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.export.material import MESSAGE_START
from engine.export.pack import ContextItem, ContextPack
from engine.retrieval.candidate import CandidateKind
from engine.scrub import scrub, scrub_text

_LOG_LINE = re.compile(r"^\[(?P<who>.+?) \((?P<date>\d{4}-\d\d-\d\d) (?P<time>\d\d:\d\d)(?::\d\d)?\)\]: ?")
_SHORT_LINE = re.compile(r"^\[(?P<who>[^\]\n]{1,200})\]: ?")
_MARKER = re.compile(r"^\[(… .* …)\]$")
_KIND_TITLES: dict[CandidateKind, tuple[str, str]] = {
    "topic": ("topic", "topics"), "message": ("message not built yet", "messages not built yet"),
    "person": ("person", "people"), "artifact": ("attachment", "attachments")}


def _count(items: list[ContextItem], kind: CandidateKind) -> str | None:
    n = sum(1 for item in items if item.kind == kind)
    singular, plural = _KIND_TITLES[kind]
    return f"{n} {singular if n == 1 else plural}" if n else None


def _date_range(item: ContextItem) -> str | None:
    first, last = (item.sources.get("first_at") or "")[:10], (item.sources.get("last_at") or "")[:10]
    if first and last and first != last:
        return f"{first} – {last}"
    return first or last or item.date


def _heading(*parts: str | None) -> str:
    return " · ".join(part for part in parts if part)


def _reason(item: ContextItem) -> list[str]:
    return [f"*{item.reason.strip()}*", ""] if item.reason.strip() else []


def _transcript(text: str) -> list[str]:
    """Each message as its own paragraph, the author in bold."""
    out = []
    for message in MESSAGE_START.split(text):
        if found := _MARKER.match(message):
            message = f"_{found[1]}_"
        elif found := _LOG_LINE.match(message):
            message = f"**{found['who']}** ({found['date']} {found['time']}): {message[found.end():]}"
        elif found := _SHORT_LINE.match(message):
            message = f"**{found['who']}**: {message[found.end():]}"
        out += [message, ""]
    return out


def _profile(text: str) -> list[str]:
    """A person's or attachment's lines: the first as a sentence, the rest as a list."""
    lines = text.split("\n")
    out = [lines[0], ""]
    for line in lines[1:]:
        out.append(line if line.endswith(":") else f"- {line}")
    return [*out, ""]


def _topic_section(item: ContextItem) -> list[str]:
    out = [f"## {_heading(f'Topic {item.id}', item.chat, _date_range(item))}", "", *_reason(item)]
    if item.summary:
        out += [f"Summary: {item.summary}", ""]
    if item.excerpt:
        out += ["_(Excerpt chosen by the reranker.)_", ""]
    if item.truncated and "included_messages" in item.sources:
        out += [f"_(Shortened to fit: {item.sources['included_messages']} of "
                f"{item.sources['total_messages']} messages.)_", ""]
    return out + _transcript(item.text)


def _message_section(item: ContextItem) -> list[str]:
    """An unbuilt message with its chat's neighbours: a transcript, under its own heading."""
    out = [f"## {_heading(f'Message {item.id} (not built into memory yet)', item.chat, item.date)}", "",
           *_reason(item)]
    return out + _transcript(item.text)


def _entity_section(item: ContextItem) -> list[str]:
    title = item.summary or f"{item.kind} {item.id}"
    date = None if item.kind == "person" else item.date
    return [f"### {_heading(title, item.chat, date)}", "", *_reason(item), *_profile(item.text)]


def to_markdown(pack: ContextPack) -> str:
    counts = ", ".join(filter(None, (_count(pack.items, kind) for kind in _KIND_TITLES))) or "nothing"
    how = f" by the {pack.reranker} reranker" if pack.reranker else ""
    how += f" from {pack.candidates} search candidates" if pack.candidates else ""
    lines = [f"# Context for: {pack.query}", "",
             f"_Selected{how}: {counts}; "
             f"~{pack.used_tokens:,} of {pack.budget_tokens:,} tokens. Made by Flashback on {pack.created_at[:10]}._",
             ""]
    for item in pack.items:
        if item.kind == "topic":
            lines += _topic_section(item)
        elif item.kind == "message":
            lines += _message_section(item)
    for kind, title in (("person", "People"), ("artifact", "Attachments")):
        group = [item for item in pack.items if item.kind == kind]
        if group:
            lines += [f"## {title}", ""]
            for item in group:
                lines += _entity_section(item)
    if pack.omitted:
        lines += ["## Not included", ""]
        lines += [f"- {entry['kind'].capitalize()} {entry['id']}: {entry['why']}" for entry in pack.omitted]
        lines.append("")
    return scrub_text("\n".join(lines).rstrip() + "\n")


def _item_json(item: ContextItem) -> dict[str, Any]:
    return {"kind": item.kind, "id": item.id, "reason": item.reason, "date": item.date, "chat": item.chat,
            "summary": item.summary, "truncated": item.truncated, "excerpt": item.excerpt, "chars": item.chars,
            "tokens": item.tokens, "sources": item.sources, "text": item.text}


def to_json(pack: ContextPack) -> str:
    payload = {
        "query": pack.query, "created_at": pack.created_at, "reranker": pack.reranker,
        "candidates": pack.candidates, "budget_tokens": pack.budget_tokens, "used_tokens": pack.used_tokens,
        "items": [_item_json(item) for item in pack.items],
        "omitted": [{"kind": e["kind"], "id": e["id"], "reason": e["reason"], "why": e["why"],
                     "needed_tokens": e.get("needed_tokens")} for e in pack.omitted],
    }
    return json.dumps(scrub(payload), ensure_ascii=False, indent=2)
