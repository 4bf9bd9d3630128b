"""`flashback eval-answers QA.json`: the answers' evaluation of seed 002.

Each question of a QA file (engine.ask.answer_data: LoCoMo's format or Flashback's dated
questions) goes through a given `ask` callable (the Ask flow, or anything that returns an
AskOutcome-like object: `.answer` with `.text`, `.claims[].citations/.supported`,
`.not_found`; `.sources[]` with `.number`, `.message_ids`; `.usage`; `.fallback`), one at a
time, and is scored:
- accuracy: an LLM judge (any configured endpoint) says whether the answer states the gold
  answer's facts; its prompt and model are in the result;
- answer F1: LoCoMo's own QA figure (SQuAD's token F1 of the answer, its [n] markers and the
  caveat left out, against the gold answer), which needs no judge: a weak judge (a small model
  grading itself) can call nonsense right, F1 cannot;
- citation precision: of the messages the answer cites (every message of a cited source), the
  share that are evidence; source precision: of the cited sources, the share holding evidence;
- citation coverage: answers whose every claim cites a source; fully supported: answers whose
  every claim is cited and passed verification (seed 002's bar: 70 %);
- evidence in sources: questions where some source holds an evidence message (retrieval);
- latency p50/p95 (the whole `ask` call, wall clock), tokens and cost of the answers and,
  apart, of the judge.
Results carry the settings, the models and the date, so runs can be compared.
"""

from __future__ import annotations

import asyncio
import math
import re
import sqlite3
import time
import unicodedata
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from engine.ask.answer_data import AnswerDataError, QAItem
from engine.ask.answer_judge import Judge, Verdict
from engine.errors import Cancelled, CancelToken, EngineError, is_cancel
from engine.evaluation.qrels import resolve_messages
from engine.messages import Message, msg, render

AskFn = Callable[[QAItem], Awaitable[Any]]  # → an AskOutcome (or alike)
ProgressFn = Callable[[int, int, "QuestionResult"], None]


class AnswerEvalCancelled(Cancelled):
    """Stopped between questions; `partial` holds the figures of the questions done."""

    code = "evaluation.cancelled"

    def __init__(self, partial: AnswerEvalResult | None = None) -> None:
        super().__init__()
        self.partial = partial


@dataclass
class QuestionResult:
    id: str
    question: str
    category: str
    gold: str
    answer: str | None  # None: the flow gave no answer (no model, a failure: see `fallback`)
    not_found: bool = False
    fallback: str | None = None
    error: str | None = None  # what `ask` raised, when it raised
    notes: list[str] = field(default_factory=list)  # the outcome's notes in English (why a step fell back)
    correct: bool | None = None  # the judge's verdict; None: not judged
    f1: float = 0.0  # token F1 against the gold answer (0 without an answer)
    judge_reason: str = ""
    sources: int = 0
    cited_sources: list[int] = field(default_factory=list)
    cited_sources_with_evidence: int = 0
    cited_messages: int = 0
    cited_evidence_messages: int = 0
    claims: int = 0
    claims_cited: int = 0
    claims_supported: int = 0
    evidence_in_sources: bool = False
    evidence_known: int = 0  # evidence messages the store holds
    latency_ms: float = 0.0
    usage: dict[str, Any] = field(default_factory=dict)
    judge_usage: dict[str, Any] = field(default_factory=dict)

    @property
    def answered(self) -> bool:
        return self.answer is not None and not self.not_found

    @property
    def every_claim_cited(self) -> bool:
        return self.answered and self.claims > 0 and self.claims_cited == self.claims

    @property
    def fully_supported(self) -> bool:
        return self.every_claim_cited and self.claims_supported == self.claims

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "answered": self.answered, "every_claim_cited": self.every_claim_cited,
                "fully_supported": self.fully_supported}


