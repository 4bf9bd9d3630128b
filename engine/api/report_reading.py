"""A reranker's report dict (`RerankResult.report`, as the reranker wrote it and the traces store
it) read into its typed record (engine/api/reports.py), once, here: the faces never read the dict
by key. Every key is read with a default: Ask's search step reports a fallback with an error
alone, and a cross-encoder re-cut keeps what the run wrote."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TypeVar

from engine.api.reports import (
    ChainInfo,
    CrossEncoderReport,
    EndpointLabel,
    FlashReport,
    KeepAllReport,
    RerankReport,
    ScoredTopic,
    StageCounts,
    ThresholdReport,
    Usage,
)
from engine.messages import Message
from engine.rerank.base import RerankResult
from engine.rerank.cross_encoder.settings import CrossEncoderSettings
from engine.rerank.threshold import ThresholdSettings
from engine.retrieval.candidate import KINDS, CandidateKind

# The dict is JSON as a reranker wrote it: its values are whatever JSON holds.
Json = object
_Settings = TypeVar("_Settings", ThresholdSettings, CrossEncoderSettings)


def rerank_report(result: RerankResult) -> RerankReport:
    """The typed report of `result`, by the reranker that made it ("none" and any name this
    module does not know read as keep-all: their report is its counts)."""
    raw: Mapping[str, Json] = result.report or {}
    kept_topics = sum(1 for s in result.selected if s.kind == "topic")
    if result.reranker == "threshold":
        return ThresholdReport("threshold", _counts(raw), _by_kind(raw.get("by_kind")),
                               _settings(ThresholdSettings, raw.get("settings")))
    if result.reranker == "flash":
        return _flash(result, raw, kept_topics)
    if result.reranker == "cross-encoder":
        return _cross_encoder(result, raw)
    return KeepAllReport("none", _counts(raw, kept=kept_topics))


def _flash(result: RerankResult, raw: Mapping[str, Json], kept_topics: int) -> FlashReport:
    kept_by_kind = _mapping(raw.get("kept_by_kind"))
    calls = result.tool_calls or _list(raw.get("tool_calls"))
    protocol = raw.get("protocol")
    chain = raw.get("chain")
    return FlashReport(
        "flash", _counts(raw, kept=kept_topics),
        {kind: _int(kept_by_kind.get(kind)) for kind in KINDS if kind in kept_by_kind},
        turns=_int(raw.get("turns")), tool_calls=tuple(tuple(_int(i) for i in _list(ids)) for ids in calls),
        fallback=result.fallback or _text(raw.get("fallback")), error=_said(raw, "error"),
        note=_said(raw, "note"), fallback_kept=_fallback_kept(raw), protocol=_text(protocol),
        protocol_note=_said(raw, "protocol_note"), model=_text(raw.get("model")) or "",
        usage=_usage(result.usage if result.usage is not None else raw.get("usage")),
        timings_ms=_timings(raw.get("timings_ms")),
        chain=_chain(chain) if isinstance(chain, Mapping) else None)


def _cross_encoder(result: RerankResult, raw: Mapping[str, Json]) -> CrossEncoderReport:
    endpoint = _mapping(raw.get("endpoint"))
    return CrossEncoderReport(
        "cross-encoder", _counts(raw), _by_kind(raw.get("by_kind")),
        _settings(CrossEncoderSettings, raw.get("settings")),
        EndpointLabel(_text(endpoint.get("preset")) or "", _text(endpoint.get("label")) or "",
                      _text(endpoint.get("model")) or "", bool(endpoint.get("local"))),
        sent=_int(raw.get("sent")), not_sent=_int(raw.get("not_sent")), batches=_int(raw.get("batches")),
        requests=_int(raw.get("requests")), scores=_scores(raw.get("scores")), skipped=_text(raw.get("skipped")),
        fallback=result.fallback or _text(raw.get("fallback")), error=_said(raw, "error"), note=_said(raw, "note"),
        usage=_usage(result.usage if result.usage is not None else raw.get("usage") or None),
        total_ms=_float(_mapping(raw.get("timings_ms")).get("total")))


def _chain(raw: Mapping[str, Json]) -> ChainInfo:
    return ChainInfo(
        before=_int(raw.get("before")), after=_int(raw.get("after")), sent=_int(raw.get("sent")),
        note=_said(raw, "note"), skipped=_text(raw.get("skipped")), fallback=_text(raw.get("fallback")),
        error=_said(raw, "error"), scores=_scores(raw.get("scores")),
        kept_ids=tuple(_int(i) for i in _list(raw.get("kept_ids"))), usage=_usage(raw.get("usage") or None),
        total_ms=_float(_mapping(raw.get("timings_ms")).get("total")))


# -- reading JSON values --------------------------------------------------------------------
def _counts(raw: Mapping[str, Json], kept: int | None = None) -> StageCounts:
    return StageCounts(_int(raw.get("retrieved")), _int(raw.get("removed_by_threshold")),
                       _int(raw.get("removed_by_gap")), _int(raw.get("removed_by_top_k")),
                       _int(raw.get("kept")) if "kept" in raw or kept is None else kept)


def _by_kind(raw: Json) -> dict[CandidateKind, StageCounts]:
    kinds = _mapping(raw)
    return {kind: _counts(_mapping(kinds[kind])) for kind in KINDS if kind in kinds}


def _said(raw: Mapping[str, Json], key: str) -> Message | None:
    """A report text as its code (`<key>_message`), else its English text as written (a run
    recorded before the codes), else None."""
    message = Message.from_json(raw.get(f"{key}_message"))
    if message is not None:
        return message
    text = raw.get(key)
    return Message("error.text", {"text": str(text)}) if text else None


def _fallback_kept(raw: Mapping[str, Json]) -> Message | None:
    message = Message.from_json(raw.get("fallback_kept_message"))
    text = _mapping(raw.get("fallback_kept")).get("text")
    if message is None and text:
        message = Message("error.text", {"text": str(text)})
    return message


def _usage(raw: Json) -> Usage | None:
    if not isinstance(raw, Mapping):
        return None
    return Usage(_maybe_int(raw.get("prompt_tokens"), "prompt_tokens" in raw),
                 _maybe_int(raw.get("completion_tokens"), "completion_tokens" in raw),
                 _maybe_int(raw.get("total_tokens"), "total_tokens" in raw),
                 _float(raw["search_units"]) if raw.get("search_units") is not None else None,
                 _float(raw["cost"]) if raw.get("cost") is not None else None)


def _scores(raw: Json) -> tuple[ScoredTopic, ...]:
    entries = [_mapping(entry) for entry in _list(raw)]
    return tuple(ScoredTopic(_int(e.get("id")), _float(e.get("score")), _int(e.get("stage1_rank")),
                             _float(e["raw"]) if e.get("raw") is not None else None) for e in entries)


def _settings(kind: type[_Settings], raw: Json) -> _Settings:
    """The settings a run recorded; the defaults where the record has none (or a broken one)."""
    known = {f.name for f in dataclasses.fields(kind)}
    values = {key: value for key, value in _mapping(raw).items() if key in known}
    try:
        return kind(**values)  # type: ignore[arg-type]  # JSON values, checked by the dataclass itself
    except (TypeError, ValueError):
        return kind()


def _timings(raw: Json) -> dict[str, float]:
    return {str(name): _float(ms) for name, ms in _mapping(raw).items()}


def _mapping(raw: Json) -> Mapping[str, Json]:
    return raw if isinstance(raw, Mapping) else {}


def _list(raw: Json) -> list[Json]:
    return list(raw) if isinstance(raw, list | tuple) else []


def _text(raw: Json) -> str | None:
    return str(raw) if raw else None


def _int(raw: Json) -> int:
    return int(raw) if isinstance(raw, int | float) else 0


def _maybe_int(raw: Json, present: bool) -> int | None:
    return _int(raw) if present else None


def _float(raw: Json) -> float:
    return float(raw) if isinstance(raw, int | float) else 0.0
