"""The Archivist on LoCoMo dev (issue 33, deliverable 5), with the scripted server.

LoCoMo's sessions carry per-speaker `observation`s, each with its evidence turns
("D1:3"): the gold facts. Each conversation becomes one chat whose first speaker is the
owner (role user); topics are built as a build makes them; then every topic is read through
the real extraction path (HTTP to a scripted OpenAI-compatible server on 127.0.0.1, the
real prompt, schema, checks and writes). The scripted model proposes, for each topic, the
gold observations whose evidence lies in it, in one of two ways:

- `oracle`: citing the gold evidence turns. What is kept measures the checks' cost:
  fact recall = gold observations kept / proposed (the verifier and the evidence rule
  refuse true facts too), provenance precision = cited ids among the gold evidence.
- `shifted`: citing the turn after each evidence turn (same topic): a model with the
  right fact and the wrong messages. Every fact kept here is wrong provenance the
  checks let through; `refused` is how many they caught.

Also: prompt tokens per topic (as the engine counts them) and the reply's. Ends with one
JSON line. Run: `python -m bench.eval_facts [--conversations N]`.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.locomo_convert import _message_text, _sessions, normalise_evidence, parse_session_time
from engine.api import Flashback
from engine.importers.runner import import_path
from engine.llm import Endpoint
from engine.store.database import connect, db_path
from engine.text.tokens import estimate_tokens
from engine.topics.builder import build_topics
from engine.topics.settings import TopicSettings
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest, chat_reply

LOCOMO_DEV = Path("/work/shared/data/locomo/locomo_dev.json")
_LINE = re.compile(r"^\[(\d+)\] ", re.MULTILINE)


def export(samples: list[dict], path: Path) -> dict[str, list[tuple[str, str, list[str]]]]:
    """The conversations as a JSONL export (speaker_a: the owner); chat → gold (speaker, text, evidence)."""
    gold: dict[str, list[tuple[str, str, list[str]]]] = {}
    with open(path, "w", encoding="utf-8") as out:
        for sample in samples:
            chat, owner = str(sample["sample_id"]), sample["conversation"]["speaker_a"]
            for _number, turns, date_text in _sessions(sample["conversation"]):
                start = parse_session_time(date_text)
                for position, turn in enumerate(turns):
                    row = {"chat": chat, "id": normalise_evidence(turn["dia_id"])[0], "author": turn["speaker"],
                           "role": "user" if turn["speaker"] == owner else "other",
                           "date": (start.timestamp() + 30 * position), "text": _message_text(turn)}
                    row["date"] = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(row["date"]))
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
            for observations in sample["observation"].values():
                for speaker, items in observations.items():
                    for text, evidence in items:
                        gold.setdefault(chat, []).append((speaker, text, normalise_evidence(str(evidence))))
    return gold


class ScriptedArchivist:
    """Proposes each topic's gold observations, citing their evidence (or the turn after it)."""

    def __init__(self, connection, gold, owners: dict[str, str], shifted: bool) -> None:
        rows = connection.execute("SELECT m.id, c.title, m.dedup_key FROM message m JOIN chat c ON c.id = m.chat_id")
        self.turn_of = {message_id: (chat, turn) for message_id, chat, turn in rows}
        self.id_of = {value: key for key, value in self.turn_of.items()}
        self.gold, self.owners, self.shifted = gold, owners, shifted
        self.proposed: list[tuple[str, list[int], list[int]]] = []  # text, cited ids, gold evidence ids

    def __call__(self, request: RecordedRequest) -> FakeResponse:
        prompt = request.body["messages"][1]["content"]
        shown = [int(i) for i in _LINE.findall(prompt.split("<chat_log>")[-1])]
        turns = {self.turn_of[i] for i in shown}
        order = {self.turn_of[i]: n for n, i in enumerate(shown)}
        added = []
        for chat in {chat for chat, _turn in turns}:
            for speaker, text, evidence in self.gold.get(chat, []):
                cited = [(chat, turn) for turn in evidence if (chat, turn) in turns]
                if not cited:
                    continue
                gold_ids = [self.id_of[c] for c in cited]
                ids = gold_ids
                if self.shifted:
                    ids = [shown[order[c] + 1] for c in cited if order[c] + 1 < len(shown)]
                    if not ids:
                        continue
                self.proposed.append((text, ids, gold_ids))
                added.append({"about": "owner" if speaker == self.owners[chat] else speaker, "text": text,
                              "category": "other", "kind": "self" if speaker == self.owners[chat] else "about_other",
                              "type": "context", "importance": 3, "valid_until": "", "message_ids": ids,
                              "reason": "gold"})
        reply = {"facts_added": added, "facts_updated": [], "facts_removed": [], "people": []}
        content = json.dumps(reply)
        usage = {"prompt_tokens": estimate_tokens(request.body["messages"][0]["content"] + prompt),
                 "completion_tokens": estimate_tokens(content)}
        return FakeResponse(json=chat_reply(content, usage=usage))


