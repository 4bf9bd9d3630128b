"""`flashback mcp` driven by the official MCP SDK's client over stdio, on a store built from the
bundled demo: the tools and their schemas, each tool, bad arguments, an empty and an unbuilt
store, the window's saved settings, Run history, the client's language and a clean stdout."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from engine.api import Flashback
from tests.cli_run import DEMO, flashback
from tests.mcp_client import (
    CLIENT,
    ROOT,
    documented_tools,
    error_text,
    session_run,
    structured,
    tools_as_seen,
    write_window_settings,
)

TOOLS = {"search_memory", "get_topic", "get_context", "list_chats", "ask_memory", "get_profile", "search_facts"}


@pytest.fixture(scope="module")
def store(built_demo, tmp_path_factory):
    return shutil.copytree(built_demo, tmp_path_factory.mktemp("mcp") / "data")


def test_tools_have_typed_documented_parameters_and_output_schemas(store, tmp_path):
    tools = session_run(store, tmp_path / "err.log", lambda s: s.list_tools()).tools
    assert {t.name for t in tools} == TOOLS
    by_name = {t.name: t for t in tools}
    for tool in tools:
        assert tool.description and tool.output_schema and tool.annotations.read_only_hint is True
        for name, spec in tool.input_schema.get("properties", {}).items():
            assert spec.get("description"), f"{tool.name}.{name} is not documented"
    search = by_name["search_memory"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["reranker"]["enum"] == ["threshold", "flash", "cross-encoder", "none"]
    assert (search["properties"]["limit"]["minimum"], search["properties"]["limit"]["maximum"]) == (1, 50)
    budget = by_name["get_context"].input_schema["properties"]["budget_tokens"]["anyOf"][0]
    assert (budget["minimum"], budget["maximum"]) == (100, 200_000)  # the engine's settings schema
    assert by_name["get_topic"].input_schema["required"] == ["id"]
    assert set(by_name["ask_memory"].output_schema["properties"]) >= {"answer", "sources", "claims"}
    assert tools_as_seen(tools) == documented_tools(), \
        "docs/mcp.md shows other schemas: regenerate its block with `python -m tests.mcp_client DATA_DIR`"


def test_each_tool_answers_and_each_search_is_recorded_with_the_client_name(store, tmp_path):
    async def work(session):
        return {
            "chats": structured(await session.call_tool("list_chats", {})),
            "search": structured(await session.call_tool("search_memory", {"query": "hotel in Lisbon",
                                                                           "include_candidates": True})),
            "filtered": structured(await session.call_tool("search_memory", {
                "query": "hotel", "chat": "dan", "since": "2025-05-01", "until": "2025-05-31", "reranker": "none"})),
            "page1": structured(await session.call_tool("get_topic", {"id": 23, "limit": 2})),
            "page2": structured(await session.call_tool("get_topic", {"id": 23, "offset": 2, "limit": 200})),
            "context": structured(await session.call_tool("get_context", {"query": "hotel in Lisbon",
                                                                          "budget_tokens": 600})),
            "ask": structured(await session.call_tool("ask_memory", {"question": "which hotel did we book?"})),
        }
    before = {run.id for run in Flashback(store).runs.list(500)}
    got = session_run(store, tmp_path / "err.log", work)

    chats = {c["name"]: c for c in got["chats"]["chats"]}
    assert chats["Dan Whitfield"]["messages"] == 79 and chats["Dan Whitfield"]["format"] == "telegram"
    assert chats["Dan Whitfield"]["first_date"] <= chats["Dan Whitfield"]["last_date"]

    search = got["search"]
    top = search["selected"][0]
    assert search["reranker"] == "threshold" and 1 <= len(search["selected"]) <= 3  # top_k 3 by default
    assert top["kind"] == "topic" and top["chat"] == "Dan Whitfield" and "Alfama" in top["summary"]
    assert top["first_date"] == "2025-05-24" and 0 < top["score"] <= 1 and top["reason"].startswith("score")
    assert sum(c["selected"] for c in search["candidates"]) == len(search["selected"]) < len(search["candidates"])
    assert all(item["chat"] == "Dan Whitfield" and "2025-05" in item["first_date"]
               for item in got["filtered"]["selected"] if item["kind"] == "topic")

    page1, page2 = got["page1"], got["page2"]
    assert page1["id"] == 23 and len(page1["messages"]) == 2 and page1["next_offset"] == 2
    assert page2["offset"] == 2 and page2["next_offset"] is None
    assert len(page1["messages"]) + len(page2["messages"]) == page1["total_messages"]
    assert page1["messages"][0]["author"] == "Dan Whitfield" and page1["messages"][0]["time"].startswith("2025-05-24T")

    context = got["context"]
    assert context["markdown"].startswith("# Context for: hotel in Lisbon") and "## Topic 23" in context["markdown"]
    assert context["used_tokens"] <= context["budget_tokens"] == 600

    ask = got["ask"]  # no chat model is set: the sources found, and what to set
    assert ask["answer"] is None and ask["fallback"] == "no_model" and ask["sources"][0]["number"] == 1
    assert any("FLASHBACK_API_KEY" in note for note in ask["notes"])

    runs = Flashback(store).runs
    recorded = [runs.get(summary.id) for summary in runs.list(500) if summary.id not in before]
    assert sorted(run.reranker for run in recorded) == ["ask", "none", "threshold", "threshold"]
    assert {run.client for run in recorded} == {CLIENT}
    assert search["run_id"] in {run.id for run in recorded}


def test_the_windows_saved_settings_apply(store, tmp_path):
    data = shutil.copytree(store, tmp_path / "data")
    write_window_settings(data, {"top_k": "1", "threshold": "0.2", "gap": "0.9", "budget_tokens": "300"})

    async def work(session):
        return (structured(await session.call_tool("search_memory", {"query": "hotel in Lisbon"})),
                structured(await session.call_tool("get_context", {"query": "hotel in Lisbon"})))
    search, context = session_run(data, tmp_path / "err.log", work)
    kinds = [item["kind"] for item in search["selected"]]
    assert kinds.count("topic") == 1 and len(kinds) == len(set(kinds))  # top-K 1 of each kind
    assert context["budget_tokens"] == 300
    recorded = Flashback(data).runs.get(search["run_id"])
    assert recorded.settings["reranker"]["top_k"] == 1 and recorded.settings["reranker"]["threshold"] == 0.2


BAD_CALLS = [
    ("search_memory", {}, "The argument query is required."),
    ("search_memory", {"query": "   "}, None),
    ("search_memory", {"query": "x", "limit": 99}, "The argument limit must be a whole number from 1 to 50."),
    ("search_memory", {"query": "x", "reranker": "magic"}, "The argument reranker is not valid"),
    ("search_memory", {"query": "x", "since": "2024-13-01"}, "since must be a day like 2024-05-31"),
    ("search_memory", {"query": "x", "since": "2025-06-01", "until": "2025-05-01"}, "is after until"),
    ("search_memory", {"query": "x", "chat": "nobody at all"}, "list_chats lists them"),
    ("search_memory", {"query": "x", "chat": "a"}, "give its id or more of its name"),
    ("search_memory", {"qurey": "x"}, "search_memory has no argument 'qurey'"),
    ("search_memory", {"query": "x", "reranker": "flash"}, "No API key for openrouter"),
    ("get_topic", {"id": 999999}, "999999"),
    ("get_topic", {"id": 23, "offset": 500}, "past the topic's"),
    ("get_topic", {"id": "twenty"}, "The argument id must be a whole number from 1 to"),
    ("get_context", {"query": "x", "budget_tokens": 5}, "budget_tokens must be a whole number from 100 to 200000."),
    ("ask_memory", {"question": "x", "until": "yesterday"}, "until must be a day"),
]


def test_bad_arguments_are_tool_errors_of_one_sentence(store, tmp_path):
    async def work(session):
        return [await session.call_tool(name, args) for name, args, _ in BAD_CALLS]
    results = session_run(store, tmp_path / "err.log", work)
    for (name, args, expected), result in zip(BAD_CALLS, results, strict=True):
        text = error_text(result)
        assert "\n" not in text and "Error executing tool" not in text and "Traceback" not in text, (name, text)
        assert text.endswith("."), text
        if expected:
            assert expected in text, (name, args, text)


def test_errors_speak_the_language_the_client_configured(store, tmp_path):
    async def work(session):
        return [error_text(await session.call_tool("search_memory", {})),
                error_text(await session.call_tool("get_topic", {"id": 999999})),
                error_text(await session.call_tool("search_memory", {"query": " "}))]
    missing, no_topic, empty = session_run(store, tmp_path / "err.log", work, env={"FLASHBACK_LANG": "ru"})
    assert missing == "Нужен аргумент query."
    assert "999999" in no_topic and any("а" <= ch <= "я" for ch in no_topic)  # the engine's code, in Russian
    assert any("а" <= ch <= "я" for ch in empty)


def test_an_empty_store_says_to_import_and_build(tmp_path):
    async def work(session):
        return (error_text(await session.call_tool("search_memory", {"query": "hotel"})),
                structured(await session.call_tool("list_chats", {})),
                error_text(await session.call_tool("ask_memory", {"question": "where?"})))
    Flashback(tmp_path / "empty").store.stats()  # an empty store (a folder without one is refused: issue 31)
    search, chats, ask = session_run(tmp_path / "empty", tmp_path / "err.log", work)
    assert "flashback import" in search and "flashback build" in search and search == ask
    assert chats["chats"] == [] and "flashback import" in chats["notes"][0]


def test_an_unbuilt_store_says_how_to_build_and_is_not_built(tmp_path):
    data = tmp_path / "data"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0

    async def work(session):
        return (error_text(await session.call_tool("search_memory", {"query": "hotel"})),
                error_text(await session.call_tool("get_context", {"query": "hotel"})),
                structured(await session.call_tool("list_chats", {})))
    search, context, chats = session_run(data, tmp_path / "err.log", work)
    assert "`flashback build`" in search and search == context
    assert len(chats["chats"]) >= 5  # reads still work
    status = Flashback(data).memory.status()
    assert status.vectors == 0 and not status.topics, "the server built the store"


def test_stdout_carries_only_the_protocol(store, tmp_path):
    """Raw JSON-RPC lines on the server's stdin; every line it writes on stdout must be one."""
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                 "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "search_memory", "arguments": {"query": "hotel in Lisbon"}}},
             {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_topic", "arguments": {}}}]
    process = subprocess.Popen([sys.executable, "-m", "app", "--data-dir", str(store), "mcp"], cwd=ROOT,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    answered: list[dict] = []
    try:
        for line in lines:
            process.stdin.write(json.dumps(line) + "\n")
            process.stdin.flush()
            if "id" in line:
                answered.append(json.loads(process.stdout.readline()))
        rest, _ = process.communicate(timeout=60)  # closes stdin: the server ends with it
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert [a["id"] for a in answered] == [1, 2, 3] and rest.strip() == ""
    assert answered[1]["result"]["structuredContent"]["selected"]
    assert answered[2]["result"]["isError"] is True
