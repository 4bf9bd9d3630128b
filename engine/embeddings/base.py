"""What every embedder offers, how one is configured, and the errors embedding can raise.

Vectors are recorded with the embedder's `model_id`, so anything that changes the vectors a
text gets (model, dimension, vectoriser version, fitted state) must change `model_id`:
a store whose vectors carry another id is re-embedded rather than silently mixed.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from engine.errors import CancelToken, RemoteServiceError
from engine.messages import Message, msg

EmbedKind = Literal["document", "query"]
ProgressCallback = Callable[[int, int], None]  # (texts done, texts total)

__all__ = [
    "CancelToken", "EmbedKind", "Embedder", "EmbeddingAuthError", "EmbeddingConfig", "EmbeddingError",
    "EmbeddingRateLimited", "EmbeddingResponseError", "EmbeddingServerError", "EmbeddingTimeout",
    "ProgressCallback", "make_embedder",
]


class Embedder(ABC):
    """Turns texts into L2-normalised float32 rows, one per text, in the order given.

    `embed` is synchronous and meant for worker threads; `aembed` is for code already on an
    event loop. Both return an array of shape (len(texts), dim), also for an empty input.
    """

    model_id: str
    dim: int
    # Traits the retrieval reads (declared here rather than probed with getattr): a model that
    # places a question and its answer close across languages (BM25 then abstains on topics in
    # another script), and one that must be fitted on the store before its vectors mean anything.
    multilingual: bool = False
    needs_fit: bool = False
    # The cosine above which neighbouring topics merge, where the engine measured it for this model;
    # None: engine.topics.merge_scale measures the model's own scale on the store.
    consolidation_threshold: float | None = None
    # How the store keeps this model's vectors (engine.memory.vectors): "float16" (half of
    # float32's bytes) or "int8" (a quarter, with a scale per vector); in `embedding_cache` when
    # `cache_vectors` (a local model or an API takes hours or money to make them again), else
    # only beside the index that searches them (the built-in embedder remakes one in ~0.2 ms).
    stored_as: str = "float16"
    cache_vectors: bool = True
    # The index searches a sketch of each vector folded to this many dimensions, and the stored
    # vectors score its candidates exactly (engine.memory.indexes); None: the index holds the
    # vectors themselves. Issue 26: the built-in embedder's 1,024 dimensions made an index of
    # 4 KB a topic that was a third of the data folder and half of a build.
    sketch_dim: int | None = None

    @property
    def fitted(self) -> bool:
        """False only for an embedder that needs a fit and has none (the built-in one without its IDF table)."""
        return True

    @abstractmethod
    def embed(self, texts: Sequence[str], kind: EmbedKind = "document",
              on_progress: ProgressCallback | None = None,
              cancel: CancelToken | None = None) -> np.ndarray:
        """Embed `texts`; `on_progress(done, total)` after each batch; `cancel` is checked between batches."""

    async def aembed(self, texts: Sequence[str], kind: EmbedKind = "document") -> np.ndarray:
        """Default: run `embed` in a thread so the event loop keeps turning."""
        import asyncio  # here: only a coroutine needs it, and a plain CLI search runs none

        return await asyncio.to_thread(self.embed, list(texts), kind)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_id={self.model_id!r}, dim={self.dim})"


Provider = Literal["builtin", "local", "openrouter", "openai", "ollama", "custom"]


@dataclass
class EmbeddingConfig:
    """Which embedder to use. Empty `model`/`base_url` take the provider's preset.

    `api_key` is excluded from `repr` so that logging a config never leaks it.
    """

    provider: Provider = "builtin"
    model: str = ""
    base_url: str = ""
    api_key: str | None = field(default=None, repr=False)
    dimensions: int | None = None  # ask the service for shorter vectors (text-embedding-3, Gemini); builtin: its dim
    batch_size: int = 64           # texts per request
    concurrency: int = 4           # requests in flight at once
    timeout: float = 60.0          # seconds per request


# The services whose model ids read "<provider>:<model>[@<dimensions>]", by the id's prefix.
_SERVICE_BY_PREFIX: dict[str, Provider] = {"openrouter": "openrouter", "openai": "openai", "ollama": "ollama"}


def config_for_model(model_id: str) -> EmbeddingConfig | None:
    """The config that makes an embedder with this `model_id` (as stored beside every vector),
    without its key; None when the id does not say enough (a custom server's address)."""
    provider, _, rest = model_id.partition(":")
    if provider == "builtin":
        dim = re.search(r"-d(\d+)", rest)
        return EmbeddingConfig("builtin", dimensions=int(dim.group(1)) if dim else None)
    if provider == "local":
        return EmbeddingConfig("local")
    service = _SERVICE_BY_PREFIX.get(provider)
    if service is not None and rest:
        model, _, dimensions = rest.rpartition("@") if "@" in rest else (rest, "", "")
        return EmbeddingConfig(service, model=model, dimensions=int(dimensions) if dimensions.isdigit() else None)
    return None


def make_embedder(config: EmbeddingConfig, builtin_state: bytes | None = None) -> Embedder:
    """The embedder `config` describes. `builtin_state` is a fitted `BuiltinEmbedder.state` (IDF), if any.

    Raises `EmbeddingError` (or `EmbeddingAuthError` for a missing key) with what to set.
    """
    # imported here: both modules build on this one (and a search with the built-in embedder
    # never imports the HTTP client: issue 26's cold start)
    if config.provider == "builtin":
        from engine.embeddings.builtin import DEFAULT_DIM, BuiltinEmbedder

        return BuiltinEmbedder.from_state(builtin_state, dim=config.dimensions or DEFAULT_DIM)
    from engine.embeddings.openai_compat import PRESETS, OpenAICompatibleEmbedder

    if config.provider == "local":
        from engine.embeddings.local import LocalEmbedder  # the model is loaded on first use, not here

        return LocalEmbedder()
    preset = PRESETS.get(config.provider)
    if preset is None:
        raise EmbeddingError(msg("embeddings.unknown_provider", provider=repr(config.provider)))
    base_url = config.base_url or preset.base_url
    model = config.model or preset.model
    if not base_url:
        raise EmbeddingError(msg("embeddings.no_address"))
    if not model:
        raise EmbeddingError(msg("embeddings.no_model"))
    if preset.needs_key and not config.api_key:
        raise EmbeddingAuthError(preset.label)
    return OpenAICompatibleEmbedder(base_url=base_url, model=model, api_key=config.api_key,
                                    provider=config.provider, dimensions=config.dimensions,
                                    batch_size=config.batch_size, concurrency=config.concurrency,
                                    timeout=config.timeout)


# ---- errors: each message says what happened and what the person can do about it ----
# (codes `embeddings.*`, rendered by each face in the person's language; `str(error)` is English)

class EmbeddingError(RemoteServiceError):
    """Base of every embedding failure."""


class EmbeddingAuthError(EmbeddingError):
    """The key was rejected (`status` 401/403) or, with `status` None, none was set."""

    def __init__(self, service: str, status: int | None = None) -> None:
        self.status = status
        super().__init__(msg("embeddings.key_missing" if status is None else "embeddings.key_rejected",
                             service=service))


class EmbeddingRateLimited(EmbeddingError):
    def __init__(self, service: str, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        wait = msg("embeddings.asked_to_wait", seconds=retry_after) if retry_after else ""
        super().__init__(msg("embeddings.rate_limited", service=service, wait=wait))


class EmbeddingServerError(EmbeddingError):
    def __init__(self, service: str, status: int | None, detail: Message | str = "") -> None:
        self.status = status
        super().__init__(msg("embeddings.failed", service=service,
                             status=msg("embeddings.http_status", status=status) if status else "",
                             detail=msg("embeddings.detail", detail=detail) if detail else ""))


class EmbeddingTimeout(EmbeddingError):
    def __init__(self, service: str, seconds: float | None = None) -> None:
        super().__init__(msg("embeddings.timeout", service=service,
                             within=msg("embeddings.within", seconds=seconds) if seconds else ""))


class EmbeddingResponseError(EmbeddingError):
    def __init__(self, service: str, problem: Message | str) -> None:
        self.problem = str(problem)  # English, for logs
        super().__init__(msg("embeddings.unusable_answer", service=service, problem=problem))
