"""Flash with and without the owner's profile on LoCoMo dev questions about people (issue 33, 5).

    python -m bench.profile_ab [--conversation conv-26] [--questions 12] [--server scripted|llama]

A store built from one LoCoMo dev conversation (its first speaker the owner, as
`flashback eval-facts` imports it), then the owner's profile facts: the owner's gold
observations (identity facts, the turns they cite as provenance) added as the person would
add them — a stand-in for extraction, so that what is measured is the profile's use, not
the Archivist's recall. Questions: LoCoMo's single- and multi-hop questions that name one of
the two speakers. Each question is searched twice through the one search pipeline with the
Flash reranker, its turn 1 with the profile (`flash_reranker(profile=True)`) and without it;
stage 1 is the same for both (the facts are in the store both times).

Figures per condition: recall of the evidence turns' topics among the topics Flash keeps (all
of them, and the first 5), Flash's fallbacks, prompt tokens (as the server counted them, and
the engine's estimate of turn 1), the per-topic summary cap turn 1 was cut to (the profile
shares turn 1's budget with the summaries), seconds. `--server scripted`: the tests' grammar-obeying
stand-in for llama-server (the protocol, exact tokens; it picks the same ids either way, so
recall cannot differ); `--server llama`: llama-server with SmolLM2-135M (bench/llama_server.py).
Ask is not run: on SmolLM2 one Ask is minutes per question on two busy cores.
Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from engine.api import Endpoint, Flashback, FlashSettings, RetrievalSettings, SearchRequest
from engine.evaluation.facts_locomo import gold_of, load_samples, turn_ids, write_export
from engine.store.database import connect, db_path
from tests.fake_openai import FakeOpenAI, LocalServerModel

LOCOMO_DEV = Path("/work/shared/data/locomo/locomo_dev.json")
CATEGORIES = (1, 4)  # multi-hop, single-hop: questions about what is true of someone
TOP = 5


def build_store(sample: dict, folder: Path) -> tuple[Flashback, dict[str, int]]:
    export = folder / "locomo.jsonl"
    write_export([sample], export)
    service = Flashback(folder / "store")
    service.imports.import_path(export)
    service.memory.build()
    return service, dict(_rows(folder, "SELECT external_id, id FROM message"))


def _rows(folder: Path, sql: str) -> list[tuple]:
    connection = connect(db_path(folder / "store"))
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


def add_profile(service: Flashback, sample: dict, id_of: dict[str, int]) -> int:
    """The owner's observations as the person's own identity facts; how many were added."""
    added = 0
    for gold in gold_of(sample).gold:
        ids = [id_of[turn] for turn in gold.evidence if turn in id_of]
        if gold.about_owner and ids:
            service.facts.add(gold.text, kind="self", type="identity", importance=4, message_ids=ids)
            added += 1
    return added


def questions(sample: dict, limit: int) -> list[dict[str, Any]]:
    names = (sample["conversation"]["speaker_a"], sample["conversation"]["speaker_b"])
    found = []
    for qa in sample.get("qa") or []:
        turns = [t for raw in qa.get("evidence") or [] for t in turn_ids(raw)]
        named = [n for n in names if re.search(rf"\b{re.escape(n)}\b", str(qa["question"]))]
        if qa.get("category") in CATEGORIES and turns and named:
            found.append({"question": str(qa["question"]), "turns": turns, "names": named})
    return found[:limit]


def run_one(service: Flashback, endpoint: Endpoint, question: dict, evidence_topics: set[int],
            profile: bool) -> dict[str, Any]:
    reranker = service.search.flash_reranker(endpoint, FlashSettings(model=endpoint.default_model), profile=profile)
    started = time.perf_counter()
    outcome = service.search.search_sync(SearchRequest(question["question"], RetrievalSettings(), reranker,
                                                       client="bench"))
    seconds = time.perf_counter() - started
    kept = outcome.result.selected_ids("topic")
    trace = outcome.result.trace or {}
    usage = outcome.result.usage or {}

    def recall(topics: list[int]) -> float:
        return len(evidence_topics & set(topics)) / len(evidence_topics) if evidence_topics else 0.0

    return {"recall_all": recall(kept), "recall_top": recall(kept[:TOP]), "kept": len(kept),
            "fallback": outcome.result.fallback, "prompt_tokens": usage.get("prompt_tokens") or 0,
            "estimate": trace.get("prompt_tokens_estimate") or 0, "profile_in_trace": "profile" in trace,
            "summary_cap": trace.get("summary_cap") or 0,
            "seconds": seconds}


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def mean(key: str) -> float:
        return round(statistics.fmean(r[key] for r in runs), 4) if runs else 0.0
    return {"recall_all": mean("recall_all"), f"recall_top{TOP}": mean("recall_top"), "kept": mean("kept"),
            "fallbacks": sum(1 for r in runs if r["fallback"]),
            "fallback_reasons": sorted({r["fallback"] for r in runs if r["fallback"]}),
            "prompt_tokens": mean("prompt_tokens"), "turn1_estimate": mean("estimate"),
            "summary_cap": mean("summary_cap"),
            "profile_in_trace": sum(1 for r in runs if r["profile_in_trace"]),
            "seconds_median": round(statistics.median(r["seconds"] for r in runs), 2) if runs else None,
            "seconds_max": round(max(r["seconds"] for r in runs), 2) if runs else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--locomo", type=Path, default=LOCOMO_DEV)
    parser.add_argument("--conversation", default="conv-26")
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--server", choices=("scripted", "llama"), default="scripted")
    parser.add_argument("--base-url", default="", help="--server llama: a llama-server already running (…/v1)")
    args = parser.parse_args(argv)
    sample = load_samples(args.locomo, [args.conversation])[0]
    asked = questions(sample, args.questions)
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        service, id_of = build_store(sample, Path(folder))
        facts = add_profile(service, sample, id_of)
        profile = service.facts.profile()
        if args.server == "scripted":
            fake = stack.enter_context(FakeOpenAI())
            fake.handle("/v1/chat/completions", LocalServerModel())
            endpoint = Endpoint.from_preset("llamacpp", base_url=fake.base_url, model="scripted")
        else:
            from bench.llama_server import llama_server

            url = args.base_url or stack.enter_context(llama_server()).base_url
            endpoint = Endpoint.from_preset("llamacpp", base_url=url, model="SmolLM2-135M-Instruct")
        topic_of = dict(_rows(Path(folder), "SELECT id, topic_id FROM message"))
        results: dict[str, list[dict[str, Any]]] = {"without": [], "with": []}
        for number, question in enumerate(asked, 1):
            evidence = {topic_of[id_of[t]] for t in question["turns"] if t in id_of and topic_of.get(id_of[t])}
            for condition in ("without", "with"):
                run = run_one(service, endpoint, question, evidence, profile=condition == "with")
                results[condition].append(run)
                sys.stderr.write(f"{number}/{len(asked)} {condition:<7} recall {run['recall_all']:.2f} "
                                 f"kept {run['kept']} tokens {run['prompt_tokens']} fallback {run['fallback']} "
                                 f"{run['seconds']:.1f}s  {question['question'][:60]}\n")
    without, with_profile = summary(results["without"]), summary(results["with"])
    line = {"bench": "profile_ab", "server": args.server, "conversation": args.conversation,
            "questions": len(asked), "profile_facts_added": facts, "profile_facts_shown": len(profile.fact_ids),
            "profile_tokens": profile.tokens, "without": without, "with": with_profile,
            "prompt_tokens_added": round(with_profile["prompt_tokens"] - without["prompt_tokens"], 1),
            "turn1_estimate_added": round(with_profile["turn1_estimate"] - without["turn1_estimate"], 1)}
    sys.stdout.write(json.dumps(line) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
