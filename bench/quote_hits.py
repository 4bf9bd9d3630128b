"""How often Ask's quote holds the answer, with no model (issue 32):
`python -m bench.quote_hits [--limit N] [--embedder builtin|local]`.

The LoCoMo dev slice is imported into a fresh store and built with the app's defaults (as
bench/eval_answers.py does). Each question of categories 1 (multi-hop), 2 (temporal) and
4 (single-hop) goes through the whole Ask flow with no chat model configured, so the answer is
the quoted sentences (engine/ask/quote.py). Per question:
- hit@1: the first quote holds the gold answer: every content word of the gold answer by stem,
  and its dates and numbers by value (the verifier's reading: engine.support.check of the
  gold answer against the quote, sent when its message was);
- hit@3: one of the (up to) three quotes does;
- F1@1: LoCoMo's token F1 of the first quote against the gold answer: the figure the model
  answers are scored by (SmolLM2-135M on llama-server: 0.012-0.026, docs/ask.md).
Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.eval_answers import _store
from bench.locomo import DEFAULT_LOCOMO
from engine.ask import AskDeps, AskSettings, ask, store_profile
from engine.ask.answer_data import load_questions
from engine.ask.answer_eval import token_f1
from engine.rerank.threshold import ThresholdReranker
from engine.store.database import connect, db_path
from engine.support import Evidence, check

CATEGORIES = ("multi-hop", "temporal", "single-hop")


def holds(gold: str, quote) -> bool:
    """The quote says the gold answer: its words by stem, its dates and numbers by value."""
    sent = datetime.fromtimestamp(quote.sent_at, UTC)
    return check(gold, [Evidence(quote.text, sent, quote.author)]).supported


async def run(service, items) -> list[dict]:
    data_dir = service.data_dir
    connection = connect(db_path(data_dir))
    try:
        chats, languages = store_profile(connection)
    finally:
        connection.close()
    deps = AskDeps(stage1=service.search.candidates, reranker=ThresholdReranker(),
                   connect=lambda: connect(db_path(data_dir)), embedder=service.memory.embedder(), client=None,
                   chats=chats, languages=languages)
    rows = []
    for item in items:
        outcome = await ask(item.question, deps, AskSettings(record=False), now=item.now or datetime.now(UTC))
        quotes = outcome.quotes
        rows.append({"id": item.id, "category": item.category, "quotes": len(quotes),
                     "hit1": bool(quotes) and holds(item.answer, quotes[0]),
                     "hit3": any(holds(item.answer, q) for q in quotes),
                     "f1": token_f1(quotes[0].text, item.answer) if quotes else 0.0})
    return rows


def summary(rows: list[dict]) -> dict:
    def share(chosen: list[dict], key: str) -> float | None:
        return round(sum(r[key] for r in chosen) / len(chosen), 3) if chosen else None

    figures = {"questions": len(rows), "hit_at_1": share(rows, "hit1"), "hit_at_3": share(rows, "hit3"),
               "f1_at_1": share(rows, "f1"), "quoted": share([{**r, "q": r["quotes"] > 0} for r in rows], "q")}
    figures["by_category"] = {c: {"questions": len(chosen), "hit_at_1": share(chosen, "hit1"),
                                  "hit_at_3": share(chosen, "hit3"), "f1_at_1": share(chosen, "f1")}
                              for c in CATEGORIES if (chosen := [r for r in rows if r["category"] == c])}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qa", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--limit", type=int, default=0, help="the first N questions of those categories (0: all)")
    parser.add_argument("--embedder", default="builtin", choices=("builtin", "local"))
    args = parser.parse_args()
    items = [i for i in load_questions(args.qa) if i.category in CATEGORIES]
    items = items[:args.limit] if args.limit else items
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="flashback-quotes-") as scratch:
        service = _store(Path(scratch), args.qa, args.embedder)
        built = time.perf_counter()
        rows = asyncio.run(run(service, items))
    figures = summary(rows) | {"embedder": args.embedder, "build_s": round(built - started, 1),
                               "ask_ms_mean": round((time.perf_counter() - built) * 1000 / max(len(rows), 1), 1)}
    for name in ("questions", "quoted", "hit_at_1", "hit_at_3", "f1_at_1", "ask_ms_mean"):
        print(f"  {name:12} {figures[name]}")
    for category, part in figures["by_category"].items():
        print(f"  {category:12} {part}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
