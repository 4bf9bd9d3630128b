"""LoCoMo (Maharana et al., ACL 2024) → a Flashback JSONL export and a QRELS file.

One chat per conversation (`sample_id`); each session's `date_time` ("1:56 pm on 8 May,
2023") gives its first turn's time, and later turns follow 30 s apart, so a session reads
as one sitting. Shared photos keep their BLIP caption in the text (that is all the
benchmark's questions can see of them) and become photo attachments.

QRELS: `{"queries": [{"id", "query", "relevant": [{"chat", "message"}], "category"}]}`.
Category 5 (adversarial: unanswerable) is skipped. The annotations have known faults,
tolerated here: several ids in one string ("D8:6; D9:17"), malformed ids ("D:11:26",
"D30:05", "D"), ids naming turns that do not exist; a question left with no valid
evidence is skipped and counted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from engine.evaluation.facts_locomo import session_time, sessions, turn_ids, turn_text

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
TURN_SPACING = timedelta(seconds=30)


@dataclass
class ConversionReport:
    conversations: int = 0
    sessions: int = 0
    messages: int = 0
    queries: int = 0
    skipped_adversarial: int = 0
    skipped_no_evidence: int = 0
    dropped_evidence_ids: list[str] = field(default_factory=list)


# One reading of LoCoMo's sessions, turns and evidence ids: the engine's (eval-facts uses it too).
parse_session_time = session_time


def normalise_evidence(raw: str) -> list[str]:
    """Every well-formed 'D<session>:<turn>' inside `raw`, with leading zeros dropped."""
    return turn_ids(raw)


def convert(locomo_path: Path, export_path: Path, qrels_path: Path) -> ConversionReport:
    samples = json.loads(Path(locomo_path).read_text(encoding="utf-8"))
    report = ConversionReport()
    queries = []
    with open(export_path, "w", encoding="utf-8") as export:
        for sample in samples:
            chat = str(sample["sample_id"])
            report.conversations += 1
            known_ids: set[str] = set()
            for _number, turns, date_text in sessions(sample["conversation"]):
                report.sessions += 1
                start = parse_session_time(date_text)
                for position, turn in enumerate(turns):
                    message_id = normalise_evidence(turn["dia_id"])[0]
                    known_ids.add(message_id)
                    row = {"chat": chat, "id": message_id, "author": turn["speaker"],
                           "date": (start + position * TURN_SPACING).isoformat(), "text": turn_text(turn)}
                    if turn.get("img_url") or turn.get("blip_caption"):
                        row["attachments"] = [{"kind": "photo", "name": f"{message_id.replace(':', '_')}.jpg"}]
                    export.write(json.dumps(row, ensure_ascii=False) + "\n")
                    report.messages += 1
            for number, qa in enumerate(sample["qa"], 1):
                category = qa.get("category")
                if category not in CATEGORIES:
                    report.skipped_adversarial += 1
                    continue
                relevant = []
                for raw in qa.get("evidence") or []:
                    ids = normalise_evidence(str(raw))
                    good = [i for i in ids if i in known_ids]
                    if len(good) < max(1, len(ids)):
                        report.dropped_evidence_ids.append(f"{chat}: {raw!r}")
                    for message_id in good:
                        pair = {"chat": chat, "message": message_id}
                        if pair not in relevant:
                            relevant.append(pair)
                if not relevant:
                    report.skipped_no_evidence += 1
                    continue
                queries.append({"id": f"{chat}-q{number}", "query": qa["question"], "relevant": relevant,
                                "category": CATEGORIES[category]})
    report.queries = len(queries)
    Path(qrels_path).write_text(json.dumps({"queries": queries}, ensure_ascii=False, indent=1), encoding="utf-8")
    return report
