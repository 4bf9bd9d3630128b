"""The rerank client against a scripted rerank server on 127.0.0.1 (tests/fake_rerank.py): every
preset's request and answer shape, bounded batches, scores matched by index, the time budget,
4xx/5xx through the shared retry loop, and answers that leave passages without a score."""

from __future__ import annotations

import asyncio
import math
import time

import pytest

from engine.http_retry import RetryPolicy
from engine.rerank.cross_encoder import RERANK_PRESETS, RerankClient, RerankEndpoint
from engine.rerank.cross_encoder.errors import (
    RerankEndpointError,
    RerankResponseError,
    RerankScoresError,
    RerankTimeout,
)
from tests.fake_openai import FakeResponse
from tests.fake_rerank import SHAPES, FakeRerank, overlap

QUERY = "hotel booking in Lisbon"
PASSAGES = ["we booked the hotel in Lisbon for May", "the Postgres upgrade broke replication",
            "Lisbon trip: flights and a hotel", "lunch plans", "hotel booking in Lisbon confirmed"]
KEY = "rk-test-0123456789abcdef"
FAST = RetryPolicy(max_retries=2, initial_backoff=0.01, max_backoff=0.02, jitter=0.0)


@pytest.fixture
def server():
    with FakeRerank() as fake:
        yield fake


def score(endpoint: RerankEndpoint, passages=PASSAGES, **options):
    client = RerankClient(endpoint, retry=options.pop("retry", FAST), **options)
    return asyncio.run(client.score(QUERY, list(passages)))


@pytest.mark.parametrize("preset", sorted(RERANK_PRESETS))
def test_every_preset_sends_its_own_request_and_reads_its_own_answer(server, preset):
    path = server.serve(preset)
    spec = RERANK_PRESETS[preset]
    endpoint = RerankEndpoint(preset, server.root, api_key=KEY if spec.needs_key else None)
    run = score(endpoint)

    assert run.scores == pytest.approx([overlap(QUERY, p) for p in PASSAGES])  # the answer came sorted: by index
    (request,) = server.requests
    assert request.path == path == spec.path
    _, field, top_field, _ = SHAPES[preset]
    assert request.body["query"] == QUERY and request.body[field] == PASSAGES
    if top_field:
        assert request.body[top_field] == len(PASSAGES)  # every passage's score comes back
    assert ("model" in request.body) == bool(spec.default_model)  # cloud APIs need one; local servers serve theirs
    assert request.body.items() >= dict(spec.extra).items()
    if spec.needs_key:
        assert request.headers["Authorization"] == f"Bearer {KEY}"
    else:
        assert "Authorization" not in request.headers
    assert run.batches == run.requests == 1 and run.normalized is None
    if preset == "cohere":
        assert run.usage == {"search_units": 1}
    elif preset != "tei":
        assert run.usage["total_tokens"] > 0


def test_batches_are_bounded_and_every_score_lands_on_its_own_passage(server):
    server.serve("llamacpp", order="reversed")
    passages = [f"passage {n} about " + ("hotel Lisbon" if n % 7 == 0 else "nothing") for n in range(40)]
    run = score(RerankEndpoint("llamacpp", server.root), passages, batch=16)

    assert [len(r.body["documents"]) for r in server.requests] == [16, 16, 8]
    assert [r.body["top_n"] for r in server.requests] == [16, 16, 8]
    assert run.scores == pytest.approx([overlap(QUERY, p) for p in passages])
    assert run.batches == run.requests == 3


def test_a_cloud_api_gets_its_batches_in_parallel_a_local_server_one_at_a_time(server):
    server.serve("jina", delay=1.0)  # long enough that a loaded machine's overhead cannot blur the two
    passages = [f"hotel {n}" for n in range(32)]
    started = time.perf_counter()
    score(RerankEndpoint("jina", server.root, api_key=KEY), passages, batch=8, concurrency=4)
    parallel = time.perf_counter() - started
    started = time.perf_counter()
    score(RerankEndpoint("jina", server.root, api_key=KEY), passages, batch=8, concurrency=1)
    # Four batches at once take one server delay (1 s); one at a time, four (4 s by construction).
    assert parallel < 3.5 < time.perf_counter() - started


def test_logits_from_llama_server_become_probabilities_in_the_same_order(server):
    server.serve("llamacpp", logits=True)
    run = score(RerankEndpoint("llamacpp", server.root))
    expected = [1 / (1 + math.exp(-8 * (overlap(QUERY, p) - 0.5))) for p in PASSAGES]
    assert run.normalized == "sigmoid" and run.scores == pytest.approx(expected)
    assert run.raw == pytest.approx([8 * (overlap(QUERY, p) - 0.5) for p in PASSAGES])


