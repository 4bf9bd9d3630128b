"""Retry timing, key redaction, and `make_embedder` choosing and checking an embedder from settings."""

from __future__ import annotations

from email.utils import formatdate

import numpy as np
import pytest

from engine.embeddings import (
    DEFAULT_DIM,
    BuiltinEmbedder,
    EmbeddingAuthError,
    EmbeddingConfig,
    EmbeddingError,
    OpenAICompatibleEmbedder,
    RetryPolicy,
    make_embedder,
)
from engine.http_retry import parse_retry_after
from engine.scrub import scrub_text
from tests.fake_openai import FakeOpenAI

NOW = 1_700_000_000.0


@pytest.mark.parametrize(("headers", "seconds"), [
    ({"retry-after": "2"}, 2.0),
    ({"retry-after": "0.5"}, 0.5),
    ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),  # OpenAI's precise header wins
    ({"retry-after": formatdate(NOW + 30, usegmt=True)}, 30.0),
    ({"retry-after": formatdate(NOW - 30, usegmt=True)}, 0.0),  # a date in the past: retry now
    ({"retry-after": "soon"}, None),
    ({"retry-after": "-3"}, None),
    ({}, None),
])
def test_retry_after_is_read_as_seconds_or_http_date(headers, seconds):
    assert parse_retry_after(headers, now=NOW) == seconds


def test_backoff_grows_exponentially_is_capped_and_jittered_downwards():
    policy = RetryPolicy(initial_backoff=0.5, max_backoff=4.0, jitter=0.25)
    assert [policy.backoff(n, lambda: 0.0) for n in range(1, 6)] == [0.5, 1.0, 2.0, 4.0, 4.0]
    assert policy.backoff(2, lambda: 0.999) == pytest.approx(0.75, abs=1e-3)


def test_the_scrubber_hides_every_occurrence_but_ignores_trivial_secrets():
    assert scrub_text("key sk-abc123 and sk-abc123", ["sk-abc123"]) == "key [redacted] and [redacted]"
    assert scrub_text("a b c", ["a"]) == "a b c" and scrub_text("text", [None]) == "text"


def test_default_config_is_the_builtin_embedder():
    embedder = make_embedder(EmbeddingConfig())
    assert isinstance(embedder, BuiltinEmbedder) and embedder.dim == DEFAULT_DIM
    assert make_embedder(EmbeddingConfig(dimensions=512)).model_id.endswith("-d512")


def test_builtin_state_is_restored_by_the_factory():
    fitted = BuiltinEmbedder().fit(["one text", "two texts"])
    again = make_embedder(EmbeddingConfig(), builtin_state=fitted.state)
    assert again.model_id == fitted.model_id
    assert np.array_equal(again.embed(["texts"]), fitted.embed(["texts"]))


@pytest.mark.parametrize(("provider", "base_url", "model"), [
    ("openrouter", "https://openrouter.ai/api/v1", "google/gemini-embedding-001"),
    ("openai", "https://api.openai.com/v1", "text-embedding-3-small"),
    ("ollama", "http://localhost:11434/v1", "nomic-embed-text"),
])
def test_presets_fill_in_address_and_model(provider, base_url, model):
    embedder = make_embedder(EmbeddingConfig(provider=provider, api_key="k"))
    assert isinstance(embedder, OpenAICompatibleEmbedder)
    assert embedder.url == base_url + "/embeddings" and embedder.model == model
    assert embedder.model_id == f"{provider}:{model}"


@pytest.mark.parametrize("provider", ["openrouter", "openai"])
def test_hosted_services_need_a_key(provider):
    with pytest.raises(EmbeddingAuthError, match="needs an API key"):
        make_embedder(EmbeddingConfig(provider=provider))


def test_custom_needs_an_address_and_a_model_and_unknown_providers_are_refused():
    with pytest.raises(EmbeddingError, match="address"):
        make_embedder(EmbeddingConfig(provider="custom", model="m"))
    with pytest.raises(EmbeddingError, match="model"):
        make_embedder(EmbeddingConfig(provider="custom", base_url="http://127.0.0.1:1/v1"))
    with pytest.raises(EmbeddingError, match="Unknown embedding provider"):
        make_embedder(EmbeddingConfig(provider="word2vec"))  # type: ignore[arg-type]


def test_keyless_custom_server_through_the_factory():
    with FakeOpenAI(embedding_dim=4) as server:
        config = EmbeddingConfig(provider="custom", base_url=server.base_url, model="local", dimensions=4,
                                 batch_size=2, concurrency=1, timeout=5)
        vectors = make_embedder(config).embed(["a", "b", "c"])
        assert vectors.shape == (3, 4)
        assert [len(r.body["input"]) for r in server.requests] == [2, 1]
        assert all("Authorization" not in r.headers for r in server.requests)


def test_config_repr_hides_the_key():
    assert "sk-secret" not in repr(EmbeddingConfig(provider="openai", api_key="sk-secret"))


@pytest.mark.parametrize(("model_id", "expected"), [
    ("builtin:hashgram-v3-d512-idf1a2b3c", ("builtin", "", 512)),
    ("builtin:hashgram-v3-d256", ("builtin", "", 256)),
    ("local:multilingual-e5-small-q4", ("local", "", None)),
    ("openai:text-embedding-3-small@256", ("openai", "text-embedding-3-small", 256)),
    ("openrouter:google/gemini-embedding-001", ("openrouter", "google/gemini-embedding-001", None)),
    ("ollama:nomic-embed-text", ("ollama", "nomic-embed-text", None)),
    ("custom:e5@384", None),  # the server's address is not in the id: the user must say it
    ("nonsense", None),
])
def test_the_config_an_embedder_was_made_with_is_read_back_from_its_model_id(model_id, expected):
    from engine.embeddings.base import config_for_model

    config = config_for_model(model_id)
    assert (config if config is None else (config.provider, config.model, config.dimensions)) == expected
