"""Topic-building speed on a synthetic store (not a test: run it by hand).

    .venv/bin/python -m tests.engine.topics.measure_build --messages 100000 --chats 20

Writes a Flashback JSONL export (Cyrillic and Latin words, gaps drawn like
bench/synth_telegram.py: 5 s … 5.5 h), imports it with the real import service, then
times build_topics (extractive) and consolidate (the adjacency rule, random vectors) and
prints one JSON line.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import resource
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bench.synth_telegram import _CYRILLIC, _LATIN, _PEOPLE
from engine.importers.runner import import_path
from engine.store.database import connect, db_path
from engine.topics import build_topics, consolidate


def _zipf_words(rng: random.Random, size: int = 200_000) -> list[str]:
    """A large made-up vocabulary, most frequent first: real chats have hundreds of
    thousands of distinct words, and the document-frequency lookups must cope."""
    syllables = [c + v for c in "bdgklmnprstvz" for v in "aeiou"] + [c + v for c in "бвгдклмнпрст" for v in "аеиоуя"]
    return list(dict.fromkeys("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
                              for _ in range(size)))


def write_export(path: Path, messages: int, chats: int, seed: int = 7, zipf: bool = False) -> None:
    rng = random.Random(seed)
    vocabulary = _zipf_words(rng) if zipf else []
    cumulative = list(itertools.accumulate(1 / (rank + 1) ** 1.1 for rank in range(len(vocabulary))))
    with open(path, "w", encoding="utf-8") as out:
        for c in range(chats):
            members = [name for name, _id in rng.sample(_PEOPLE, k=2 + c % 4)]
            at = 1_600_000_000.0 + c * 1000
            for i in range(messages // chats):
                at += rng.choice((5, 30, 60, 300, 900, 4000, 20000))
                words = _CYRILLIC if rng.random() < 0.6 else _LATIN
                count = rng.randint(3, 18)
                if zipf:
                    picked = rng.choices(vocabulary, cum_weights=cumulative, k=count)
                else:
                    picked = [rng.choice(words) for _ in range(count)]
                text = " ".join(picked).capitalize()
                row = {"chat": f"Chat {c}", "id": str(i), "author": rng.choice(members),
                       "date": datetime.fromtimestamp(at, UTC).isoformat(), "text": text}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--chats", type=int, default=20)
    parser.add_argument("--zipf", action="store_true", help="a 200k-word Zipf vocabulary instead of ~80 words")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        export, data = Path(work) / "synthetic.jsonl", Path(work) / "store"
        write_export(export, args.messages, args.chats, zipf=args.zipf)
        started = time.perf_counter()
        import_path(data, export)
        imported = time.perf_counter() - started
        connection = connect(db_path(data))
        report = build_topics(connection)
        dim = 384
        rng = np.random.default_rng(1)

        def vectors_for(ids: list[int]) -> np.ndarray:
            rows = rng.standard_normal((len(ids), dim)).astype(np.float32)
            return rows / np.linalg.norm(rows, axis=1, keepdims=True)

        consolidation = consolidate(connection, vectors_for)
        print(json.dumps({
            "vocabulary": "zipf-200k" if args.zipf else "synth_telegram",
            "messages": report.messages_assigned,
            "chats": report.chats, "topics": report.topics_created,
            "import_s": round(imported, 2), "build_s": round(report.seconds, 2),
            "build_messages_per_s": round(report.messages_assigned / report.seconds),
            "consolidate_s": round(consolidation.seconds, 2), "checked": consolidation.checked,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        }))


if __name__ == "__main__":
    main()
