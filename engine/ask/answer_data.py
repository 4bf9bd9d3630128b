"""The questions `flashback eval-answers` asks: a QA file with gold answers and evidence.

Two shapes are read:
- LoCoMo (Maharana et al., ACL 2024), as the dev slice ships: a list of samples, each with
  `sample_id`, `conversation` (`session_N` turns and `session_N_date_time`) and `qa`
  (`question`, `answer`, `evidence` dia ids "D1:3", `category`). The evidence names messages
  the way the LoCoMo export Flashback imports does (chat = sample_id, message = "D1:3";
  bench/locomo_convert.py). Category 5 (adversarial: no answer in the conversation) is
  skipped, as the retrieval benchmark does; a question whose evidence ids are all malformed
  is skipped too. A question is asked the day after its conversation's last session, so
  "last week" means what it would have meant to the people in it.
- `{"questions": [{"id", "question", "answer", "evidence": [{"chat", "message"}], "now"?,
  "category"?}]}` (bench/data/dated_questions.json): `now` is the ISO time it is asked at.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from engine.errors import EngineError
from engine.messages import msg

LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
_SESSION_TIME = re.compile(r"session_(\d+)_date_time$")


class AnswerDataError(EngineError):
    """The QA file cannot be used; says what to fix."""


@dataclass(frozen=True)
class QAItem:
    id: str
    question: str
    answer: str  # the gold answer
    evidence: tuple[tuple[str, str], ...]  # (chat, message) as the export named them
    category: str = "all"
    now: datetime | None = None  # when it is asked; None: the caller's today

    def as_dict(self) -> dict:
        return {"id": self.id, "question": self.question, "answer": self.answer, "category": self.category,
                "evidence": [list(pair) for pair in self.evidence],
                "now": self.now.isoformat() if self.now else None}


def evidence_ids(raw: object) -> list[str]:
    """Every well-formed "D<session>:<turn>" inside a LoCoMo evidence string, leading zeros dropped
    ("D8:6; D9:17" holds two; "D30:05" is D30:5)."""
    return [f"D{int(s)}:{int(t)}" for s, t in _EVIDENCE_ID.findall(str(raw))]


def _locomo_now(conversation: dict) -> datetime | None:
    """The day after the last session that has turns ('1:56 pm on 8 May, 2023'; LoCoMo gives no zone)."""
    times = []
    for key, text in conversation.items():
        match = _SESSION_TIME.match(key)
        if match and conversation.get(f"session_{match.group(1)}"):
            times.append(datetime.strptime(str(text).strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC))
    return max(times) + timedelta(days=1) if times else None


def _from_locomo(samples: list) -> list[QAItem]:
    items = []
    for sample in samples:
        chat = str(sample["sample_id"])
        now = _locomo_now(sample.get("conversation") or {})
        for number, qa in enumerate(sample.get("qa") or [], 1):
            category = LOCOMO_CATEGORIES.get(qa.get("category"))
            pairs = tuple(dict.fromkeys((chat, m) for raw in qa.get("evidence") or [] for m in evidence_ids(raw)))
            if category is None or not pairs or "answer" not in qa:
                continue
            items.append(QAItem(f"{chat}-q{number}", str(qa["question"]), str(qa["answer"]), pairs, category, now))
    return items


def _from_questions(questions: list) -> list[QAItem]:
    items = []
    for number, q in enumerate(questions, 1):
        now = datetime.fromisoformat(q["now"]) if q.get("now") else None
        pairs = tuple((str(e["chat"]), str(e["message"])) for e in q.get("evidence") or [])
        items.append(QAItem(str(q.get("id", number)), str(q["question"]), str(q["answer"]), pairs,
                            str(q.get("category") or q.get("lang") or "all"), now))
    return items


def load_questions(path: Path, limit: int | None = None) -> list[QAItem]:
    """The judged questions of a QA file, in file order (the first `limit` of them)."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise AnswerDataError(msg("evaluation.qrels.unreadable", path=str(path), problem=exc.strerror or exc)) from exc
    except ValueError as exc:  # not UTF-8, not JSON
        raise AnswerDataError(msg("ask.qa.not_a_qa_file", path=str(path), problem=str(exc))) from exc
    if not isinstance(raw, list) and not (isinstance(raw, dict) and isinstance(raw.get("questions"), list)):
        shape = msg("ask.qa.expected_shape", shape='{"questions": [...]}')
        raise AnswerDataError(msg("ask.qa.not_a_qa_file", path=str(path), problem=shape))
    try:
        items = _from_locomo(raw) if isinstance(raw, list) else _from_questions(raw["questions"])
    except (KeyError, TypeError, ValueError) as exc:
        raise AnswerDataError(msg("ask.qa.not_a_qa_file", path=str(path), problem=str(exc))) from exc
    if not items:
        raise AnswerDataError(msg("ask.qa.no_question", path=str(path)))
    return items[:limit] if limit else items
