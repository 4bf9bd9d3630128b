"""Text → vectors: the built-in hashed n-gram embedder and OpenAI-compatible embedding APIs.

`make_embedder(config)` picks one; every embedder returns float32 rows, L2-normalised, and
names itself with a `model_id` recorded next to every stored vector.
"""

from engine.embeddings.base import (
    CancelToken,
    Embedder,
    EmbeddingAuthError,
    EmbeddingConfig,
    EmbeddingError,
    EmbeddingRateLimited,
    EmbeddingResponseError,
    EmbeddingServerError,
    EmbeddingTimeout,
    make_embedder,
)
from engine.embeddings.builtin import DEFAULT_DIM, BuiltinEmbedder
from engine.embeddings.openai_compat import PRESETS, OpenAICompatibleEmbedder
from engine.http_retry import RetryPolicy

__all__ = [
    "DEFAULT_DIM", "PRESETS", "BuiltinEmbedder", "CancelToken", "Embedder", "EmbeddingAuthError", "EmbeddingConfig",
    "EmbeddingError", "EmbeddingRateLimited", "EmbeddingResponseError", "EmbeddingServerError", "EmbeddingTimeout",
    "OpenAICompatibleEmbedder", "RetryPolicy", "make_embedder",
]
