"""The cross-encoder's own cut moved without a request (issue 25, issue 31: a method of the search
result, not the window's): the server's scores come back once per search (`report["scores"]`,
best first, every topic sent); score ≥ and top-K only choose among them. Where the cross-encoder
was not asked or fell back, its top-K cuts stage 1's order, as the reranker itself does."""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.messages import Message, msg
from engine.rerank.base import Candidate, RerankResult, Selection
from engine.rerank.cross_encoder.errors import cross_encoder_fallback_message

NAME = "cross-encoder"  # RerankResult.reranker of a cross-encoder run


def recut(result: RerankResult, candidates: list[Candidate], threshold: float, top_k: int) -> RerankResult:
    """`result` (a cross-encoder run) with its topics chosen again at `threshold` and `top_k`; the
    same object when they are what it ran with. People, files and messages stay as the run chose them."""
    report = result.report or {}
    ran_with = report.get("settings") or {}
    if (ran_with.get("threshold"), ran_with.get("top_k")) == (threshold, top_k):
        return result
    topics = sorted((c for c in candidates if c.kind == "topic"), key=lambda c: (-c.score, c.rank))
    note = result.message("note")
    removed_threshold = removed_top_k = 0
    scores = report.get("scores") or []
    if result.fallback:  # stage 1's first top-K, each saying which failure
        why = cross_encoder_fallback_message(result.fallback)
        chosen = [Selection.because("topic", c.id, msg("rerank.cross_encoder.fallback_vector", reason=why,
                                                       rank=int(c.rank), score=float(c.score)))
                  for c in topics[:top_k]]
    elif report.get("skipped") or not scores:  # not asked: stage 1 had already chosen
        chosen = [Selection.because("topic", c.id, msg("rerank.reason.vector", rank=int(c.rank), score=float(c.score)))
                  for c in topics[:top_k]]
        if note is not None and "count" in note.params:  # "stage 1's first 5 kept"
            note = Message(note.code, {**note.params, "count": min(top_k, len(topics))})
    else:
        above = [entry for entry in scores if float(entry["score"]) >= threshold]
        removed_threshold, removed_top_k = len(scores) - len(above), max(0, len(above) - top_k)
        chosen = [Selection.because("topic", int(entry["id"]), msg("rerank.cross_encoder.reason",
                                                                   score=float(entry["score"])))
                  for entry in above[:top_k]]
        note = None if above else msg("rerank.cross_encoder.none_above", threshold=float(threshold),
                                      best=float(scores[0]["score"]))
    by_kind = dict(report.get("by_kind") or {})
    by_kind["topic"] = {**(by_kind.get("topic") or {}), "kept": len(chosen)}
    cut: dict[str, Any] = {
        **report, "kept": len(chosen), "kept_by_kind": {**(report.get("kept_by_kind") or {}), "topic": len(chosen)},
        "removed_by_threshold": removed_threshold, "removed_by_top_k": removed_top_k, "by_kind": by_kind,
        "settings": {**ran_with, "threshold": threshold, "top_k": top_k},
        "note": str(note) if note is not None else None, "note_message": note.to_json() if note is not None else None}
    others = [s for s in result.selected if s.kind != "topic"]
    return dataclasses.replace(result, selected=chosen + others, report=cut)
