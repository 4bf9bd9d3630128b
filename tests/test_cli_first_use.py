"""What a first user meets on the command line: search right after import, chats by name,
an empty query, why Flash fell back, and output written in words and units."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli_run import DEMO, flashback, one_sentence
from tests.fake_openai import FakeOpenAI, FakeResponse

KEY = "sk-or-v1-first-use-test-key-0123456789"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("cli-first-use") / "store"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    assert flashback("build", data_dir=data).returncode == 0
    return data


def test_search_right_after_import_builds_the_memory_first(tmp_path):
    data = tmp_path / "store"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    found = flashback("search", "hotel in Lisbon", "--json", data_dir=data)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["candidates"], "nothing found: the search ran on an unbuilt store"
    assert "building the memory first" in found.stderr and "\r" not in found.stderr
    again = flashback("search", "hotel in Lisbon", "--json", data_dir=data)
    assert again.stderr == ""  # built once: nothing to do, nothing to say


def test_search_with_an_api_embedder_before_build_says_to_build(tmp_path):
    data = tmp_path / "store"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    with FakeOpenAI() as server:
        found = flashback("search", "hotel", "--embedder", "custom", "--embedding-base-url", server.base_url,
                          "--embedding-model", "e", data_dir=data)
        assert not server.requests, "nothing needs sending to say that nothing is built yet"
    assert found.returncode == 1 and one_sentence(found.stderr), found.stderr
    assert f"flashback build --embedder custom --embedding-model e --embedding-base-url {server.base_url}" \
        in found.stderr


def test_search_with_another_embedder_than_the_build_does_not_rebuild_over_it(tmp_path):
    data = tmp_path / "store"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    with FakeOpenAI() as server:
        options = ("--embedder", "custom", "--embedding-base-url", server.base_url, "--embedding-model", "e")
        assert flashback("build", *options, data_dir=data).returncode == 0
        found = flashback("search", "hotel", data_dir=data)  # the built-in embedder: nothing built for it
        assert found.returncode == 1 and one_sentence(found.stderr) and "another embedder" in found.stderr
        assert flashback("search", "hotel", *options, "--json", data_dir=data).returncode == 0  # still there


def test_search_on_an_empty_store_says_to_import(tmp_path):
    found = flashback("search", "hotel", data_dir=tmp_path / "empty")  # no store there: a usage mistake (issue 31)
    assert found.returncode == 2 and one_sentence(found.stderr) and "flashback import" in found.stderr


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_refused_and_not_recorded(store, query):
    before = json.loads(flashback("runs", "--json", data_dir=store).stdout)["metrics"]["runs"]
    found = flashback("search", query, data_dir=store)
    assert found.returncode == 1 and one_sentence(found.stderr) and "query is empty" in found.stderr
    assert json.loads(flashback("runs", "--json", data_dir=store).stdout)["metrics"]["runs"] == before


def test_the_service_refuses_an_empty_query_for_the_window_too(store):
    from engine.api import EmptyQueryError, Flashback, SearchRequest

    with pytest.raises(EmptyQueryError):
        Flashback(store).search.search_sync(SearchRequest(" \n"))


def test_chats_are_listed_and_named_in_search(store):
    listed = flashback("chats", "--json", data_dir=store)
    assert listed.returncode == 0, listed.stderr
    chats = json.loads(listed.stdout)
    assert len(chats) == 7 and {"id", "name", "format", "messages", "first", "last"} <= chats[0].keys()
    dan = next(c for c in chats if c["name"] == "Dan Whitfield")
    assert dan["format"] == "telegram" and dan["messages"] > 0 and dan["first"] <= dan["last"]
    assert "Dan Whitfield" in flashback("chats", data_dir=store).stdout

    found = flashback("search", "hotel", "--chat", "dan whit", "--reranker", "none", "--json", data_dir=store)
    assert found.returncode == 0, found.stderr
    topics = [c for c in json.loads(found.stdout)["candidates"] if c["kind"] == "topic"]
    assert topics and {c["chat"] for c in topics} == {"Dan Whitfield"}
    by_id = flashback("search", "hotel", "--chat", str(dan["id"]), "--reranker", "none", "--json", data_dir=store)
    assert json.loads(by_id.stdout)["candidates"] == json.loads(found.stdout)["candidates"]


@pytest.mark.parametrize(("chat", "says"), [("a", "fits"), ("999", "no chat"), ("Nobody at all", "no chat")])
def test_a_chat_that_is_not_one_is_refused(store, chat, says):
    found = flashback("search", "hotel", "--chat", chat, data_dir=store)
    assert found.returncode == 1 and one_sentence(found.stderr) and says in found.stderr, found.stderr


def test_import_and_build_speak_in_words(tmp_path):
    export = tmp_path / "one.jsonl"
    export.write_text(json.dumps({"chat": "Trip", "id": "1", "author": "Ann", "date": "2025-01-01T10:00:00+00:00",
                                  "text": "We booked the Casa dos Remédios hotel in Alfama"}) + "\n", encoding="utf-8")
    imported = flashback("import", str(export), data_dir=tmp_path / "d")
    assert "1 message in 1 chat, 0 attachments" in imported.stdout, imported.stdout
    built = flashback("build", data_dir=tmp_path / "d")
    assert built.returncode == 0, built.stderr
    assert "{" not in built.stdout and "rebuilt" not in built.stdout and "1 new topic from 1 message" in built.stdout
    assert "\r" not in built.stderr and "Embedding topics: " in built.stderr  # a line per stage, not \r redraws


def test_a_flash_fallback_says_why(store):
    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", lambda request: FakeResponse(
            status=404, json={"error": {"message": "No endpoints found for fake/model"}}))
        found = flashback("search", "hotel in Lisbon", "--reranker", "flash", "--base-url", server.base_url,
                          data_dir=store, env={"FLASHBACK_API_KEY": KEY})
    assert found.returncode == 0, found.stderr
    line = next(x for x in found.stdout.splitlines() if "fallback" in x and "tool calls" in x)
    assert re.search(r"fallback: the call to the model's server failed \(.*404.*No endpoints found", line), line
    assert server.base_url not in line and KEY not in found.stdout


def test_runs_are_listed_in_units_not_raw_numbers(store):
    assert flashback("search", "hotel in Lisbon", data_dir=store).returncode == 0
    listed = flashback("runs", data_dir=store)
    assert listed.returncode == 0, listed.stderr
    assert "{" not in listed.stdout and not re.search(r"\d\.\d{3,}", listed.stdout), listed.stdout
    assert re.search(r"\d+ runs? \(", listed.stdout) and "latency median" in listed.stdout
