"""Text → vectors: the built-in hashed n-gram embedder and OpenAI-compatible embedding APIs.

`make_embedder(config)` picks one; every embedder returns float32 rows, L2-normalised, and
names itself with a `model_id` recorded next to every stored vector.
"""

from typing import TYPE_CHECKING

from engine.lazy import lazy_exports

if TYPE_CHECKING:
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

# Loaded on first use (PEP 562): a search with the built-in embedder needs neither the HTTP client
# nor the API presets (issue 26: a cold `flashback search`).
_WHERE: dict[str, str] = {name: module for module, names in (
    ("engine.embeddings.base", ("CancelToken", "Embedder", "EmbeddingAuthError", "EmbeddingConfig",
                                "EmbeddingError", "EmbeddingRateLimited", "EmbeddingResponseError",
                                "EmbeddingServerError", "EmbeddingTimeout", "make_embedder")),
    ("engine.embeddings.builtin", ("BuiltinEmbedder", "DEFAULT_DIM")),
    ("engine.embeddings.openai_compat", ("OpenAICompatibleEmbedder", "PRESETS")),
    ("engine.http_retry", ("RetryPolicy",)),
) for name in names}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)


__all__ = [
    "DEFAULT_DIM", "PRESETS", "BuiltinEmbedder", "CancelToken", "Embedder", "EmbeddingAuthError", "EmbeddingConfig",
    "EmbeddingError", "EmbeddingRateLimited", "EmbeddingResponseError", "EmbeddingServerError", "EmbeddingTimeout",
    "OpenAICompatibleEmbedder", "RetryPolicy", "make_embedder",
]
