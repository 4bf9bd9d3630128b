"""The `cross-encoder` reranker (seed 002 §7): stage 1's best topics scored by a rerank server
(llama.cpp `--reranking`, TEI, Infinity, vLLM, Jina, Cohere, Voyage), alone or narrowing
the candidates Flash reads. docs/rerankers.md says how to run each server.

    endpoint = RerankEndpoint("tei", "http://127.0.0.1:8080")
    reranker = CrossEncoderReranker(endpoint, CrossEncoderSettings(), logs=store_log_source(connect))
    result = await reranker.arerank(query, candidates)
"""

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

__all__ = [
    "CROSS_ENCODER_FALLBACKS", "RERANK_PRESETS", "ChainSettings", "ChainedReranker", "CrossEncoderError",
    "CrossEncoderReranker", "CrossEncoderSettings", "CrossEncoderSettingsError", "LogSource", "RerankClient",
    "RerankEndpoint", "RerankPreset", "ScoreRun", "Scoring", "cross_encoder_fallback_message",
    "estimate_cross_encoder", "get_rerank_preset", "narrow", "normalise", "parse_scores", "passages_for",
    "skip_reason", "store_log_source",
]
