"""What a cross-encoder step would send for one query, counted before anything is sent.

Rerank APIs bill the tokens of every (query, passage) pair: Voyage counts "query tokens ×
documents + the documents' tokens", Jina the tokens it read, Cohere one search unit per
query of up to 100 passages. Local servers cost nothing but time. The count here uses the
same cut as a real run (the first `top_n` topics, each ≤ `passage_tokens`) and the same
skip rule, and estimates a passage from the candidate's summary and size (engine/text/tokens.py;
~4 characters a token for the log) without reading the store.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.rerank.cross_encoder.reranker import skip_reason
from engine.rerank.cross_encoder.settings import CrossEncoderSettings
from engine.retrieval.candidate import Candidate
from engine.text.tokens import estimate_tokens


@dataclass(frozen=True)
class QueryCost:
    tokens: int  # query and passage tokens of every pair sent
    passages: int
    requests: int  # batches (without retries)
    skipped: bool


def estimate_cross_encoder(query: str, candidates: Sequence[Candidate], settings: CrossEncoderSettings) -> QueryCost:
    topics = sorted((c for c in candidates if c.kind == "topic"), key=lambda c: c.rank)
    if not topics or skip_reason(topics, settings)[0]:
        return QueryCost(0, 0, 0, True)
    sent = topics[: settings.top_n]
    query_tokens = estimate_tokens(query)
    passages = sum(min(settings.passage_tokens, estimate_tokens(c.summary) + math.ceil(c.chars / 4) + 4)
                   for c in sent)
    return QueryCost(query_tokens * len(sent) + passages, len(sent), math.ceil(len(sent) / settings.batch), False)
