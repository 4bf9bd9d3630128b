"""`flashback eval-facts` as a user runs it (a real child process) against a scripted
OpenAI-compatible server on 127.0.0.1: a LoCoMo-shaped conversation written here (no data
set needed), the real import, topics, extraction path and checks; exact figures from the
scripted model's known proposals."""

from __future__ import annotations

import json
import re

import pytest

from tests.cli_run import flashback
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest, chat_reply

TURNS = [
    ("Alice", "D1:1", "I started teaching yoga in Lisbon last spring."),
    ("Bob", "D1:2", "My sister Lena moved to Berlin in March."),
    ("Alice", "D1:3", "We adopted a grey cat called Pixel!"),
    ("Bob", "D1:4", "Nice, congratulations."),
]
OBSERVATIONS = {"Alice": [["Alice teaches yoga in Lisbon.", "D1:1"], ["Alice adopted a cat named Pixel.", "D1:3"],
                          ["Alice plays the violin.", "D1:4"]],
                "Bob": [["Bob's sister Lena moved to Berlin.", "D1:2"]]}
USAGE = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}


def locomo(folder):
    sample = {"sample_id": "conv-t", "conversation": {
        "speaker_a": "Alice", "speaker_b": "Bob", "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": s, "dia_id": d, "text": t} for s, d, t in TURNS]},
        "observation": {"session_1_observation": OBSERVATIONS}, "qa": []}
    path = folder / "locomo.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


def _ids(prompt: str) -> dict[str, int]:
    return {text[:12]: int(i) for i, text in re.findall(r"^\[(\d+)\] .*?\): (.*)$", prompt, flags=re.MULTILINE)}


def archivist(request: RecordedRequest) -> FakeResponse:
    """Four proposals: two right (kept), one citing the wrong turn, one a message outside the topic."""
    system, prompt = (m["content"] for m in request.body["messages"][:2])
    if system.startswith("You compare two lists"):  # the judge: every gold statement is the first fact
        golds = [int(n) for n in re.findall(r"^G(\d+): ", prompt, flags=re.MULTILINE)]
        first = int(re.findall(r"^F(\d+): ", prompt, flags=re.MULTILINE)[0])
        return FakeResponse(json=chat_reply(json.dumps({"matches": [{"gold": g, "fact": first} for g in golds]}),
                                            usage=USAGE))
    ids = _ids(prompt)

    def fact(about: str, text: str, cited: list[int]) -> dict:
        return {"about": about, "text": text, "category": "other", "kind": "self" if about == "owner" else
                "about_other", "type": "context", "importance": 3, "valid_until": "", "message_ids": cited,
                "reason": "scripted"}
    reply = {"facts_added": [
        fact("owner", "Alice teaches yoga in Lisbon", [ids["I started te"]]),
        fact("Bob", "Bob's sister Lena moved to Berlin", [ids["My sister Le"]]),
        fact("owner", "Alice adopted a grey cat called Pixel", [ids["Nice, congra"]]),  # the wrong turn
        fact("owner", "Alice plays the violin", [999_999]),  # no message of the topic
    ], "facts_updated": [], "facts_removed": [], "people": []}
    return FakeResponse(json=chat_reply(json.dumps(reply), usage=USAGE))


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        fake.handle("/v1/chat/completions", archivist)
        yield fake


def _eval(tmp_path, server, *extra: str):
    done = flashback("eval-facts", str(locomo(tmp_path)), "--endpoint", "llamacpp", "--base-url", server.base_url,
                     "--model", "scripted", *extra, data_dir=tmp_path / "untouched")
    assert done.returncode == 0, done.stderr
    return done


def test_eval_facts_scores_the_scripted_archivist_by_the_verifier(tmp_path, server):
    done = _eval(tmp_path, server, "--json")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["matcher"] == "verifier" and figures["conversations"] == ["conv-t"]
    assert (figures["topics_read"], figures["topics_failed"], figures["gold_in_read_topics"]) == (1, 0, 4)
    assert (figures["facts_kept"], figures["refused_unsupported"], figures["refused_secret"]) == (2, 2, 0)
    assert (figures["gold_matched"], figures["fact_recall"]) == (2, 0.5)
    assert (figures["provenance_precision"], figures["provenance_on_gold_turns"]) == (1.0, 1.0)
    assert (figures["kept_unsupported"], figures["provenance_not_real"], figures["provenance_ids"]) == (0, 0, 2)
    assert (figures["prompt_tokens_per_topic"], figures["reply_tokens_per_topic"]) == (1000.0, 100.0)
    assert (figures["calls"]["calls"], figures["calls"]["completed"], figures["judge_calls"]) == (1, 1, None)
    assert figures["calls"]["prompt_tokens_estimate_max"] > 0  # the engine's own count, kept for a cut call too
    assert sorted((f["about"], f["turns"][0]) for f in figures["facts"]) == [("Alice", "D1:1"), ("Bob", "D1:2")]
    assert len(server.requests_to("/v1/chat/completions")) == 1
    assert not (tmp_path / "untouched").exists()  # the person's store is never made or touched


def test_eval_facts_with_a_judge_says_so_and_counts_its_matches(tmp_path, server):
    done = _eval(tmp_path, server, "--judge", "--json")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["matcher"] == "judge:scripted"
    # the scripted judge matches all four gold statements to the first fact (Alice's yoga, cited D1:1):
    # its cited turn is the evidence of one of them, so provenance precision stays 1.0
    assert (figures["gold_matched"], figures["fact_recall"], figures["provenance_precision"]) == (4, 1.0, 1.0)
    assert (figures["judge_calls"]["calls"], figures["judge_calls"]["completed"]) == (1, 1)
    judged = server.requests_to("/v1/chat/completions")[-1].body
    schema = judged["response_format"]["schema"]  # llama.cpp's form: {"type": "json_object", "schema": …}
    assert schema["required"] == ["matches"]  # the judge's reply is under a schema
    assert "<gold>" in judged["messages"][1]["content"]


def test_eval_facts_prints_the_figures_for_a_person(tmp_path, server):
    done = _eval(tmp_path, server)
    assert "conv-t: model scripted, matched by verifier; 1 of 1 topic read" in done.stdout
    assert re.search(r"fact_recall\s+0\.500", done.stdout)
    assert "1 call, 0 failed" in done.stdout
