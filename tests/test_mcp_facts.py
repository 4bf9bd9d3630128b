"""Issue 33: `flashback mcp` reads what is known — `get_profile` (the owner's profile as Flash and
Ask are given it, with each fact's messages) and `search_facts` (facts by their words, or one
person's, each with its message ids). The official SDK's client over stdio, a real server
process, on the bundled demo built by the real CLI, facts written through the facade."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing

import pytest

from engine.api import Flashback
from engine.store.database import DB_FILE_NAME
from tests.mcp_client import error_text, session_run, structured

THERAPIST = "Booked a therapist appointment for March 14"


@pytest.fixture(scope="module")
def store(built_demo, tmp_path_factory):
    folder = shutil.copytree(built_demo, tmp_path_factory.mktemp("mcp-facts") / "data")
    service = Flashback(folder)
    with closing(sqlite3.connect(folder / DB_FILE_NAME)) as connection:
        said = [r[0] for r in connection.execute("SELECT id FROM message WHERE text LIKE '%записалась к терапевту%'")]
        mother = connection.execute("SELECT id FROM person WHERE display_name = 'Мама'").fetchone()[0]
    service.facts.set_person(mother, aliases=["Lena"], circle="family", bio="The owner's mother")
    service.facts.add(THERAPIST, person_id=mother, kind="about_other", category="health", importance=4,
                      message_ids=said)
    service.facts.add("Works as a backend engineer", type="identity", importance=5, category="work")
    service.facts.add("Tried pottery once", importance=2, category="hobby")
    wrong = service.facts.add("Lives in Berlin", type="identity", importance=5)
    service.facts.mark_wrong(wrong.id)
    return folder, said


def test_get_profile_is_what_flash_and_ask_are_given(store, tmp_path):
    folder, _said = store
    profile = session_run(folder, tmp_path / "err.log",
                          lambda s: s.call_tool("get_profile", {}))
    got = structured(profile)
    assert got["owner"] == "Alex Morozov"
    assert got["text"] == Flashback(folder).facts.profile(1500).text
    assert "Works as a backend engineer" in got["text"] and "Мама (family): The owner's mother" in got["text"]
    assert "Berlin" not in got["text"] and "pottery" not in got["text"]  # marked wrong; not important
    assert [f["text"] for f in got["facts"]] == ["Works as a backend engineer"]
    assert got["facts"][0]["about"] == "Alex Morozov" and got["facts"][0]["person_id"] is None


def test_search_facts_finds_facts_by_words_and_by_person_with_their_messages(store, tmp_path):
    folder, said = store

    async def work(session):
        return {
            "words": structured(await session.call_tool("search_facts", {"query": "therapist appointment"})),
            "alias": structured(await session.call_tool("search_facts", {"query": "Lena health"})),
            "person": structured(await session.call_tool("search_facts", {"query": "", "person": "мама"})),
            "you": structured(await session.call_tool("search_facts", {"query": "", "person": "you"})),
            "none": structured(await session.call_tool("search_facts", {"query": "submarine"})),
            "nobody": error_text(await session.call_tool("search_facts", {"query": "x", "person": "Zorro"})),
        }
    got = session_run(folder, tmp_path / "err.log", work)
    top = got["words"]["facts"][0]
    assert top["text"] == THERAPIST and top["message_ids"] == said and top["about"] == "Мама"
    assert top["score"] == 1.0 and top["kind"] == "about_other"
    assert got["alias"]["facts"][0]["text"] == THERAPIST  # an alias and a category are words of the fact
    assert [f["text"] for f in got["person"]["facts"]] == [THERAPIST]
    assert {f["text"] for f in got["you"]["facts"]} == {"Works as a backend engineer", "Tried pottery once"}
    assert got["none"]["facts"] == [] and "No fact matches" in got["none"]["notes"][0]
    assert "Zorro" in got["nobody"]


def test_an_empty_profile_says_why(built_demo, tmp_path):
    folder = shutil.copytree(built_demo, tmp_path / "data")
    got = structured(session_run(folder, tmp_path / "err.log", lambda s: s.call_tool("get_profile", {})))
    assert got["text"] == "" and got["facts"] == [] and "Nothing is known" in got["notes"][0]
