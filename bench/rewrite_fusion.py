"""What searching the original query beside its rewrite costs and saves: `python -m bench.rewrite_fusion
[--locomo PATH] [--limit N]`.

Seed 000 step 1 restates a vague question from the recent messages, and stage 1 searches
both the question as typed and the rewrite, fused (`engine.rerank.flash.fuse_candidates`,
wired in `Flashback.arerank`/`search`). No LLM runs here: the rewrite is simulated on
the LoCoMo dev slice, so the figures measure the *fusion*, not a model.

* vague: each LoCoMo question that names a speaker, with the names replaced by "they"
  ("When did Caroline go to the support group?" → "When did they go to the support
  group?"): what a person types mid-conversation.
* rewrite: the original question: a perfect rewrite (the upper bound of step 1).
* wrong rewrite: another question of the same conversation: a rewrite that went astray
  (an extreme: a real rewrite keeps the question's own words).

Rows: vague alone (no step 1), the rewrite alone (stage 1 searching only the rewrite, as
the seeds' reference did), vague + rewrite fused (what ships), and a wrong rewrite alone and
fused (the harm a bad rewrite can do, and how much of it keeping the original saves).
Prints a table and ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench.locomo import DEFAULT_LOCOMO
from bench.locomo_convert import convert
from engine.api import Flashback
from engine.evaluation.qrels import load_qrels
from engine.evaluation.runner import evaluate
from engine.rerank.flash import fuse_candidates
from engine.retrieval.search import RetrievalSettings
from engine.store.database import connect, db_path

SHOWN = ("recall@1_any", "recall@5_any", "recall@10_any", "evidence@8000")


def vague(question: str, names: list[str]) -> str | None:
    """The question with the speakers' names replaced by a pronoun, or None if it names neither."""
    text = question
    for name in names:
        text = re.sub(rf"\b{re.escape(name)}'s\b", "their", text)
        text = re.sub(rf"\b{re.escape(name)}\b", "they", text)
    return text if text != question else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--limit", type=int, default=0, help="score only the first N vague questions")
    args = parser.parse_args()
    samples = json.loads(args.locomo.read_text(encoding="utf-8"))
    speakers = {str(s["sample_id"]): [s["conversation"]["speaker_a"], s["conversation"]["speaker_b"]]
                for s in samples}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        convert(args.locomo, root / "locomo.jsonl", root / "qrels.json")
        service = Flashback(root / "data")
        service.imports.import_path(root / "locomo.jsonl")
        started = time.perf_counter()
        service.memory.build()
        build_s = time.perf_counter() - started
        queries = []
        for query in load_qrels(root / "qrels.json"):
            chat = query.relevant[0][0] if query.relevant else ""
            typed = vague(query.query, speakers.get(chat, []))
            if typed is not None:
                queries.append((query, typed, chat))
        if args.limit:
            queries = queries[: args.limit]
        rng = random.Random(7)
        by_chat: dict[str, list[str]] = {}
        for query, _typed, chat in queries:
            by_chat.setdefault(chat, []).append(query.query)
        wrong = {q.id: rng.choice([o for o in by_chat[chat] if o != q.query] or [q.query]) for q, _t, chat in queries}
        settings = RetrievalSettings()
        stage1 = {}

        def search(text: str):
            if text not in stage1:
                stage1[text] = service.search.candidates(text, settings)
            return stage1[text]

        def fused(first: str, second: str):
            one, two = search(first), search(second)
            return replace(one, candidates=fuse_candidates(one.candidates, two.candidates))

        variants = {
            "vague (no rewrite)": lambda q, t: search(t),
            "rewrite alone": lambda q, t: search(q.query),
            "vague + rewrite, fused": lambda q, t: fused(t, q.query),
            "wrong rewrite alone": lambda q, t: search(wrong[q.id]),
            "vague + wrong rewrite, fused": lambda q, t: fused(t, wrong[q.id]),
        }
        results = {}
        connection = connect(db_path(service.data_dir))
        try:
            for name, pick in variants.items():
                order = iter(queries)

                def run(_judged, pick=pick, order=order):
                    query, typed, _chat = next(order)
                    return pick(query, typed), None
                judged = [replace(q, query=t) for q, t, _c in queries]
                results[name] = evaluate(connection, judged, run)["metrics"]
        finally:
            connection.close()
    print(f"LoCoMo dev, {len(queries)} questions that name a speaker, made vague; build {build_s:.1f} s")
    print(f"{'':<30}" + "".join(f"{k:>15}" for k in SHOWN))
    for name, metrics in results.items():
        print(f"{name:<30}" + "".join(f"{metrics[k]:>15.3f}" for k in SHOWN))
    base = results["vague (no rewrite)"]["recall@5_any"]
    print("recall@5 ratio to vague: " + ", ".join(
        f"{name} ×{metrics['recall@5_any'] / base:.2f}" for name, metrics in results.items() if base))
    print(json.dumps({"questions": len(queries), **{name: {k: round(m[k], 4) for k in SHOWN}
                                                     for name, m in results.items()}}))


if __name__ == "__main__":
    main()
