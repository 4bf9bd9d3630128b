"""The Archivist on LoCoMo dev (issue 33, deliverable 5), with the scripted server.

The measurement is `flashback eval-facts`'s (`engine.evaluation.facts.evaluate_facts`):
LoCoMo's observations with their evidence turns are the gold facts, each conversation a
chat whose first speaker is the owner, topics built as a build makes them, every topic read
through the real extraction path (HTTP to a scripted OpenAI-compatible server on 127.0.0.1:
the real prompt, schema, checks and writes). The scripted model proposes, for each topic,
the gold observations whose evidence lies in it, in one of two ways:

- `oracle`: citing the gold evidence turns. What is kept measures the checks' cost: of the
  gold observations in the read topics, the share matched (by the verifier) by a kept fact,
  and provenance precision (cited ids among the gold evidence: 1.0 by construction).
- `shifted`: citing the turn after each evidence turn (same topic): a model with the
  right fact and the wrong messages. Every fact kept here is wrong provenance the
  checks let through; `refused_unsupported` is how many they caught.

Also: prompt tokens per topic (as the engine counts them) and the reply's. Ends with one
JSON line. Run: `python -m bench.eval_facts [--conversations N]`; a real model:
`flashback eval-facts LOCOMO.json --endpoint llamacpp --base-url …` (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
from pathlib import Path

from engine.api import Endpoint
from engine.evaluation.facts import evaluate_facts
from engine.evaluation.facts_locomo import gold_of, load_samples
from engine.store.database import db_path
from engine.text.tokens import estimate_tokens
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest, chat_reply

LOCOMO_DEV = Path("/work/shared/data/locomo/locomo_dev.json")
_LINE = re.compile(r"^\[(\d+)\] ", re.MULTILINE)


class ScriptedArchivist:
    """Proposes each topic's gold observations, citing their evidence (or the turn after it).
    It reads the store evaluate_facts makes (message id → turn) when the first call comes."""

    def __init__(self, store: Path, samples: list[dict], shifted: bool) -> None:
        self.store, self.shifted = store, shifted
        self.gold = {c.chat: c for c in (gold_of(sample) for sample in samples)}
        self.turn_of: dict[int, tuple[str, str]] = {}

    def _turns(self) -> None:
        connection = sqlite3.connect(db_path(self.store))
        rows = connection.execute("SELECT m.id, c.title, m.external_id FROM message m JOIN chat c ON c.id = m.chat_id")
        self.turn_of = {message_id: (chat, turn) for message_id, chat, turn in rows}
        self.id_of = {value: key for key, value in self.turn_of.items()}
        connection.close()

    def __call__(self, request: RecordedRequest) -> FakeResponse:
        if not self.turn_of:
            self._turns()
        prompt = request.body["messages"][1]["content"]
        shown = [int(i) for i in _LINE.findall(prompt.split("<chat_log>")[-1])]
        turns = {self.turn_of[i] for i in shown}
        order = {self.turn_of[i]: n for n, i in enumerate(shown)}
        added = []
        for chat in {chat for chat, _turn in turns}:
            conversation = self.gold[chat]
            for gold in conversation.gold:
                cited = [(chat, turn) for turn in gold.evidence if (chat, turn) in turns]
                if not cited:
                    continue
                ids = [self.id_of[c] for c in cited]
                if self.shifted:
                    ids = [shown[order[c] + 1] for c in cited if order[c] + 1 < len(shown)]
                    if not ids:
                        continue
                added.append({"about": "owner" if gold.about_owner else gold.speaker, "text": gold.text,
                              "category": "other", "kind": "self" if gold.about_owner else "about_other",
                              "type": "context", "importance": 3, "valid_until": "", "message_ids": ids,
                              "reason": "gold"})
        reply = {"facts_added": added, "facts_updated": [], "facts_removed": [], "people": []}
        content = json.dumps(reply)
        usage = {"prompt_tokens": estimate_tokens(request.body["messages"][0]["content"] + prompt),
                 "completion_tokens": estimate_tokens(content)}
        return FakeResponse(json=chat_reply(content, usage=usage))


def measure(locomo: Path, samples: list[dict], mode: str, work: Path) -> dict:
    folder = work / mode
    folder.mkdir()
    archivist = ScriptedArchivist(folder / "store", samples, shifted=mode == "shifted")
    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", archivist)
        endpoint = Endpoint.from_preset("llamacpp", base_url=server.base_url, model="scripted")
        result = evaluate_facts(locomo, endpoint, folder, chats=[str(s["sample_id"]) for s in samples])
    figures = result.as_dict()
    figures.pop("facts")
    return {"mode": mode, **figures}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--locomo", type=Path, default=LOCOMO_DEV)
    parser.add_argument("--conversations", type=int, default=None, help="only the first N (default: all)")
    args = parser.parse_args(argv)
    samples = load_samples(args.locomo, first=args.conversations)
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for mode in ("oracle", "shifted"):
            results[mode] = measure(args.locomo, samples, mode, Path(folder))
            sys.stderr.write(json.dumps(results[mode]) + "\n")
    summary = {"bench": "eval_facts", "conversations": len(samples),
               "observations": results["oracle"]["gold_observations"],
               "oracle": results["oracle"], "shifted": results["shifted"]}
    sys.stdout.write(json.dumps(summary) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