@dataclass
class AnswerEvalResult:
    source: str  # the QA file
    started_at: str  # ISO, UTC
    settings: dict[str, Any]  # the flow's settings, as the caller describes them
    model: str | None  # the answering model
    judge: dict[str, Any] | None  # model, prompt, max_tokens; None: no judge
    questions: list[QuestionResult] = field(default_factory=list)
    total_questions: int = 0  # in the file (after `limit`)
    duration_s: float = 0.0

    def metrics(self, questions: list[QuestionResult] | None = None) -> dict[str, Any]:
        return summarise(self.questions if questions is None else questions)

    def as_dict(self) -> dict[str, Any]:
        categories = sorted({q.category for q in self.questions})
        return {"source": self.source, "started_at": self.started_at, "duration_s": round(self.duration_s, 2),
                "settings": self.settings, "model": self.model, "judge": self.judge,
                "total_questions": self.total_questions, "done": len(self.questions),
                "metrics": self.metrics(),
                "by_category": {c: self.metrics([q for q in self.questions if q.category == c]) for c in categories},
                "questions": [q.as_dict() for q in self.questions]}


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _percentile(values: list[float], share: float) -> float | None:
    """Nearest-rank percentile (p95 of 20 values is the 19th): no interpolation between runs' figures."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(share * len(ordered)) - 1)], 1)


def _usage_total(parts: list[dict[str, Any]]) -> dict[str, Any]:
    costs = [p["cost"] for p in parts if isinstance(p.get("cost"), int | float)]
    return {"prompt_tokens": sum(int(p.get("prompt_tokens") or 0) for p in parts),
            "completion_tokens": sum(int(p.get("completion_tokens") or 0) for p in parts),
            "cost": round(sum(costs), 6) if costs else None}


def summarise(questions: list[QuestionResult]) -> dict[str, Any]:
    answered = [q for q in questions if q.answered]
    judged = [q for q in questions if q.correct is not None]
    latencies = [q.latency_ms for q in questions if q.error is None]
    return {
        "questions": len(questions), "answered": len(answered),
        "not_found": sum(q.not_found for q in questions),
        "no_answer": sum(q.answer is None for q in questions), "errors": sum(q.error is not None for q in questions),
        "judged": len(judged), "accuracy": _share(sum(bool(q.correct) for q in judged), len(judged)),
        "answer_f1": round(sum(q.f1 for q in questions) / len(questions), 4) if questions else None,
        "citation_precision": _share(sum(q.cited_evidence_messages for q in questions),
                                     sum(q.cited_messages for q in questions)),
        "source_precision": _share(sum(q.cited_sources_with_evidence for q in questions),
                                   sum(len(q.cited_sources) for q in questions)),
        "citation_coverage": _share(sum(q.every_claim_cited for q in answered), len(answered)),
        "fully_supported": _share(sum(q.fully_supported for q in answered), len(answered)),
        "evidence_in_sources": _share(sum(q.evidence_in_sources for q in questions), len(questions)),
        "evidence_missing": sum(q.evidence_known == 0 for q in questions),  # the store lacks every evidence message
        "latency_ms_p50": _percentile(latencies, 0.5), "latency_ms_p95": _percentile(latencies, 0.95),
        "usage": _usage_total([q.usage for q in questions]),
        "judge_usage": _usage_total([q.judge_usage for q in questions]),
    }


_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_MARKERS = re.compile(r"\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]")


def _tokens(text: str) -> list[str]:
    """SQuAD's normalisation (LoCoMo's QA scorer uses it): lower case, no punctuation or articles."""
    text = _MARKERS.sub(" ", text.lower())
    text = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text)
    return _ARTICLES.sub(" ", text).split()


def token_f1(answer: str, gold: str) -> float:
    predicted, expected = _tokens(answer), _tokens(str(gold))
    common = sum((Counter(predicted) & Counter(expected)).values())
    if not predicted or not expected or not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return round(2 * precision * recall / (precision + recall), 4)


def _cited_numbers(answer: Any, sources: dict[int, Any]) -> list[int]:
    numbers = {n for claim in getattr(answer, "claims", None) or [] for n in getattr(claim, "citations", None) or []}
    return sorted(n for n in numbers if n in sources)


def score_outcome(item: QAItem, outcome: Any, evidence: set[int]) -> QuestionResult:
    """What one outcome says against the question's evidence (store message ids)."""
    answer = getattr(outcome, "answer", None)
    sources = {s.number: s for s in getattr(outcome, "sources", None) or []}
    result = QuestionResult(item.id, item.question, item.category, item.answer,
                            answer.text if answer is not None else None,
                            not_found=bool(getattr(answer, "not_found", False)),
                            fallback=getattr(outcome, "fallback", None), sources=len(sources),
                            evidence_known=len(evidence), usage=dict(getattr(outcome, "usage", None) or {}))
    result.evidence_in_sources = any(evidence & set(s.message_ids) for s in sources.values())
    result.notes = [render(note, "en") if isinstance(note, Message) else str(note)
                    for note in getattr(outcome, "notes", None) or []]
    if answer is None:
        return result
    claims_text = " ".join(c.text for c in getattr(answer, "claims", None) or [])
    result.f1 = token_f1(claims_text or answer.text, item.answer) if not result.not_found else 0.0
    result.cited_sources = _cited_numbers(answer, sources)
    cited_messages = {m for n in result.cited_sources for m in sources[n].message_ids}
    result.cited_messages = len(cited_messages)
    result.cited_evidence_messages = len(cited_messages & evidence)
    result.cited_sources_with_evidence = sum(bool(evidence & set(sources[n].message_ids)) for n in result.cited_sources)
    claims = list(answer.claims or [])
    result.claims = len(claims)
    result.claims_cited = sum(bool([n for n in claim.citations if n in sources]) for claim in claims)
    result.claims_supported = sum(claim.supported is True for claim in claims)
    return result


