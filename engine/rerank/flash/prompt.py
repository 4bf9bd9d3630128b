"""Turn 1's system and user prompts, the tool schema, and the tool results (NOTES.md formats).

Every piece of chat text (summaries, recent messages, topic logs) goes through
`neutralize` before it is placed between tags, so a message cannot close a tag early or
fake a `=== Topic N ===` header: the data stays inside its block whatever it says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from engine.rerank.base import Candidate
from engine.rerank.flash.settings import FlashSettings
from engine.rerank.flash.source import TopicContent
from engine.rerank.flash.texts import DATA_TAGS, TEXTS
from engine.text.tokens import estimate_tokens

TOOL_NAME = "get_topics_content"
# Turn 1 for 50 candidates (seed 000: ~3K in its count). In the estimate's o200k-like count:
# it was 4,000 under the earlier, 30 % low rule, which sent ~5,500 real tokens; kept at that.
PROMPT_BUDGET_TOKENS = 5_500
SUMMARY_CAPS = (200, 160, 120, 90, 60)  # characters of a candidate's summary, tried in turn to fit the budget
RECENT_CHARS = 2_000  # of the recent messages, the end (the most recent) is kept

PROFILE_TAG = "user_profile"  # the owner's key facts (seed 000's user profile, issue 33); only when known
_TAG_RE = re.compile(r"<(/?\s*(?:" + "|".join((*DATA_TAGS, PROFILE_TAG)) + r")\b)", re.IGNORECASE)
_HEADER_RE = re.compile(r"^(\s*)={2,}(\s*(?:topic|топик)\b)", re.IGNORECASE | re.MULTILINE)
_CYRILLIC_RE = re.compile(r"[\u0400-\u04FF]")
_LATIN_RE = re.compile(r"[A-Za-z]")


def choose_language(setting: str, *texts: str) -> str:
    """"en" or "ru": the setting, or for "auto" Russian when Cyrillic letters outnumber Latin."""
    if setting in ("en", "ru"):
        return setting
    joined = " ".join(texts)
    return "ru" if len(_CYRILLIC_RE.findall(joined)) > len(_LATIN_RE.findall(joined)) else "en"


def neutralize(text: str) -> str:
    """Chat text made unable to open or close our tags or fake a topic header."""
    text = _TAG_RE.sub(lambda m: "‹" + m.group(1), text)
    return _HEADER_RE.sub(r"\1==\2", text)


def one_line(text: str, cap: int) -> str:
    flat = " ".join(text.split())
    if len(flat) > cap:
        flat = flat[: cap - 1].rstrip() + "…"
    return neutralize(flat)


def size_label(chars: int) -> str:
    """~470 chars, ~1.5K chars, ~16K chars: the size lets the model weigh a topic before loading it."""
    if chars < 1000:
        return f"~{int(round(chars, -1)) if chars >= 10 else chars} chars"
    if chars < 10_000:
        return f"~{chars / 1000:.1f}K chars"
    return f"~{round(chars / 1000)}K chars"


def _msgs(count: int) -> str:
    return f"{count} msg" if count == 1 else f"{count} msgs"


def topic_line(c: Candidate, cap: int) -> str:
    """`[Topic:42] (0.83) 2025-07-25 | 20 msgs, ~16K chars | summary`."""
    return f"[Topic:{c.id}] ({c.score:.2f}) {c.date or '?'} | {_msgs(c.messages)}, {size_label(c.chars)} | " \
           f"{one_line(c.summary, cap)}"


def person_line(c: Candidate, cap: int) -> str:
    """`[Person:3] (0.71) Dan Whitfield | 54 msgs | last seen 2025-11-14`."""
    parts = [f"[Person:{c.id}] ({c.score:.2f}) {one_line(c.summary, cap)}"]
    if c.messages:
        parts.append(_msgs(c.messages))
    if c.date:
        parts.append(f"last seen {c.date}")
    return " | ".join(parts)


def artifact_line(c: Candidate, cap: int) -> str:
    """`[Artifact:7] (0.71) pdf: name.pdf | caption | 2025-07-25 | chat: Work`."""
    parts = [f"[Artifact:{c.id}] ({c.score:.2f}) {one_line(c.summary, cap)}"]
    if c.date:
        parts.append(c.date)
    if c.chat:
        parts.append(f"chat: {one_line(c.chat, 60)}")
    return " | ".join(parts)


def answer_example(has_people: bool, has_artifacts: bool, excerpts: bool) -> tuple[str, str]:
    """(the JSON shape to copy, the empty answer), listing only the kinds that have candidates."""
    topic = '{"id":"Topic:42","reason":"…"' + (',"excerpt":"…"' if excerpts else "") + "}"
    fields = [f'"topic_ids":[{topic}]']
    empty = ['"topic_ids":[]']
    if has_people:
        fields.append('"people_ids":[{"id":"Person:3","reason":"…"}]')
        empty.append('"people_ids":[]')
    if has_artifacts:
        fields.append('"artifact_ids":[{"id":"Artifact:7","reason":"…"}]')
        empty.append('"artifact_ids":[]')
    return "{" + ",".join(fields) + "}", "{" + ",".join(empty) + "}"


def system_prompt(language: str, settings: FlashSettings, *, shown_topics: int, has_people: bool,
                  has_artifacts: bool, uses_tool: bool, has_context: bool, constrained: bool = False,
                  has_profile: bool = False) -> str:
    """The instructions; `constrained` asks for the read as JSON instead of a tool call;
    `has_profile`: the user prompt carries <user_profile> (data too, and a rule on its use)."""
    t = TEXTS[language]
    limits = [t["limit_topics"].format(n=settings.max_topics)]
    if has_people:
        limits.append(t["limit_people"].format(n=settings.max_people))
    if has_artifacts:
        limits.append(t["limit_artifacts"].format(n=settings.max_artifacts))
    limit_text = ", ".join(limits) + (t["people_note"] if has_people or has_artifacts else "")
    if uses_tool:
        lo, hi = settings.load_range(shown_topics)
        load = t["step_load_json" if constrained else "step_load"]
        steps = [t["step_scan_tool"], load.format(range=f"{lo}–{hi}" if lo < hi else str(hi)),
                 t["step_filter_tool"].format(limits=limit_text)]
    else:
        steps = [t["step_scan_only"].format(limits=limit_text)]
    example, empty = answer_example(has_people, has_artifacts, settings.excerpts)
    steps.append(t["step_answer"] + "\n" + example + "\n" + t["reason"].format(empty=empty))
    tags = [f"<{tag}>" for tag in DATA_TAGS if tag not in ("user_query", "contextualized_query")]
    if has_profile:  # facts were read from chats: data like the rest, never instructions
        tags.append(f"<{PROFILE_TAG}>")
    rules = [t["rule_ids"], t["rule_data"].format(tags=", ".join(tags)), t["rule_query"]]
    if has_context:
        rules.append(t["rule_context"])
    if has_profile:
        rules.append(t["rule_profile"])
    if settings.excerpts:
        rules.append(t["rule_excerpt"])
    return "\n".join([t["intro"], "", t["how"], *(f"{i}. {s}" for i, s in enumerate(steps, 1)), "", t["rules"],
                      *(f"- {r}" for r in rules)])


def _block(tag: str, lines: Sequence[str]) -> str:
    return f"<{tag}>\n" + "\n".join(lines) + f"\n</{tag}>"


def user_prompt(language: str, *, date: str, query: str, recent: str, contextualized: str | None,
                topics: Sequence[Candidate], people: Sequence[Candidate], artifacts: Sequence[Candidate],
                summary_cap: int, profile: str = "") -> str:
    """Seed 000's turn 1: date, current messages, the user profile (only when something is
    known: without one the prompt is what it was before issue 33), the candidates, the query."""
    parts = [TEXTS[language]["date"].format(date=date)]
    recent = recent.strip()
    if recent:
        if len(recent) > RECENT_CHARS:
            recent = "…" + recent[-RECENT_CHARS:]
        parts.append(_block("current_messages", [neutralize(recent)]))
    if profile.strip():
        parts.append(_block(PROFILE_TAG, [neutralize(profile.strip())]))
    if topics:
        parts.append(_block("topic_candidates", [topic_line(c, summary_cap) for c in topics]))
    if people:
        parts.append(_block("people_candidates", [person_line(c, summary_cap) for c in people]))
    if artifacts:
        parts.append(_block("artifact_candidates", [artifact_line(c, summary_cap) for c in artifacts]))
    if contextualized:
        parts.append(_block("contextualized_query", [neutralize(contextualized)]))
    # The user's own query is trusted, but it is still kept from closing its own tag.
    parts.append(_block("user_query", [neutralize(query.strip())]))
    return "\n\n".join(parts)


def tool_schema(language: str) -> dict[str, Any]:
    t = TEXTS[language]
    return {"type": "function", "function": {
        "name": TOOL_NAME, "description": t["tool_description"],
        "parameters": {"type": "object", "properties": {"topic_ids": {
            "type": "array", "items": {"type": "integer"}, "description": t["tool_param"]}},
            "required": ["topic_ids"]}}}


FORCED_TOOL = {"type": "function", "function": {"name": TOOL_NAME}}


THEME_CHARS = 1000  # a read's theme line: the topic's summary
SHORT_THEME_CHARS = 160  # ... when the read must be cut to its budget


def prompt_tokens(system: str, user: str, tools: list[dict] | None) -> int:
    """The estimate of what turn 1 sends: both prompts and the tool schema."""
    schema = json.dumps(tools, ensure_ascii=False) if tools else ""
    return estimate_tokens(system) + estimate_tokens(user) + estimate_tokens(schema)


def tool_result(language: str, contents: Sequence[TopicContent], *, missing: Sequence[int],
                not_candidates: Sequence[int], no_room: Sequence[int] = ()) -> str:
    """The `tool` message: each found topic as `=== Topic N ===`, date line, theme, log."""
    t = TEXTS[language]
    sections = [_section(c, language) for c in contents]
    parts = [_block("topic_content", ["\n\n".join(sections)])] if sections else [t["nothing_loaded"]]
    if missing:
        parts.append(t["not_found"].format(ids=", ".join(map(str, missing))))
    if not_candidates:
        parts.append(t["not_candidates"].format(ids=", ".join(map(str, not_candidates))))
    if no_room:
        parts.append(t["no_room"].format(ids=", ".join(map(str, no_room))))
    return "\n".join(parts)


def _section(content: TopicContent, language: str) -> str:
    t = TEXTS[language]
    return (f"=== Topic {content.id} ===\n{t['content_date']}: {content.date or '?'} | {_msgs(content.messages)} | "
            f"{size_label(content.chars)}\n{t['content_theme']}: {one_line(content.summary, THEME_CHARS)}\n\n"
            f"{neutralize(content.log)}")


def read_tokens(contents: Sequence[TopicContent], language: str) -> int:
    """What a read of `contents` adds to the conversation (estimated): their sections whole."""
    return sum(estimate_tokens(_section(c, language)) for c in contents)


def fit_contents(contents: Sequence[TopicContent], budget_tokens: int,
                 language: str) -> tuple[list[TopicContent], list[int]]:
    """The topics a read loaded, cut so that their sections fit `budget_tokens` when all do not;
    and the ids of those left out because not even their headers fit.

    A local model has an 8K context: 25 whole topics would overflow it and the server
    would refuse the turn. The budget holds each topic's header and theme as well as its log
    (25 themes alone can be 2K tokens): themes are shortened first (turn 1 showed the
    summaries); topics are left out, the last asked first, while their headers alone overflow;
    then each log is cut to a fair share of what is left, at its end (the start holds the
    question), with a note saying how much is missing, so the model knows it saw part.
    """
    if read_tokens(contents, language) <= budget_tokens or not contents:
        return list(contents), []
    contents = [replace(c, summary=one_line(c.summary, SHORT_THEME_CHARS)) for c in contents]
    headers = [read_tokens([replace(c, log=TEXTS[language]["trimmed"].format(n=c.chars))], language)
               for c in contents]
    kept = len(contents)
    while kept and sum(headers[:kept]) > budget_tokens:
        kept -= 1
    no_room = [c.id for c in contents[kept:]]
    contents = contents[:kept]
    if not contents:
        return [], no_room
    share_tokens = max(0, budget_tokens - sum(headers[:kept])) // len(contents)  # a cut's note counted
    fitted = []
    for content in contents:
        tokens = estimate_tokens(content.log)
        if tokens <= share_tokens:
            fitted.append(content)
            continue
        keep = max(0, len(content.log) * share_tokens // max(tokens, 1))
        cut = content.log[:keep].rsplit("\n", 1)[0] if "\n" in content.log[:keep] else content.log[:keep]
        note = TEXTS[language]["trimmed"].format(n=len(content.log) - len(cut))
        fitted.append(replace(content, log=f"{cut}\n{note}"))
    return fitted, no_room


def contextualize_messages(language: str, query: str, recent: str) -> list[dict[str, str]]:
    recent = recent.strip()
    if len(recent) > RECENT_CHARS:
        recent = "…" + recent[-RECENT_CHARS:]
    user = _block("current_messages", [neutralize(recent)]) + "\n\n" + _block("user_query", [neutralize(query)])
    return [{"role": "system", "content": TEXTS[language]["ctx_system"]}, {"role": "user", "content": user}]
