"""`search --reranker cross-encoder` and `--reranker flash --chain-cross-encoder` as a user runs
them: a real child process, a scripted rerank server (and chat model) on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_run import DEMO, flashback, one_sentence
from tests.fake_openai import FakeOpenAI, FakeResponse, LocalServerModel
from tests.fake_rerank import FakeRerank

QUERY = "hotel in Lisbon"
EVERY_QUERY = ("--no-ce-skip-small", "--no-ce-skip-flat")  # the demo's few candidates would be skipped


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("cli-cross-encoder") / "store"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    assert flashback("build", data_dir=data).returncode == 0
    return data


@pytest.fixture
def rerank():
    with FakeRerank() as fake:
        yield fake


def search(store: Path, *args: str, env: dict[str, str] | None = None):
    return flashback("search", QUERY, *args, data_dir=store, env=env)


def test_cross_encoder_search_json_has_its_scores_reasons_and_a_recorded_run(store, rerank):
    rerank.serve("tei")
    found = search(store, "--reranker", "cross-encoder", "--rerank-endpoint", "tei", "--rerank-url", rerank.root,
                   "--ce-top-k", "2", "--ce-threshold", "0", *EVERY_QUERY, "--json")
    assert found.returncode == 0, found.stderr
    shaped = json.loads(found.stdout)
    assert shaped["reranker"] == "cross-encoder" and shaped["fallback"] is None and shaped["run_id"]
    topics = [s for s in shaped["selected"] if s["kind"] == "topic"]
    best = shaped["report"]["scores"][:2]
    assert [s["id"] for s in topics] == [entry["id"] for entry in best]
    assert [s["reason"] for s in topics] == [f"cross-encoder score {entry['score']:.2f}" for entry in best]
    (request,) = rerank.requests
    assert request.path == "/rerank" and request.body["query"] == QUERY and request.body["truncate"] is True
    assert len(request.body["texts"]) == shaped["report"]["sent"] == len(
        [c for c in shaped["candidates"] if c["kind"] == "topic"])


def test_a_failing_server_is_the_named_fallback_in_json_and_in_words(store, rerank):
    rerank.handle("/v1/rerank", lambda _request: FakeResponse(status=500, json={"error": "model crashed"}))
    args = ("--reranker", "cross-encoder", "--rerank-url", rerank.root, *EVERY_QUERY)
    found = search(store, *args, "--json")
    assert found.returncode == 0, found.stderr
    shaped = json.loads(found.stdout)
    assert shaped["fallback"] == "endpoint_error" and shaped["report"]["failed"]
    assert "llama.cpp server answered 500: model crashed" in shaped["report"]["error"]
    assert all(s["reason"].startswith("fallback (the rerank server answered with an error): vector rank")
               for s in shaped["selected"] if s["kind"] == "topic")
    said = search(store, *args)
    assert said.returncode == 0
    assert "fallback: the rerank server answered with an error (llama.cpp server answered 500" in said.stdout


def test_an_api_preset_reads_its_own_key_and_refuses_to_run_without_one(store, rerank):
    rerank.serve("voyage")
    args = ("--reranker", "cross-encoder", "--rerank-endpoint", "voyage", "--rerank-url", rerank.root, *EVERY_QUERY,
            "--json")
    missing = search(store, *args, env={"FLASHBACK_API_KEY": "sk-or-chat-key-not-for-voyage"})
    assert missing.returncode != 0 and one_sentence(missing.stderr)
    assert "No API key for voyage" in missing.stderr and "VOYAGE_API_KEY" in missing.stderr
    found = search(store, *args, env={"VOYAGE_API_KEY": "pa-voyage-test-key-0123456789"})
    assert found.returncode == 0, found.stderr
    (request,) = rerank.requests
    assert request.headers["Authorization"] == "Bearer pa-voyage-test-key-0123456789"
    assert request.body["model"] == "rerank-2.5" and request.body["top_k"] == len(request.body["documents"])
    assert "pa-voyage-test-key" not in found.stdout


def test_a_local_server_never_gets_the_chat_key(store, rerank):
    rerank.serve("llamacpp")
    found = search(store, "--reranker", "cross-encoder", "--rerank-url", rerank.root, *EVERY_QUERY, "--json",
                   env={"FLASHBACK_API_KEY": "sk-or-chat-key-0123456789"})
    assert found.returncode == 0, found.stderr
    assert "Authorization" not in rerank.requests[0].headers


@pytest.mark.parametrize("args, words", [
    (("--reranker", "cross-encoder", "--rerank-endpoint", "custom"), "needs an address"),
    (("--reranker", "threshold", "--chain-cross-encoder"), "use it with --reranker flash"),
    (("--reranker", "cross-encoder", "--ce-threshold", "2"), "must be between 0 and 1"),
])
def test_a_mistake_is_one_sentence_before_anything_is_sent(store, args, words):
    found = search(store, *args)
    assert found.returncode != 0 and words in found.stderr
    assert "Traceback" not in found.stderr


def test_flash_chained_after_the_cross_encoder_reports_the_chain(store, rerank):
    rerank.serve("tei")
    with FakeOpenAI() as chat:
        chat.handle("/v1/chat/completions", LocalServerModel(forces=frozenset({"required", "named"}), picks=3))
        found = search(store, "--reranker", "flash", "--endpoint", "custom", "--base-url", chat.base_url,
                       "--model", "test/flash", "--protocol", "tools", "--chain-cross-encoder", "--chain-keep", "3",
                       "--rerank-endpoint", "tei", "--rerank-url", rerank.root, *EVERY_QUERY, "--json")
        assert found.returncode == 0, found.stderr
        shaped = json.loads(found.stdout)
        chain = shaped["report"]["chain"]
        assert shaped["reranker"] == "flash" and chain["after"] == 3 and chain["fallback"] is None
        assert "usage" in shaped and "tool_calls" in shaped
        said = search(store, "--reranker", "flash", "--endpoint", "custom", "--base-url", chat.base_url,
                      "--model", "test/flash", "--protocol", "tools", "--chain-cross-encoder", "--chain-keep", "3",
                      "--rerank-endpoint", "tei", "--rerank-url", rerank.root, *EVERY_QUERY)
        assert said.returncode == 0, said.stderr
        assert "chained: the cross-encoder left Flash 3 of" in said.stdout
