"""Flash's prompt tokens with and without the cross-encoder before it, on the LoCoMo dev slice.

    python -m bench.cross_encoder_chain [--locomo PATH] [--limit N] [--keep 10] [--local]

The LoCoMo dev slice is converted (bench/locomo_convert.py), imported and built with the
offline defaults; every question (or `--limit` of them, spread evenly) is searched as the app
searches (default stage-1 settings) and its candidates go to Flash twice: alone, and chained
after the cross-encoder (`--chain-cross-encoder`: Flash reads only the cross-encoder's best
`--keep` topics; the seed's conditions may skip it on small, clearly ranked sets, and then
Flash reads them all). Both servers are the tests' scripted ones on 127.0.0.1: the chat
model (tests/fake_openai.py: turn 1 reads three topics, turn 2 keeps two) reports as its
prompt tokens what it was sent, counted by engine/text/tokens.py (message texts, tool-call
arguments, the tool and response schemas, 4 per message); the rerank server
(tests/fake_rerank.py, llama.cpp's shape) scores by word overlap, so which topics survive
says nothing about a real cross-encoder's quality, only the sizes are measured. `--local`
uses a local server's Flash budgets (25 candidates, 2,000-token prompt) instead of a cloud
endpoint's (50, 5,500).

Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from bench.locomo_convert import convert
from engine.api import CrossEncoderSettings, Flashback, FlashSettings, RerankEndpoint
from engine.llm import Endpoint
from engine.text.tokens import estimate_tokens
from tests.fake_openai import FakeOpenAI, FakeResponse, LocalServerModel, RecordedRequest
from tests.fake_rerank import FakeRerank

DEFAULT_LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"
CHAT = "/v1/chat/completions"


def sent_tokens(body: dict) -> int:
    """What a chat request puts in front of the model, in engine/text/tokens.py's count."""
    parts = []
    for message in body.get("messages") or []:
        parts.append(message.get("content") or "")
        parts += [call["function"]["arguments"] for call in message.get("tool_calls") or []]
    parts += [json.dumps(body[key]) for key in ("tools", "response_format") if body.get(key)]
    return sum(estimate_tokens(part) for part in parts) + 4 * len(body.get("messages") or [])


def counting_model():
    model = LocalServerModel(forces=frozenset({"required", "named"}), picks=3)

    def answer(request: RecordedRequest) -> FakeResponse:
        response = model(request)
        response.json["usage"] = {"prompt_tokens": sent_tokens(request.body), "completion_tokens": 40}
        return response
    return answer


def spread(items: list, limit: int) -> list:
    if not limit or limit >= len(items):
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--limit", type=int, default=0, help="questions, spread over the slice (0: all)")
    parser.add_argument("--keep", type=int, default=10, help="topics Flash reads after the cross-encoder")
    parser.add_argument("--local", action="store_true", help="a local server's Flash budgets")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder, FakeOpenAI() as chat, FakeRerank() as rerank:
        work = Path(folder)
        conversion = convert(args.locomo, work / "locomo.jsonl", work / "qrels.json")
        queries = spread(json.loads((work / "qrels.json").read_text(encoding="utf-8"))["queries"], args.limit)
        app = Flashback(work / "data")
        started = time.perf_counter()
        app.imports.import_path(work / "locomo.jsonl")
        build = app.memory.build()
        built = time.perf_counter() - started
        chat.handle(CHAT, counting_model())
        rerank.serve("llamacpp")
        preset = "llamacpp" if args.local else "openrouter"
        flash = app.search.flash_reranker(Endpoint(base_url=chat.base_url, api_key="sk-bench-0000", model="bench/flash",
                                                   preset=preset), FlashSettings(model="bench/flash", protocol="tools"))
        cross = app.search.cross_encoder_reranker(RerankEndpoint("llamacpp", rerank.root),
                                                  CrossEncoderSettings(chain_keep=args.keep))
        chained = app.search.chained_reranker(cross, flash)
        rows = []
        for query in queries:
            stage1 = app.search.candidates(query["query"])
            alone = asyncio.run(flash.arerank(stage1.query, stage1.candidates))
            both = asyncio.run(chained.arerank(stage1.query, stage1.candidates))
            chain = both.report["chain"]
            rows.append({"topics": chain["before"], "shown_alone": alone.report["shown"]["topic"],
                         "shown_chained": both.report["shown"]["topic"],
                         "alone": alone.usage["prompt_tokens"], "chained": both.usage["prompt_tokens"],
                         "turn1_alone": alone.trace["turns"][0]["usage"]["prompt_tokens"],
                         "turn1_chained": both.trace["turns"][0]["usage"]["prompt_tokens"],
                         "narrowed": chain["after"] < chain["before"], "skipped": bool(chain["skipped"]),
                         "fallback": chain["fallback"], "passages": chain["sent"],
                         "fallbacks": [alone.fallback, both.fallback]})

    def mean(key: str) -> float:
        return round(statistics.fmean(r[key] for r in rows), 1)

    def total(key: str) -> int:
        return sum(r[key] for r in rows)

    saving = 1 - total("chained") / total("alone")
    turn1_saving = 1 - total("turn1_chained") / total("turn1_alone")
    narrowed = [r for r in rows if r["narrowed"]]
    print(f"LoCoMo dev: {conversion.conversations} conversations, {len(rows)} questions; {build.topics_created} "
          f"topics, built in {built:.0f} s; Flash budgets {'local' if args.local else 'cloud'}, --keep {args.keep}")
    print(f"stage 1: {mean('topics')} topic candidates a question; Flash shows {mean('shown_alone')} alone, "
          f"{mean('shown_chained')} chained")
    print(f"chained: narrowed {len(narrowed)}, skipped by the seed's conditions {sum(r['skipped'] for r in rows)}, "
          f"cross-encoder fallbacks {sum(bool(r['fallback']) for r in rows)}")
    print(f"{'Flash prompt tokens a question':<34}{'alone':>10}{'chained':>10}{'saved':>8}")
    print(f"{'  all turns (mean)':<34}{mean('alone'):>10}{mean('chained'):>10}{saving:>8.1%}")
    print(f"{'  turn 1 (mean)':<34}{mean('turn1_alone'):>10}{mean('turn1_chained'):>10}{turn1_saving:>8.1%}")
    if narrowed:
        where = 1 - sum(r["chained"] for r in narrowed) / sum(r["alone"] for r in narrowed)
        print(f"  on the {len(narrowed)} narrowed questions: {where:.1%} saved")
    print(json.dumps({"bench": "cross_encoder_chain", "questions": len(rows), "topics": build.topics_created,
                      "budgets": "local" if args.local else "cloud", "keep": args.keep,
                      "topic_candidates_mean": mean("topics"), "shown_alone_mean": mean("shown_alone"),
                      "shown_chained_mean": mean("shown_chained"), "narrowed": len(narrowed),
                      "skipped": sum(r["skipped"] for r in rows),
                      "cross_encoder_fallbacks": sum(bool(r["fallback"]) for r in rows),
                      "prompt_tokens_alone_mean": mean("alone"), "prompt_tokens_chained_mean": mean("chained"),
                      "prompt_tokens_saved": round(saving, 4), "turn1_tokens_alone_mean": mean("turn1_alone"),
                      "turn1_tokens_chained_mean": mean("turn1_chained"), "turn1_saved": round(turn1_saving, 4),
                      "cross_encoder_passages_mean": mean("passages"),
                      "flash_fallbacks": sum(bool(f) for r in rows for f in r["fallbacks"])}))


if __name__ == "__main__":
    main()
