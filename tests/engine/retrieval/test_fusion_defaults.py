"""The BM25 share in fusion follows the embedder unless the settings fix it."""

from __future__ import annotations

from engine.embeddings.base import Embedder
from engine.embeddings.builtin import BuiltinEmbedder
from engine.retrieval.search import (
    LEXICAL_WEIGHT_BUILTIN,
    LEXICAL_WEIGHT_OTHER,
    RetrievalSettings,
    default_lexical_weight,
)


class _ApiLike(Embedder):
    """An API model as the fusion sees it: no declared traits."""

    model_id = "api:some-model"
    dim = 8

    def embed(self, texts, kind="document", on_progress=None, cancel=None):
        raise NotImplementedError


def test_lexical_weight_defaults_by_embedder():
    assert RetrievalSettings().lexical_weight is None
    assert default_lexical_weight(BuiltinEmbedder(64)) == LEXICAL_WEIGHT_BUILTIN == 0.9
    assert default_lexical_weight(_ApiLike()) == LEXICAL_WEIGHT_OTHER == 0.5
