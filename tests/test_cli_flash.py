"""`search --reranker flash`, `runs`, `export` and `key` as a user runs them, against a
scripted OpenAI-compatible server on 127.0.0.1 (real HTTP from the CLI's own process)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import resources
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest, chat_reply, tool_call
from tests.test_cli import ROOT

DEMO = resources.demo_export()
KEY = "sk-or-v1-cli-test-key-0123456789"


def run(*args: str, data_dir: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
                   "FLASHBACK_DATA_DIR": str(data_dir), **env}
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=environment, capture_output=True,
                          text=True, timeout=120)


def scripted_model(request: RecordedRequest) -> FakeResponse:
    """Turn 1 loads the first three topic candidates; turn 2 keeps the first two of them."""
    messages = request.body["messages"]
    shown = [int(i) for i in re.findall(r"\[Topic:(\d+)\]", messages[1]["content"])]
    if not any(m["role"] == "tool" for m in messages):
        return FakeResponse(json=chat_reply(tool_calls=[tool_call("get_topics_content", {"topic_ids": shown[:3]})],
                                            usage={"prompt_tokens": 900, "completion_tokens": 20, "cost": 0.0002}))
    answer = {"topic_ids": [{"id": f"Topic:{i}", "reason": f"talks about it ({n})"} for n, i in enumerate(shown[:2])]}
    return FakeResponse(json=chat_reply("Here you go:\n```json\n" + json.dumps(answer) + "\n```",
                                        usage={"prompt_tokens": 1500, "completion_tokens": 60, "cost": 0.0003}))


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("cli-flash") / "store"
    assert run("import", str(DEMO), data_dir=data).returncode == 0
    assert run("build", data_dir=data).returncode == 0
    return data


@pytest.fixture(scope="module")
def server():
    with FakeOpenAI() as fake:
        fake.handle("/v1/chat/completions", scripted_model)
        yield fake


def test_flash_search_json_has_tool_calls_usage_and_a_recorded_run(store, server):
    found = run("search", "hotel in Lisbon", "--reranker", "flash", "--endpoint", "openrouter",
                "--base-url", server.base_url, "--json", data_dir=store, FLASHBACK_API_KEY=KEY)
    assert found.returncode == 0, found.stderr
    result = json.loads(found.stdout)
    loaded = result["tool_calls"][0]
    assert result["reranker"] == "flash" and result["fallback"] is None and len(loaded) == 3
    assert [s["id"] for s in result["selected"]] == loaded[:2]
    assert result["selected"][0]["reason"].startswith("talks about it")
    assert result["usage"]["prompt_tokens"] == 2400 and result["usage"]["cost"] == pytest.approx(0.0005)
    assert {"rerank_turn_1", "rerank_turn_2"} <= result["timings_ms"].keys()
    assert server.requests[-1].headers["Authorization"] == f"Bearer {KEY}"

    runs = json.loads(run("runs", "--json", data_dir=store).stdout)
    newest = runs["runs"][0]
    assert newest["id"] == result["run_id"] and newest["reranker"] == "flash" and newest["tool_calls"] == 1
    shown = json.loads(run("runs", "--show", str(result["run_id"]), data_dir=store).stdout)
    assert shown["query"] == "hotel in Lisbon" and len(shown["trace"]["turns"]) == 2
    database = b"".join(p.read_bytes() for p in store.iterdir() if p.name.startswith("flashback"))
    assert KEY.encode() not in database, "the API key reached the store"


def test_export_markdown_holds_the_selected_topics(store, server, tmp_path):
    target = tmp_path / "context.md"
    done = run("export", "hotel in Lisbon", "--reranker", "flash", "--endpoint", "custom",
               "--base-url", server.base_url, "--model", "local-test", "--format", "md", "-o", str(target),
               data_dir=store)
    assert done.returncode == 0, done.stderr
    text = target.read_text(encoding="utf-8")
    assert "hotel in Lisbon" in text and "talks about it" in text and "Topic" in text
    as_json = json.loads(run("export", "hotel in Lisbon", "--format", "json", data_dir=store).stdout)
    assert as_json["items"] and all(item["kind"] in ("topic", "person", "artifact") for item in as_json["items"])


def test_flash_without_a_key_says_how_to_set_one(store):
    missing = run("search", "hotel", "--reranker", "flash", data_dir=store)
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert "flashback key set" in missing.stderr and "OPENROUTER_API_KEY" in missing.stderr
    no_model = run("search", "hotel", "--reranker", "flash", "--endpoint", "custom", "--base-url",
                   "http://127.0.0.1:9/v1", data_dir=store)
    assert no_model.returncode == 1 and "--model" in no_model.stderr


def test_key_show_never_prints_the_whole_key(store):
    shown = run("key", "show", data_dir=store, OPENROUTER_API_KEY=KEY)
    assert shown.returncode == 0 and KEY not in shown.stdout and KEY[-4:] in shown.stdout and "env" in shown.stdout


def test_search_since_until_keep_topics_of_those_days(store):
    found = run("search", "Postgres upgrade", "--reranker", "none", "--since", "2025-04-01", "--until", "2025-04-15",
                "--json", data_dir=store)
    assert found.returncode == 0, found.stderr
    dates = [c["date"] for c in json.loads(found.stdout)["candidates"] if c["kind"] == "topic"]
    assert dates and all("2025-04-01" <= d <= "2025-04-15" for d in dates)
    everything = json.loads(run("search", "Postgres upgrade", "--reranker", "none", "--json",
                                data_dir=store).stdout)["candidates"]
    assert any(c["date"] > "2025-04-15" for c in everything if c["kind"] == "topic")  # the filter did something
    bad = run("search", "x", "--since", "2025-13-01", data_dir=store)
    assert bad.returncode == 2 and "is not a day like" in bad.stderr and "Traceback" not in bad.stderr


def test_flash_on_a_llama_cpp_like_server_runs_constrained_turns(store):
    from tests.fake_openai import LocalServerModel

    with FakeOpenAI() as llama:
        llama.handle("/v1/chat/completions", LocalServerModel())
        found = run("search", "hotel in Lisbon", "--reranker", "flash", "--endpoint", "llamacpp",
                    "--base-url", llama.base_url, "--json", data_dir=store)
        assert found.returncode == 0, found.stderr
        payload = json.loads(found.stdout)
        report = payload["report"]
        assert payload["fallback"] is None and report["protocol"] == "constrained" and report["turns"] == 2
        sent = [r.body for r in llama.requests_to("/v1/chat/completions")]
        assert [b["response_format"]["type"] for b in sent] == ["json_object", "json_object"]
        assert "topic_ids" in sent[0]["response_format"]["schema"]["properties"]
        assert sent[1]["response_format"]["schema"]["properties"]["topic_ids"]["items"]["properties"]["reason"]
        assert all(b["max_tokens"] > 0 and "tools" not in b for b in sent)
        shown = {(c["kind"], c["id"]) for c in payload["candidates"]}
        assert payload["selected"] and all((s["kind"], s["id"]) in shown for s in payload["selected"])


def test_flash_recent_messages_are_rewritten_first(store):
    from tests.fake_openai import LocalServerModel

    model = LocalServerModel()

    def rewrite_then_model(request: RecordedRequest) -> FakeResponse:
        if "Do not guess" in request.body["messages"][0]["content"]:
            return FakeResponse(json=chat_reply("the Casa dos Remédios booking in Lisbon"))
        return model(request)
    with FakeOpenAI() as llama:
        llama.handle("/v1/chat/completions", rewrite_then_model)
        found = run("search", "where are we staying?", "--reranker", "flash", "--endpoint", "llamacpp",
                    "--base-url", llama.base_url, "--recent", "Anna: did you book the place in Alfama?",
                    "--json", data_dir=store)
        assert found.returncode == 0, found.stderr
        rewrite = json.loads(found.stdout)["report"]["rewrite"]
        assert rewrite["rewritten"] == "the Casa dos Remédios booking in Lisbon" and rewrite["used"] is True
        sent = [r.body for r in llama.requests_to("/v1/chat/completions")]
        assert len(sent) == 3 and sent[0]["max_tokens"] == 96
        assert "<contextualized_query>\nthe Casa dos Remédios booking in Lisbon" in sent[1]["messages"][1]["content"]
        off = run("search", "where are we staying?", "--reranker", "flash", "--endpoint", "llamacpp",
                  "--base-url", llama.base_url, "--recent", "Anna: hi", "--no-contextualize", "--json",
                  data_dir=store)
        assert off.returncode == 0 and json.loads(off.stdout)["report"]["rewrite"] is None


def test_recent_messages_rewrite_the_query_and_stage_1_searches_both(store, tmp_path):
    """`--recent`: one bounded rewrite call, stage 1 for both queries fused, the prompt holds both."""
    rewrite = "Lisbon hotel booking"

    def model(request: RecordedRequest) -> FakeResponse:
        if "tools" not in request.body and "response_format" not in request.body:  # the rewrite
            return FakeResponse(json=chat_reply(rewrite))
        return scripted_model(request)

    with FakeOpenAI() as fake:
        fake.handle("/v1/chat/completions", model)
        found = run("search", "where did we stay?", "--reranker", "flash", "--endpoint", "openrouter",
                    "--base-url", fake.base_url, "--recent", "Dan: that trip to Portugal was great", "--json",
                    data_dir=store, FLASHBACK_API_KEY=KEY)
        assert found.returncode == 0, found.stderr
        result = json.loads(found.stdout)
        rewrite_call, turn_1 = (r.body for r in fake.requests[:2])
        text = run("search", "where did we stay?", "--reranker", "flash", "--endpoint", "openrouter",
                   "--base-url", fake.base_url, "--recent", "Dan: that trip to Portugal was great",
                   data_dir=store, FLASHBACK_API_KEY=KEY).stdout
    assert rewrite_call["max_tokens"] > 0 and "Portugal" in rewrite_call["messages"][1]["content"]
    assert result["rewrite"]["used"] and result["rewrite"]["rewritten"] == rewrite
    assert result["report"]["rewrite"]["stage1"] is True and "rewrite_stage1" in result["timings_ms"]
    assert f"<contextualized_query>\n{rewrite}\n</contextualized_query>" in turn_1["messages"][1]["content"]
    as_typed = json.loads(run("search", "where did we stay?", "--json", data_dir=store).stdout)
    lisbon = json.loads(run("search", rewrite, "--json", data_dir=store).stdout)
    typed_ids = {c["id"] for c in as_typed["candidates"] if c["kind"] == "topic"}
    fused_ids = {c["id"] for c in result["candidates"] if c["kind"] == "topic"}
    lisbon_top = lisbon["candidates"][0]["id"]
    assert lisbon_top in fused_ids and lisbon_top not in typed_ids  # only the rewrite found it
    assert f"searched also as: {rewrite}" in text and "protocol tools" in text
