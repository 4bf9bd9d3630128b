"""LoCoMo's gold facts for the Archivist's evaluation (issue 33): each session's per-speaker
`observation`s with their evidence turns ("D1:3"), and the conversations as a JSONL export.

Each conversation becomes one chat named by its `sample_id`; its first speaker
(`speaker_a`) is the owner (role "user"), the other speaker a person. A session's
`date_time` ("1:56 pm on 8 May, 2023") is its first turn's time and later turns follow 30 s
apart (as bench/locomo_convert.py does, so the stores agree); a shared photo keeps its BLIP
caption in the text. A message's id in the export is its turn ("D1:3"), so provenance maps
back to the gold evidence. LoCoMo's annotation faults (several ids in one string, "D30:05")
are read as bench/locomo_convert.py reads them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

_EVIDENCE_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
_SESSION_KEY = re.compile(r"session_(\d+)$")
TURN_SPACING = timedelta(seconds=30)


@dataclass(frozen=True)
class GoldFact:
    """One LoCoMo observation: what is true of `speaker`, and the turns that say it."""

    chat: str
    speaker: str
    about_owner: bool
    text: str
    evidence: tuple[str, ...]  # turn ids, "D1:3"


@dataclass(frozen=True)
class Conversation:
    chat: str
    owner: str
    gold: tuple[GoldFact, ...]


def turn_ids(raw: object) -> list[str]:
    """Every well-formed "D<session>:<turn>" inside an evidence string, leading zeros dropped."""
    return [f"D{int(s)}:{int(t)}" for s, t in _EVIDENCE_ID.findall(str(raw))]


def session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → an aware UTC datetime (LoCoMo gives no zone)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load_samples(path: Path, chats: list[str] | None = None, first: int | None = None) -> list[dict[str, Any]]:
    """The samples of a LoCoMo file: those named in `chats` (sample ids), else the first `first`."""
    samples = json.loads(Path(path).read_text(encoding="utf-8"))
    if chats:
        wanted = set(chats)
        samples = [sample for sample in samples if str(sample.get("sample_id")) in wanted]
    return samples[:first] if first is not None else samples


def sessions(conversation: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]], str]]:
    """A LoCoMo conversation's sessions in order: (number, turns, its "1:56 pm on 8 May, 2023")."""
    found = []
    for key, turns in conversation.items():
        match = _SESSION_KEY.match(key)
        date_key = f"{key}_date_time"
        # More `session_N_date_time` keys than sessions exist: only sessions with turns count.
        if match and isinstance(turns, list) and turns and date_key in conversation:
            found.append((int(match.group(1)), turns, conversation[date_key]))
    return sorted(found, key=lambda item: item[0])


def turn_text(turn: dict[str, Any]) -> str:
    """A turn as a chat message: its text, and a shared photo's caption as the export writes it."""
    caption = turn.get("blip_caption")
    text = str(turn.get("text", ""))
    return f"{text} [shares a photo: {caption}]".strip() if caption else text


def gold_of(sample: dict[str, Any]) -> Conversation:
    """A sample's observations as gold facts (those without a well-formed evidence turn are dropped)."""
    chat, owner = str(sample["sample_id"]), str(sample["conversation"]["speaker_a"])
    gold = []
    for observations in (sample.get("observation") or {}).values():
        for speaker, items in observations.items():
            for item in items:
                text, evidence = (item[0], item[1]) if isinstance(item, list) and len(item) >= 2 else (item, "")
                turns = tuple(dict.fromkeys(turn for raw in (evidence if isinstance(evidence, list) else [evidence])
                                            for turn in turn_ids(raw)))
                if turns:
                    gold.append(GoldFact(chat, str(speaker), str(speaker) == owner, str(text), turns))
    return Conversation(chat, owner, tuple(gold))


def write_export(samples: list[dict[str, Any]], path: Path) -> list[Conversation]:
    """The samples as one JSONL export at `path`; their gold facts."""
    with open(path, "w", encoding="utf-8") as out:
        for sample in samples:
            chat, owner = str(sample["sample_id"]), sample["conversation"]["speaker_a"]
            for _number, turns, date_text in sessions(sample["conversation"]):
                start = session_time(str(date_text))
                for position, turn in enumerate(turns):
                    ids = turn_ids(turn.get("dia_id", ""))
                    if not ids:
                        continue
                    row = {"chat": chat, "id": ids[0], "author": turn["speaker"],
                           "role": "user" if turn["speaker"] == owner else "other",
                           "date": (start + position * TURN_SPACING).isoformat(), "text": turn_text(turn)}
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return [gold_of(sample) for sample in samples]
