"""Reading the model's final answer: find the JSON, accept every documented shape, keep only
what was offered.

Models wrap JSON in fences or prose and older prompts produced older shapes, so the
parser is lenient about form and strict about content: only ids among the candidates
shown survive, each once, within the limits. Nothing the model (or a topic quoted to it)
writes can add an id, raise a limit or change the result's shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.messages import msg
from engine.rerank.flash.errors import AnswerError
from engine.retrieval.candidate import CandidateKind

MAX_JSON_STARTS = 64  # positions tried before giving up: prose full of "[" must not take quadratic time
REASON_CHARS = 1_000
EXCERPT_CHARS = 20_000

# Keys of each shape: current (`topic_ids`), document (`topics`) and a few near misses.
KIND_KEYS: dict[CandidateKind, tuple[str, ...]] = {
    "topic": ("topic_ids", "topics", "topic"),
    "person": ("people_ids", "people", "person_ids", "persons"),
    "artifact": ("artifact_ids", "artifacts", "artifact"),
}
_ID_RE = re.compile(r"^\s*(?:\[?\s*(topic|person|artifact|id)\s*[:#]?\s*)?#?(\d+)\s*\]?\s*$", re.IGNORECASE)
_TRAILING_COMMA_RE = re.compile(r",(\s*[}\]])")


# The kinds Flash is shown (it reads no unbuilt messages), by the names a model may write.
_READ_KINDS: dict[str, CandidateKind] = {kind: kind for kind in KIND_KEYS}


@dataclass
class Choice:
    kind: CandidateKind
    id: int
    reason: str
    excerpt: str | None = None


@dataclass
class ParsedAnswer:
    shape: str  # current | document | list
    chosen: list[Choice]
    mentioned: int = 0  # entries the model gave, valid or not
    dropped: dict[str, list[str]] = field(default_factory=lambda: {
        "hallucinated": [], "duplicate": [], "over_limit": [], "invalid": []})

    @property
    def empty(self) -> bool:
        return self.mentioned == 0


def extract_json(text: str) -> Any:
    """The first balanced `{…}` or `[…]` in `text` that parses as JSON (fences, prose tolerated)."""
    starts = 0
    position = 0
    while starts < MAX_JSON_STARTS:
        found = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not found:
            break
        start = min(found)
        starts += 1
        end = _balanced_end(text, start)
        if end is not None:
            chunk = text[start:end]
            for candidate in (chunk, _TRAILING_COMMA_RE.sub(r"\1", chunk)):
                try:
                    value = json.loads(candidate)
                except ValueError:
                    continue
                if isinstance(value, dict | list):
                    return value
        position = start + 1
    raise AnswerError("parse_error", msg("rerank.flash.answer.no_json"))


def _outside_strings(text: str, start: int) -> Iterator[tuple[int, str]]:
    """(index, character) of `text` from `start`, skipping what stands inside JSON strings."""
    in_string = escaped = False
    for index in range(start, len(text)):
        ch = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        else:
            yield index, ch


def _balanced_end(text: str, start: int) -> int | None:
    """Index after the bracket closing the one at `start`, strings and escapes respected."""
    stack: list[str] = []
    for index, ch in _outside_strings(text, start):
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return index + 1
    return None


def close_cut_json(text: str) -> str | None:
    """A reply cut off at its token bound, ended after its last complete list entry and
    closed: `{"topics": [{"id": 3, …}, {"id": 9, "rea` → `{"topics": [{"id": 3, …}]}`.

    None when nothing complete stands inside a list (or the JSON is whole). Without this the
    first balanced object, one entry, was read as the whole answer (SmolLM2-135M, schema-bound
    turn 2 on llama-server, 768 tokens: "none of the expected keys (got ['id', 'reason'])")."""
    found = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not found:
        return None
    start = min(found)
    stack: list[str] = []
    cut: tuple[int, list[str]] | None = None
    for index, ch in _outside_strings(text, start):
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return None  # whole: nothing was cut
            if stack[-1] == "]":  # an entry of a list just ended: a place to cut
                cut = (index + 1, list(stack))
        elif ch == "," and stack and stack[-1] == "]":  # a bare entry (an id) ended before it
            cut = (index, list(stack))
    if cut is None:
        return None
    end, still_open = cut
    return text[start:end] + "".join(reversed(still_open))


def parse_id(value: Any) -> tuple[str | None, int] | None:
    """(kind named by a prefix or None, number) from 42, "42", "Topic:42", "[ID:42]"; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return (None, value) if value >= 0 else None
    if isinstance(value, float):
        return (None, int(value)) if value.is_integer() and value >= 0 else None
    if isinstance(value, str):
        match = _ID_RE.match(value)
        if match:
            prefix = (match.group(1) or "").lower()
            return (prefix if prefix in ("topic", "person", "artifact") else None, int(match.group(2)))
    return None