@pytest.mark.parametrize("answer, error", [
    ([{"index": 0, "score": 0.5}, {"index": 2, "score": 0.1}], "missing: 1"),  # a passage left out
    ([{"index": 0, "score": 0.5}, {"index": 0, "score": 0.4}, {"index": 1, "score": 0.1}], "given twice"),
    ([{"index": 0, "score": 0.5}, {"index": 1, "score": 0.1}, {"index": 3, "score": 0.2}], "valid index"),
    ([{"index": "0", "score": 0.5}, {"index": 1, "score": 0.1}, {"index": 2, "score": 0.2}], "valid index"),
    ([{"index": 0, "score": "high"}, {"index": 1, "score": 0.1}, {"index": 2, "score": 0.2}], "score"),
    ([{"index": 0, "score": float("nan")}, {"index": 1, "score": 0.1}, {"index": 2, "score": 0.2}], "score"),
])
def test_an_answer_that_leaves_a_passage_without_one_good_score_fails_as_missing_scores(server, answer, error):
    server.script("/rerank", FakeResponse(json=answer))
    with pytest.raises(RerankScoresError) as caught:
        score(RerankEndpoint("tei", server.root), PASSAGES[:3])
    assert caught.value.reason == "missing_scores" and error in str(caught.value)


@pytest.mark.parametrize("response", [FakeResponse(body=b"<html>busy</html>"),
                                      FakeResponse(json={"error": "model is loading"}),
                                      FakeResponse(json={"scores": [0.1, 0.2, 0.3]})])
def test_a_body_without_a_scores_list_is_a_parse_error(server, response):
    server.script("/v1/rerank", response)
    with pytest.raises(RerankResponseError) as caught:
        score(RerankEndpoint("vllm", server.root), PASSAGES[:3])
    assert caught.value.reason == "parse_error" and len(server.requests) == 1


def test_a_4xx_is_not_retried_and_says_what_the_server_said_without_the_key(server):
    server.script("/v1/rerank", FakeResponse(status=400, json={"message": f"documents too long for key {KEY}"}))
    with pytest.raises(RerankEndpointError) as caught:
        score(RerankEndpoint("jina", server.root, api_key=KEY))
    assert caught.value.reason == "endpoint_error" and caught.value.status == 400
    assert "documents too long" in str(caught.value) and KEY not in str(caught.value)
    assert len(server.requests) == 1


@pytest.mark.parametrize("status, words", [(401, "refused the API key (401)"), (404, "no rerank endpoint")])
def test_a_refused_key_and_a_missing_endpoint_are_said_plainly(server, status, words):
    server.script("/v2/rerank", FakeResponse(status=status, json={"message": "no"}))
    with pytest.raises(RerankEndpointError) as caught:
        score(RerankEndpoint("cohere", server.root, api_key=KEY))
    assert words in str(caught.value) and len(server.requests) == 1


def test_a_5xx_is_retried_by_the_shared_loop_and_then_succeeds(server):
    path = server.serve("infinity")
    server.script(path, FakeResponse(status=503, json={"error": "busy"}), FakeResponse(status=502))
    run = score(RerankEndpoint("infinity", server.root))
    assert run.requests == 3 and len(server.requests) == 3
    assert run.scores == pytest.approx([overlap(QUERY, p) for p in PASSAGES])


def test_a_5xx_that_does_not_clear_is_an_endpoint_error_after_the_retries(server):
    server.handle("/rerank", lambda _request: FakeResponse(status=500, json={"error": "CUDA out of memory"}))
    with pytest.raises(RerankEndpointError) as caught:
        score(RerankEndpoint("tei", server.root))
    assert "answered 500: CUDA out of memory" in str(caught.value)
    assert len(server.requests) == 1 + FAST.max_retries


def test_the_time_budget_bounds_the_whole_call(server):
    server.serve("tei", delay=20.0)
    started = time.perf_counter()
    with pytest.raises(RerankTimeout) as caught:
        score(RerankEndpoint("tei", server.root), timeout=0.3)
    assert time.perf_counter() - started < 5.0  # the 0.3 s budget with room for a busy machine, not the 20 s
    assert caught.value.reason == "timeout" and "did not answer within 0.3 s" in str(caught.value)


def test_nobody_listening_is_an_endpoint_error_naming_the_address():
    with pytest.raises(RerankEndpointError) as caught:
        score(RerankEndpoint("llamacpp", "http://127.0.0.1:9"), timeout=5)
    assert "http://127.0.0.1:9/v1/rerank does not answer" in str(caught.value)


@pytest.mark.parametrize("base, url", [
    ("http://h:8080", "http://h:8080/v1/rerank"), ("http://h:8080/v1", "http://h:8080/v1/rerank"),
    ("http://h:8080/v1/rerank", "http://h:8080/v1/rerank"), ("http://h:8080/reranking/", "http://h:8080/reranking")])
def test_an_address_may_be_the_root_the_version_or_the_whole_endpoint(base, url):
    assert RerankEndpoint("llamacpp", base).url == url
    assert RerankEndpoint("custom", base).url == url


def test_cancelling_the_awaiting_task_stops_the_call_at_once_and_is_not_a_failure(server):
    server.serve("tei", delay=2.0)
    client = RerankClient(RerankEndpoint("tei", server.root), retry=FAST, timeout=30)

    async def cancel_soon() -> float:
        task = asyncio.ensure_future(client.score(QUERY, PASSAGES))
        await asyncio.sleep(0.2)
        started = time.perf_counter()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.perf_counter() - started

    assert asyncio.run(cancel_soon()) < 0.5
