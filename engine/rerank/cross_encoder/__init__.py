"""The `cross-encoder` reranker (seed 002 §7): stage 1's best topics scored by a rerank server
(llama.cpp `--reranking`, TEI, Infinity, vLLM, Jina, Cohere, Voyage), alone or narrowing
the candidates Flash reads. docs/rerankers.md says how to run each server.

    endpoint = RerankEndpoint("tei", "http://127.0.0.1:8080")
    reranker = CrossEncoderReranker(endpoint, CrossEncoderSettings(), logs=store_log_source(connect))
    result = await reranker.arerank(query, candidates)
"""

from typing import TYPE_CHECKING

from engine.lazy import lazy_exports

if TYPE_CHECKING:
    from engine.rerank.cross_encoder.chain import ChainedReranker, ChainSettings, narrow
    from engine.rerank.cross_encoder.client import RerankClient, ScoreRun, normalise, parse_scores
    from engine.rerank.cross_encoder.cost import estimate_cross_encoder
    from engine.rerank.cross_encoder.errors import (
        CROSS_ENCODER_FALLBACKS,
        CrossEncoderError,
        CrossEncoderSettingsError,
        cross_encoder_fallback_message,
    )
    from engine.rerank.cross_encoder.passages import LogSource, passages_for, store_log_source
    from engine.rerank.cross_encoder.presets import RERANK_PRESETS, RerankEndpoint, RerankPreset, get_rerank_preset
    from engine.rerank.cross_encoder.reranker import CrossEncoderReranker, Scoring, skip_reason
    from engine.rerank.cross_encoder.settings import CrossEncoderSettings

# Loaded on first use (PEP 562): its settings are read by every face's option and settings code,
# which must not bring the HTTP client into a plain search (issue 26: a cold `flashback search`).
_WHERE: dict[str, str] = {name: f"{__name__}.{module}" for module, names in (
    ("chain", ("ChainSettings", "ChainedReranker", "narrow")),
    ("client", ("RerankClient", "ScoreRun", "normalise", "parse_scores")),
    ("cost", ("estimate_cross_encoder",)),
    ("errors", ("CROSS_ENCODER_FALLBACKS", "CrossEncoderError", "CrossEncoderSettingsError",
               "cross_encoder_fallback_message")),
    ("passages", ("LogSource", "passages_for", "store_log_source")),
    ("presets", ("RERANK_PRESETS", "RerankEndpoint", "RerankPreset", "get_rerank_preset")),
    ("reranker", ("CrossEncoderReranker", "Scoring", "skip_reason")),
    ("settings", ("CrossEncoderSettings",)),
) for name in names}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)


__all__ = [
    "CROSS_ENCODER_FALLBACKS", "RERANK_PRESETS", "ChainSettings", "ChainedReranker", "CrossEncoderError",
    "CrossEncoderReranker", "CrossEncoderSettings", "CrossEncoderSettingsError", "LogSource", "RerankClient",
    "RerankEndpoint", "RerankPreset", "ScoreRun", "Scoring", "cross_encoder_fallback_message",
    "estimate_cross_encoder", "get_rerank_preset", "narrow", "normalise", "parse_scores", "passages_for",
    "skip_reason", "store_log_source",
]
