"""`flashback build --facts`, `flashback facts` and `flashback facts forget` as a user runs
them (a real child process), against the scripted Archivist on 127.0.0.1; a build killed
mid-run resumes with only the topics it had not read."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.cli_run import ROOT
from tests.engine.facts.scripted import DAY, FIRST, SECOND, answer
from tests.engine.topics.conftest import BASE, conversation, write_jsonl
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest
from tests.test_cli_flash import run


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        fake.handle("/v1/chat/completions", answer)
        yield fake


@pytest.fixture
def imported(tmp_path):
    rows = conversation("Bob", BASE, FIRST, role_of={"Alice": "user"})
    rows += conversation("Bob", BASE + 5 * DAY, SECOND, first_id=100, role_of={"Alice": "user"})
    data = tmp_path / "store"
    assert run("import", str(write_jsonl(tmp_path / "chat.jsonl", rows)), data_dir=data).returncode == 0
    return data


def _model(server) -> list[str]:
    return ["--endpoint", "llamacpp", "--base-url", server.base_url, "--model", "smol"]


def test_build_facts_then_list_them_and_forget_one(imported, server):
    built = run("build", "--no-consolidate", "--facts", *_model(server), "--json", data_dir=imported)
    assert built.returncode == 0, built.stderr
    facts = json.loads(built.stdout)["facts"]
    assert (facts["topics_read"], facts["facts_added"], facts["facts_refused_secret"]) == (2, 2, 1)
    assert "tokens in" in built.stderr  # the estimate, said before the run
    listed = json.loads(run("facts", "--json", data_dir=imported).stdout)["facts"]
    assert sorted(f["text"] for f in listed) == ["Lena moved to Berlin in March",
                                                 "Teaches yoga in Lisbon after quitting the hospital"]
    assert all(f["message_ids"] for f in listed)
    lena = run("facts", "--person", "Lena", data_dir=imported)
    assert lena.returncode == 0 and lena.stdout.startswith("#") and "Lena: Lena moved to Berlin" in lena.stdout
    mine = run("facts", "--person", "me", data_dir=imported).stdout
    assert "you: Teaches yoga" in mine and "Lena" not in mine
    fact_id = next(f["id"] for f in listed if "Lena" in f["text"])
    gone = run("facts", "forget", str(fact_id), data_dir=imported)
    assert gone.returncode == 0 and f"#{fact_id}" in gone.stdout
    assert len(json.loads(run("facts", "--json", data_dir=imported).stdout)["facts"]) == 1
    again = run("facts", "forget", str(fact_id), data_dir=imported)
    assert again.returncode != 0 and "Traceback" not in again.stderr and "No fact has id" in again.stderr


def test_before_a_build_facts_says_memory_is_not_built(imported):
    """Not "0 topics wait to be read" when there are no topics at all."""
    said = run("facts", data_dir=imported).stdout
    assert "memory is not built" in said and "0 topics" not in said


def test_without_a_model_build_facts_reads_nothing_and_says_what_one_would_add(imported):
    built = run("build", "--no-consolidate", "--facts", data_dir=imported)  # openrouter, and no key
    assert built.returncode == 0, built.stderr
    assert "No chat model to read facts with" in built.stderr and "2 topics" in built.stderr
    assert "Nothing is known yet: 2 topics wait" in run("facts", data_dir=imported).stdout


def test_a_killed_build_resumes_with_the_topics_it_had_not_read(imported, server):
    release = []

    def slow_second(request: RecordedRequest) -> FakeResponse:
        if "Big news" in request.body["messages"][1]["content"] and not release:
            return FakeResponse(json=None, delay=120)  # the second topic hangs until the process is killed
        return answer(request)

    server.handle("/v1/chat/completions", slow_second)
    environment = {**{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
                   "FLASHBACK_DATA_DIR": str(imported)}
    child = subprocess.Popen([sys.executable, "-m", "app", "build", "--no-consolidate", "--facts", *_model(server)],
                             cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 150
        while not any("Big news" in r.body["messages"][1]["content"] for r in server.requests_to(
                "/v1/chat/completions")):
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    store = sqlite3.connect(imported / "flashback.sqlite3")
    assert store.execute("SELECT count(*) FROM topic WHERE facts_extracted = 1").fetchone() == (1,)
    assert [t for (t,) in store.execute("SELECT text FROM fact WHERE state = 'active'")] == [
        "Works as a nurse at St. Mary's hospital", "Lena moved to Berlin in March"]
    store.close()
    release.append(True)
    before = len(server.requests_to("/v1/chat/completions"))
    resumed = run("build", "--no-consolidate", "--facts", *_model(server), "--json", data_dir=imported)
    assert resumed.returncode == 0, resumed.stderr
    asked = server.requests_to("/v1/chat/completions")[before:]
    assert len(asked) == 1 and "Big news" in asked[0].body["messages"][1]["content"]
    assert json.loads(resumed.stdout)["facts"]["facts_updated"] == 1