def measure(samples: list[dict], mode: str, work: Path) -> dict:
    data = work / mode
    gold = export(samples, work / f"{mode}.jsonl")
    import_path(data, work / f"{mode}.jsonl")
    connection = connect(db_path(data))
    build_topics(connection, settings=TopicSettings())
    owners = {str(s["sample_id"]): s["conversation"]["speaker_a"] for s in samples}
    archivist = ScriptedArchivist(connection, gold, owners, shifted=mode == "shifted")
    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", archivist)
        started = time.perf_counter()
        report = Flashback(data).facts.extract(Endpoint.from_preset("llamacpp", base_url=server.base_url,
                                                                    model="scripted"))
        seconds = time.perf_counter() - started
    kept = {text: ids for text, ids in connection.execute(
        "SELECT f.text, group_concat(fm.message_id) FROM fact f JOIN fact_message fm ON fm.fact_id = f.id "
        "WHERE f.state = 'active' GROUP BY f.id")}
    gold_of = {text: set(gold_ids) for text, _ids, gold_ids in archivist.proposed}
    cited = [(int(i), text) for text, ids in kept.items() for i in ids.split(",")]
    precise = sum(1 for message_id, text in cited if message_id in gold_of.get(text, set()))
    connection.close()
    proposed = len(archivist.proposed)
    return {"mode": mode, "topics": report.topics_read, "gold_in_topics": proposed, "kept": len(kept),
            "fact_recall": round(len(kept) / proposed, 4) if proposed else None,
            "provenance_precision": round(precise / len(cited), 4) if cited else None,
            "refused_unsupported": report.facts_refused_unsupported, "refused_secret": report.facts_refused_secret,
            "prompt_tokens_per_topic": round(report.tokens_in / max(1, report.topics_read), 1),
            "reply_tokens_per_topic": round(report.tokens_out / max(1, report.topics_read), 1),
            "seconds": round(seconds, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--locomo", type=Path, default=LOCOMO_DEV)
    parser.add_argument("--conversations", type=int, default=None, help="only the first N (default: all)")
    args = parser.parse_args(argv)
    samples = json.loads(args.locomo.read_text(encoding="utf-8"))[:args.conversations]
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for mode in ("oracle", "shifted"):
            results[mode] = measure(samples, mode, Path(folder))
            sys.stderr.write(json.dumps(results[mode]) + "\n")
    summary = {"bench": "eval_facts", "conversations": len(samples),
               "observations": sum(len(items) for s in samples for o in s["observation"].values()
                                   for items in o.values()),
               "oracle": results["oracle"], "shifted": results["shifted"],
               "tokens_per_topic_median": statistics.median([results["oracle"]["prompt_tokens_per_topic"]])}
    sys.stdout.write(json.dumps(summary) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