def as_entries(raw: Any) -> list[Any]:
    """A list's items; a lone value as a one-item list; "42, 18" split (a list flattened by the model)."""
    if raw is None:
        return []
    if isinstance(raw, list):
        return raw
    if isinstance(raw, str) and "," in raw:
        return [part for part in raw.split(",") if part.strip()]
    return [raw]


def _text(value: Any, cap: int) -> str:
    return value.strip()[:cap] if isinstance(value, str) else ""


def parse_answer(content: str | None, allowed: Mapping[str, Sequence[int]], limits: Mapping[str, int]) -> ParsedAnswer:
    """Parse `content` against the candidates shown (`allowed` ids per kind) and the limits.

    Raises AnswerError("empty_response") for no text and ("parse_error") for text without a
    usable answer. An answer that names nothing is returned with `empty` set; one whose
    every id was hallucinated comes back with nothing chosen and `dropped["hallucinated"]`.
    """
    if content is None or not content.strip():
        raise AnswerError("empty_response", msg("rerank.flash.answer.empty"))
    value = extract_json(content)
    grouped: list[tuple[CandidateKind, Any]] = []
    if isinstance(value, list):
        shape = "list"
        grouped = [("topic", entry) for entry in value]
    else:
        present = {kind: [key for key in keys if key in value] for kind, keys in KIND_KEYS.items()}
        if not any(present.values()):
            if value:
                raise AnswerError("parse_error", msg("rerank.flash.answer.no_keys", keys=str(sorted(value)[:5])))
            return ParsedAnswer("current", [])  # `{}`: nothing relevant
        shape = "current" if any(k.endswith("_ids") for keys in present.values() for k in keys) else "document"
        grouped = [(kind, entry) for kind, keys in present.items() for key in keys for entry in as_entries(value[key])]

    allowed_sets = {kind: set(ids) for kind, ids in allowed.items()}
    answer = ParsedAnswer(shape, [], mentioned=len(grouped))
    seen: set[tuple[str, int]] = set()
    counts = dict.fromkeys(KIND_KEYS, 0)
    for kind, entry in grouped:
        raw_id = entry.get("id", entry.get(f"{kind}_id")) if isinstance(entry, dict) else entry
        parsed = parse_id(raw_id)
        if parsed is None:
            answer.dropped["invalid"].append(json.dumps(entry, ensure_ascii=False)[:80])
            continue
        prefix, number = parsed
        kind = _READ_KINDS[prefix] if prefix else kind  # "Person:3" inside topic_ids is still a person
        label = f"{kind.capitalize()}:{number}"
        if number not in allowed_sets.get(kind, ()):
            answer.dropped["hallucinated"].append(label)
            continue
        if (kind, number) in seen:
            answer.dropped["duplicate"].append(label)
            continue
        seen.add((kind, number))
        if counts[kind] >= limits.get(kind, 0):
            answer.dropped["over_limit"].append(label)
            continue
        counts[kind] += 1
        reason = _text(entry.get("reason"), REASON_CHARS) if isinstance(entry, dict) else ""
        excerpt = _text(entry.get("excerpt"), EXCERPT_CHARS) if isinstance(entry, dict) else ""
        answer.chosen.append(Choice(kind, number, reason, excerpt or None))
    if grouped and not answer.chosen and not answer.dropped["hallucinated"] and not answer.dropped["over_limit"]:
        raise AnswerError("parse_error", msg("rerank.flash.answer.no_ids"))
    return answer
