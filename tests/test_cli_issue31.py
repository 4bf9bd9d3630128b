"""Issue 31's findings as a user meets them on the command line: a real child process, a
scripted OpenAI-compatible server on 127.0.0.1 where a model is needed."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.store.lock import current_holder
from tests.cli_run import DEMO, ROOT, flashback, one_sentence
from tests.engine.topics.conftest import BASE, line, write_jsonl
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest, chat_reply

KEY = "sk-or-v1-issue31-test-key-0123456789"


def closed_port_url() -> str:
    """The base URL of a port nothing listens on: bound, then closed (connection refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def wait_for(condition, seconds: float = 60.0) -> None:
    """Poll `condition` until it holds; fail (not hang) after a bound no loaded machine reaches."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)


# -- a. a Flash timeout names the budget the person set -----------------------------------------

def test_flash_turn_timeout_names_the_timeout_the_user_set(built_demo):
    released = threading.Event()

    def slow(_request: RecordedRequest) -> FakeResponse:
        released.wait(30)  # answers only after the client gave up
        return FakeResponse(json=chat_reply("too late"))

    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", slow)
        found = flashback("search", "hotel in Lisbon", "--reranker", "flash", "--endpoint", "custom", "--model", "m",
                          "--base-url", server.base_url, "--timeout", "3", "--json", data_dir=built_demo)
        released.set()
    assert found.returncode == 0, found.stderr
    result = json.loads(found.stdout)
    said = result["fallback_reason"]
    assert result["fallback"] == "turn_timeout"
    # turn 1 may use half of the 3 s: both numbers are said, and which one the person set
    assert "1.5 s" in said and "3 s timeout" in said and "turn 1" in said, said


# -- b. Ctrl+C says what a build and an import leave behind -------------------------------------

def interrupt_when(process: subprocess.Popen, condition) -> str:
    wait_for(condition)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    return stderr


def spawn(*args: str, data_dir: Path, **env: str) -> subprocess.Popen:
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environment.update({"FLASHBACK_DATA_DIR": str(data_dir), **env})
    return subprocess.Popen([sys.executable, "-m", "app", *args], cwd=ROOT, env=environment, text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_ctrl_c_during_build_says_the_work_so_far_is_kept(tmp_path):
    rows = [line("Trip", n, "Ann" if n % 2 else "Bob", BASE + 60 * n, f"Lisbon plan, point {n}") for n in range(12)]
    data = tmp_path / "store"
    assert flashback("import", str(write_jsonl(tmp_path / "chats.jsonl", rows)), data_dir=data).returncode == 0
    held = threading.Event()

    def never_answers(_request: RecordedRequest) -> FakeResponse:
        held.wait(60)
        return FakeResponse(json=chat_reply("{}"))

    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", never_answers)
        build = spawn("build", "--llm", "--endpoint", "custom", "--base-url", server.base_url, "--model", "m",
                      data_dir=data)
        try:
            stderr = interrupt_when(build, lambda: server.requests_to("/v1/chat/completions"))
        finally:
            held.set()
    last = stderr.strip().splitlines()[-1]
    assert "unfinished import" not in stderr
    assert "build stopped" in last and "kept" in last and "continues" in last, last


def test_ctrl_c_during_import_says_the_import_left_nothing(tmp_path):
    """A long export: Ctrl+C comes once the import holds the store's write lock for its
    transaction (it is reading and writing), surely before it ends. (It was a named pipe the
    test wrote slowly; issue 34 refuses pipes unopened: one may never speak.)"""
    rows = [line("Trip", n, "Ann", BASE + 60 * n, f"message {n} about the trip") for n in range(300_000)]
    path = write_jsonl(tmp_path / "chats.jsonl", rows)
    data = tmp_path / "store"
    importing = spawn("import", str(path), data_dir=data)

    def importing_now() -> bool:
        holder = current_holder(data) if data.exists() else None
        return holder is not None and holder.operation == "import" and holder.pid == importing.pid

    stderr = interrupt_when(importing, importing_now)
    last = stderr.strip().splitlines()[-1]
    assert "import" in last and "left nothing" in last, stderr
    stats = flashback("stats", "--json", data_dir=data)
    assert stats.returncode == 0 and json.loads(stats.stdout)["messages"] == 0, stats.stdout


# -- c. a bad date is one sentence, not 30 lines of usage ---------------------------------------

DATE_MISTAKES = [("--since", "2024-05-02", "--until", "2024-05-01"), ("--since", "2024-13-01"), ("--until", "May")]


@pytest.mark.parametrize("command", [("search", "q"), ("ask", "q"), ("export", "q"), ("eval", "qrels.json")])
@pytest.mark.parametrize("dates", DATE_MISTAKES)
def test_a_date_mistake_is_one_sentence_and_exit_2(built_demo, command, dates):
    refused = flashback(*command, *dates, data_dir=built_demo)
    assert refused.returncode == 2 and one_sentence(refused.stderr), refused.stderr
    assert "usage:" not in refused.stderr and refused.stdout == ""
    assert ("comes after" in refused.stderr) if len(dates) == 4 else ("is not a day like" in refused.stderr)


# -- d. a mistyped --data-dir is refused, and nothing is created ---------------------------------

@pytest.mark.parametrize("command", [("search", "hotel"), ("ask", "hotel?"), ("chats",), ("stats",), ("runs",),
                                     ("export", "hotel"), ("mcp",), ("eval", "qrels.json")])
def test_a_reading_command_on_a_folder_without_data_refuses_and_creates_nothing(tmp_path, command):
    typo = tmp_path / "flashbak" / "data"
    refused = flashback("--data-dir", str(typo), *command, data_dir=tmp_path / "unused")
    assert refused.returncode == 2 and one_sentence(refused.stderr), refused.stderr
    assert f"no Flashback data in {typo}" in refused.stderr and "--data-dir" in refused.stderr
    assert not typo.exists() and not typo.parent.exists()
    assert not (tmp_path / "unused").exists()


def test_import_still_creates_the_folder_it_is_given(tmp_path):
    fresh = tmp_path / "new" / "data"
    assert flashback("--data-dir", str(fresh), "import", str(DEMO), data_dir=tmp_path / "unused").returncode == 0
    found = flashback("--data-dir", str(fresh), "stats", "--json", data_dir=tmp_path / "unused")
    assert found.returncode == 0 and json.loads(found.stdout)["messages"] > 0


# -- e. a chat server that is down is said to be unreachable, with its address ------------------

def test_ask_against_a_server_that_is_down_names_it_and_gives_the_sources(built_demo):
    url = closed_port_url()
    asked = flashback("ask", "where did I stay in Lisbon", "--endpoint", "custom", "--model", "m",
                      "--base-url", url, "--threshold", "0.99", data_dir=built_demo)
    assert asked.returncode == 0, asked.stderr
    assert f"Could not reach the LLM server at {url}" in asked.stderr and "No written answer" in asked.stderr
    assert "Not found in your chats" not in asked.stdout and "Sources:" in asked.stdout, asked.stdout
    assert "no answer (the model's server could not be reached)" in asked.stdout, asked.stdout
    as_json = json.loads(flashback("ask", "where did I stay in Lisbon", "--endpoint", "custom", "--model", "m",
                                   "--base-url", url, "--json", data_dir=built_demo).stdout)
    steps = {step["name"]: step for step in as_json["steps"]}
    assert steps["plan"]["fallback"] == "unreachable" and steps["answer"]["fallback"] == "unreachable"


def test_search_fallback_names_an_unreachable_server_in_both_languages(built_demo):
    from engine.api import render
    from engine.rerank.base import fallback_message

    url = closed_port_url()
    found = flashback("search", "hotel in Lisbon", "--reranker", "flash", "--endpoint", "custom", "--model", "m",
                      "--base-url", url, "--json", data_dir=built_demo)
    result = json.loads(found.stdout)
    assert result["fallback"] == "llm_error" and f"Could not reach the LLM server at {url}" in result["fallback_reason"]
    # the reason's name no longer says the server answered (it never did)
    assert "ответил" not in render(fallback_message("llm_error"), "ru")


def test_a_russian_search_says_kinds_fallbacks_and_errors_in_russian(built_demo):
    """`FLASHBACK_LANG=ru flashback search` printed the candidates' kinds ("topic"), the
    fallback's "fallback:" line, the unreachable server's sentence and "error:" in English."""
    ru = {"FLASHBACK_LANG": "ru"}
    url = closed_port_url()
    found = flashback("search", "отель в Лиссабоне", "--reranker", "flash", "--endpoint", "custom", "--model", "m",
                      "--base-url", url, data_dir=built_demo, env=ru)
    assert found.returncode == 0, found.stderr
    own_lines = [line for line in found.stdout.splitlines() if not line.startswith(("✔ ", "  "))]
    assert any(line.startswith("откат: ") for line in own_lines), found.stdout
    assert "недоступен" in found.stdout and url in found.stdout, found.stdout  # the cause, in Russian
    for english in ("fallback", "topic ", "person ", "Could not reach", "tool calls"):
        assert english not in found.stdout, (english, found.stdout)
    assert found.stdout.splitlines()[0].split()[1] in ("тема", "человек", "файл", "сообщение")
    refused = flashback("--data-dir", str(built_demo / "nope"), "search", "x", data_dir=built_demo, env=ru)
    assert refused.returncode == 2 and refused.stderr.startswith("ошибка: "), refused.stderr
