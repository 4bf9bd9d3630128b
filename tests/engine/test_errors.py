"""One error base per kind of failure: the HTTP clients share theirs."""

from __future__ import annotations


def test_both_http_clients_raise_under_one_base():
    from engine.embeddings.base import EmbeddingError, EmbeddingServerError
    from engine.errors import EngineError, RemoteServiceError
    from engine.llm.errors import LLMError, LLMServerError

    assert issubclass(LLMError, RemoteServiceError) and issubclass(EmbeddingError, RemoteServiceError)
    assert issubclass(RemoteServiceError, EngineError)
    assert EmbeddingServerError("the server", 503).status == 503
    assert LLMServerError("overloaded", status=503).status == 503
