"""`flashback build --llm`: seed 004's splitter and merger on a chat model, as a user runs it,
against a scripted OpenAI-compatible server on 127.0.0.1 (real HTTP from the CLI process)."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from tests.engine.topics.conftest import BASE, line, write_jsonl
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest, chat_reply
from tests.test_cli_flash import KEY, run

TRIP = [("Ann", "Let's plan the Lisbon trip: flights on the 12th?"), ("Bob", "TAP has a 9:40 direct flight"),
        ("Ann", "Book it. Hotel in Alfama?"), ("Bob", "Casa dos Remédios, twin room, 3 nights"),
        ("Ann", "Different thing: my bike needs new brakes"), ("Bob", "Try the shop on Rua Augusta")]
BROKEN = [("Cy", "Did the invoice go out?"), ("Di", "Yes, yesterday, 1,200 EUR"),
          ("Cy", "Great, thanks"), ("Di", "Reminder set for the 30th")]


def scripted_agents(request: RecordedRequest) -> FakeResponse:
    """Splits each chat log in two halves; says something that is not JSON for the chat "Ledger";
    never merges."""
    prompt = request.body["messages"][1]["content"]
    if "<chat_log>" in prompt:
        if prompt.startswith("Chat: Ledger"):
            return FakeResponse(json=chat_reply("Sorry, I can't help with that."))
        ids = [int(i) for i in re.findall(r"^\[(\d+)\]", prompt, flags=re.MULTILINE)]
        half = len(ids) // 2
        topics = [{"summary": "Model: Lisbon flights and the Alfama hotel", "start_msg_id": ids[0],
                   "end_msg_id": ids[half - 1]},
                  {"summary": "Model: new bike brakes", "start_msg_id": ids[half], "end_msg_id": ids[-1]}]
        return FakeResponse(json=chat_reply(json.dumps({"topics": topics})))
    return FakeResponse(json=chat_reply(json.dumps({"should_merge": False, "reason": "different subjects",
                                                    "merged_summary": ""})))


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        fake.handle("/v1/chat/completions", scripted_agents)
        yield fake


def export(tmp_path):
    rows = [line("Trip", n, author, BASE + 60 * n, text) for n, (author, text) in enumerate(TRIP)]
    rows += [line("Ledger", 100 + n, author, BASE + 60 * n, text) for n, (author, text) in enumerate(BROKEN)]
    return write_jsonl(tmp_path / "chats.jsonl", rows)


def test_build_with_the_chat_model_makes_its_topics_and_falls_back_per_chunk(tmp_path, server):
    data = tmp_path / "store"
    assert run("import", str(export(tmp_path)), data_dir=data).returncode == 0
    built = run("build", "--llm", "--endpoint", "openrouter", "--base-url", server.base_url, "--model", "test/model",
                "--json", data_dir=data, FLASHBACK_API_KEY=KEY)
    assert built.returncode == 0, built.stderr
    agents = json.loads(built.stdout)["agents"]
    assert agents["model"] == "test/model" and agents["split_chunks"] == 1
    assert agents["fallbacks"] == {"parse_error": 1}
    assert KEY not in built.stdout + built.stderr

    store = sqlite3.connect(data / "flashback.sqlite3")
    summaries = {title: [s for (s,) in store.execute(
        "SELECT t.summary FROM topic t JOIN chat c ON c.id = t.chat_id WHERE c.title = ? ORDER BY t.first_at",
        (title,))] for title in ("Trip", "Ledger")}
    assert summaries["Trip"] == ["Model: Lisbon flights and the Alfama hotel", "Model: new bike brakes"]
    assert len(summaries["Ledger"]) == 1 and "invoice" in summaries["Ledger"][0].lower()  # extractive
    assert store.execute("SELECT count(*) FROM message WHERE topic_id IS NULL").fetchone() == (0,)
    store.close()
    calls = server.requests_to("/v1/chat/completions")
    assert calls and all({k.lower(): v for k, v in r.headers.items()}["authorization"] == f"Bearer {KEY}"
                         for r in calls)
    assert all(r.body["model"] == "test/model" and r.body["response_format"] == {"type": "json_object"}
               for r in calls)
    for path in data.rglob("*"):  # the key reaches the server and nothing on disk
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path

    plain = run("build", "--llm", "--endpoint", "openrouter", data_dir=data)  # no key anywhere
    assert plain.returncode != 0 and "flashback key set" in plain.stderr and "Traceback" not in plain.stderr


def test_build_without_llm_sends_nothing(tmp_path, server):
    data = tmp_path / "store"
    assert run("import", str(export(tmp_path)), data_dir=data).returncode == 0
    built = run("build", "--json", data_dir=data, FLASHBACK_API_KEY=KEY)
    assert built.returncode == 0 and json.loads(built.stdout)["agents"] == {}
    assert server.requests_to("/v1/chat/completions") == []


def many_chats(tmp_path, count: int):
    rows = [line(f"Chat {c}", 1000 * c + n, author, BASE + 60 * n, text)
            for c in range(count) for n, (author, text) in enumerate(TRIP)]
    return write_jsonl(tmp_path / "many.jsonl", rows)


def test_build_against_a_local_server_sends_one_request_at_a_time(tmp_path, server):
    import threading
    import time

    state = {"now": 0, "most": 0}
    lock = threading.Lock()

    def one_at_a_time(request: RecordedRequest) -> FakeResponse:
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return scripted_agents(request)
    server.handle("/v1/chat/completions", one_at_a_time)
    data = tmp_path / "store"
    assert run("import", str(many_chats(tmp_path, 4)), data_dir=data).returncode == 0
    built = run("build", "--llm", "--endpoint", "llamacpp", "--base-url", server.base_url, "--json", data_dir=data)
    assert built.returncode == 0, built.stderr
    calls = server.requests_to("/v1/chat/completions")
    assert len(calls) >= 4 and state["most"] == 1
    assert all(isinstance(r.body.get("max_tokens"), int) for r in calls)


def test_build_stops_after_a_few_failures_in_a_row_naming_the_server(tmp_path, server):
    import time

    server.handle("/v1/chat/completions", lambda r: FakeResponse(status=503, json={"error": {"message": "loading"}}))
    data = tmp_path / "store"
    assert run("import", str(many_chats(tmp_path, 8)), data_dir=data).returncode == 0
    started = time.monotonic()
    built = run("build", "--llm", "--endpoint", "llamacpp", "--base-url", server.base_url, data_dir=data)
    assert built.returncode != 0 and "Traceback" not in built.stderr
    assert f"llama.cpp server at {server.base_url} failed 3 times in a row" in built.stderr
    assert len(server.requests_to("/v1/chat/completions")) == 9  # 3 calls × (1 + 2 retries), then none
    assert time.monotonic() - started < 60
