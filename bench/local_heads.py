"""What the characters of a file's head buy with the local model (issue 26):
`python -m bench.local_heads [--store LOCOMO_DATA_DIR --qrels QRELS]`.

A local build embeds, besides the topics' passages, the head of every person's and file's
document (`PassageShape.entity_chars`, 500): on LoCoMo dev that is 110 of the 277
characters it embeds per message, nearly all of it for its 602 photos. LoCoMo's recall and
the bilingual check count topics only, so they cannot see what those vectors do: finding
the file itself. Here the questions whose evidence is a message with a photo ask for that
photo: each head variant's vectors (the fast path), the question's vector, and hit@1/@5 =
the photo among the 1/5 nearest of all files. Variants: the first N characters (cut at a
word, as the build does), and the file's own lines only (its name, caption, sender and
date, up to "Around it:"; the messages around it are in the topics already).
Without `--store`, LoCoMo dev is imported and built with the built-in embedder (the
documents do not depend on the embedder). Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.local_speed import _locomo_store
from bench.locomo import DEFAULT_LOCOMO
from engine.evaluation.qrels import load_qrels, resolve_messages
from engine.memory.documents import PassageShape
from engine.memory.people_and_files import artifact_documents
from engine.store.database import connect, db_path

AROUND = "\nAround it:"


def _variants(text: str) -> dict[str, str]:
    heads = {f"first {n} chars": PassageShape(entity_chars=n).entities({0: [text]})[0][0] for n in (500, 300, 200)}
    heads["its own lines only"] = text.split(AROUND, 1)[0]
    return heads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--store", type=Path, help="a LoCoMo dev data dir already built")
    parser.add_argument("--qrels", type=Path, help="its QRELS (bench.locomo_convert)")
    args = parser.parse_args()
    if args.store is None:
        work = Path(tempfile.mkdtemp(prefix="flashback-local-heads-"))
        args.store, args.qrels = _locomo_store(work, args.locomo), work / "qrels.json"
    from engine.embeddings.local import LocalEmbedder

    connection = connect(db_path(args.store))
    try:
        artifacts = dict(connection.execute("SELECT message_id, id FROM artifact").fetchall())
        documents = artifact_documents(connection, sorted(artifacts.values()))
        queries = load_qrels(args.qrels)
        messages = resolve_messages(connection, [pair for q in queries for pair in q.relevant])
    finally:
        connection.close()
    order = sorted(documents)
    asks = []  # (question, positions of its photos in `order`)
    for query in queries:
        wanted = {artifacts[m] for pair in query.relevant if (m := messages.get(pair)) in artifacts}
        if wanted:
            asks.append((query.query, [order.index(a) for a in wanted]))
    embedder = LocalEmbedder()
    question_vectors = embedder.embed([q for q, _ in asks], "query")
    figures = {}
    heads_by_variant: dict[str, list[str]] = {}
    for artifact in order:
        for name, head in _variants(documents[artifact][0]).items():
            heads_by_variant.setdefault(name, []).append(head)
    for name, heads in heads_by_variant.items():
        started = time.perf_counter()
        vectors = embedder.embed(heads)
        seconds = time.perf_counter() - started
        ranks = []
        for (_, positions), question in zip(asks, question_vectors, strict=True):
            similarities = vectors @ question
            best = min(int((similarities > similarities[p]).sum()) for p in positions)
            ranks.append(best)
        ranks_array = np.array(ranks)
        figures[name] = {"chars_per_file": round(sum(map(len, heads)) / len(heads)),
                         "hit@1": round(float((ranks_array < 1).mean()), 3),
                         "hit@5": round(float((ranks_array < 5).mean()), 3),
                         "hit@20": round(float((ranks_array < 20).mean()), 3), "embed_s": round(seconds, 1)}
        row = figures[name]
        print(f"{name:>20}: {row['chars_per_file']} chars a file, hit@1 {row['hit@1']}, hit@5 {row['hit@5']}, "
              f"hit@20 {row['hit@20']} ({len(asks)} questions, {len(order)} files; embedded in {seconds:.1f} s)")
    print(json.dumps({"bench": "local_heads", "questions": len(asks), "files": len(order), "variants": figures}))


if __name__ == "__main__":
    main()