async def evaluate_answers(items: list[QAItem], ask: AskFn, connect: Callable[[], sqlite3.Connection], *,
                           judge: Judge | None = None, source: str = "", settings: dict[str, Any] | None = None,
                           model: str | None = None, on_progress: ProgressFn | None = None,
                           cancel: CancelToken | None = None) -> AnswerEvalResult:
    """Ask every question in turn, score it, judge it. Stops between questions on `cancel`
    (raising AnswerEvalCancelled with the questions done); a question whose `ask` raises an
    EngineError is recorded with the error and the run goes on."""
    result = AnswerEvalResult(source, datetime.now(UTC).isoformat(timespec="seconds"), dict(settings or {}), model,
                              judge.describe() if judge is not None else None, total_questions=len(items))
    evidence = await asyncio.to_thread(_resolve_evidence, connect, items)
    if items and not any(evidence.values()):
        raise AnswerDataError(msg("ask.qa.nothing_known_in", source=source) if source else msg("ask.qa.nothing_known"))
    started = time.perf_counter()
    try:
        for done, item in enumerate(items, 1):
            if cancel is not None and cancel.cancelled:
                raise AnswerEvalCancelled(result)
            question = await _one(item, ask, evidence[item.id], judge)
            result.questions.append(question)
            result.duration_s = time.perf_counter() - started
            if on_progress is not None:
                on_progress(done, len(items), question)
    except AnswerEvalCancelled:
        raise
    except BaseException as exc:
        if is_cancel(exc) and not isinstance(exc, asyncio.CancelledError):
            raise AnswerEvalCancelled(result) from exc
        raise
    return result


async def _one(item: QAItem, ask: AskFn, evidence: set[int], judge: Judge | None) -> QuestionResult:
    started = time.perf_counter()
    try:
        question = score_outcome(item, await ask(item), evidence)
    except EngineError as exc:
        if is_cancel(exc):
            raise
        question = QuestionResult(item.id, item.question, item.category, item.answer, None, error=str(exc),
                                  evidence_known=len(evidence))
    question.latency_ms = round((time.perf_counter() - started) * 1000, 1)
    if judge is not None and question.answer is not None:
        verdict: Verdict = await judge.grade(item.question, item.answer, question.answer)
        question.correct, question.judge_reason, question.judge_usage = verdict.correct, verdict.reason, verdict.usage
    elif judge is not None:  # no answer at all (no model, a failure): wrong, without asking anyone
        question.correct, question.judge_reason = False, "no answer"
    return question


def _resolve_evidence(connect: Callable[[], sqlite3.Connection], items: list[QAItem]) -> dict[str, set[int]]:
    connection = connect()
    try:
        found = resolve_messages(connection, (pair for item in items for pair in item.evidence))
    finally:
        connection.close()
    return {item.id: {m for m in (found.get(pair) for pair in item.evidence) if m is not None} for item in items}
