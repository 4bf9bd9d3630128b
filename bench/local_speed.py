"""How fast the local model embeds here, and what a 1M-message store would cost:
`python -m bench.local_speed [--cores 1|2] [--sample 120]`.

Texts from the LoCoMo dev slice in three sizes: single messages, the ~600-char passages the
app cuts topics into for this model (`PassageShape`), and the 4,000-char windows the
built-in embedder gets. Wall and CPU seconds per text for each (CPU time shows the cost on
a busy machine; wall time is what a person waits). `--cores 1` pins the process to one
core, as the window's build child is (it leaves the other to the window).

The projection takes how many passages and characters the app embeds per message on the
dev slice (a built-in build gives the topics; summaries, passages, people, artifacts) and
scales it to 1,000,000 messages at the measured characters per second.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

from bench.locomo import DEFAULT_LOCOMO
from bench.locomo_convert import convert
from engine.api import Flashback
from engine.memory.documents import PassageShape
from engine.memory.people_and_files import artifact_documents, people_documents
from engine.memory.topic_documents import topic_documents_for
from engine.store.database import connect, db_path

MESSAGES = 1_000_000


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _texts(work: Path, locomo: Path) -> tuple[dict[str, list[str]], dict[str, float]]:
    """Sample texts of each size, and what the app embeds per message on the dev slice."""
    export = work / "locomo.jsonl"
    report = convert(locomo, export, work / "qrels.json")
    service = Flashback(work / "store")
    service.imports.import_path(export)
    service.memory.build()  # built-in: only the topics are wanted, and they do not depend on the embedder
    connection = connect(db_path(work / "store"))
    try:
        topic_ids = [r[0] for r in connection.execute("SELECT id FROM topic ORDER BY id")]
        shape = PassageShape()  # what the build embeds for this model: passages, heads of people and files
        passages = [t for texts in topic_documents_for(connection, topic_ids, shape).values() for t in texts]
        windows = [t for texts in topic_documents_for(connection, topic_ids, 4000).values() for t in texts]
        entities = [t for texts in shape.entities(people_documents(connection)).values() for t in texts]
        artifact_ids = [r[0] for r in connection.execute("SELECT id FROM artifact")]
        artifacts = shape.entities(artifact_documents(connection, artifact_ids))
        entities += [t for texts in artifacts.values() for t in texts]
        messages = [r[0] for r in connection.execute("SELECT author || ': ' || text FROM message WHERE text != ''")]
    finally:
        connection.close()
    per_message = {"messages": report.messages, "topics": len(topic_ids),
                   "passages_per_message": len(passages) / report.messages,
                   "passage_chars_per_message": sum(map(len, passages)) / report.messages,
                   "entity_chars_per_message": sum(map(len, entities)) / report.messages,
                   "entity_texts_per_message": len(entities) / report.messages}
    return {"message": messages, "passage": passages, "window 4000": windows}, per_message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--cores", type=int, default=1, help="1: pinned to one core, as the window's build is")
    parser.add_argument("--sample", type=int, default=120, help="texts timed per size (windows: a quarter)")
    args = parser.parse_args()
    if args.cores == 1 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[-1:])  # before the engine starts its threads
    from engine.embeddings.local import LocalEmbedder

    work = Path(tempfile.mkdtemp(prefix="flashback-local-speed-"))
    texts, per_message = _texts(work, args.locomo)
    embedder = LocalEmbedder()
    embedder.embed(["warm-up"])
    figures: dict[str, dict[str, float]] = {}
    for size, pool in texts.items():
        count = args.sample // 4 if size.startswith("window") else args.sample
        sample = pool[:: max(1, len(pool) // count)][:count]
        wall, cpu = time.perf_counter(), _cpu()
        embedder.embed(sample)
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu
        chars = sum(map(len, sample))
        figures[size] = {"texts": len(sample), "mean_chars": round(chars / len(sample)),
                         "texts_per_s": round(len(sample) / wall, 2), "chars_per_s": round(chars / wall),
                         "chars_per_cpu_s": round(chars / cpu)}
        print(f"{size:>12}: {len(sample)} texts of {chars / len(sample):.0f} chars: {len(sample) / wall:.2f} texts/s "
              f"({chars / wall:.0f} chars/s wall, {chars / cpu:.0f} per CPU second)")
    wall, cpu = time.perf_counter(), _cpu()
    queries = 20
    for number in range(queries):
        embedder.embed([f"When did Jon go to the fair number {number}?"], "query")
    query_ms = (time.perf_counter() - wall) * 1000 / queries
    rate = figures["passage"]["chars_per_s"]
    topic_chars = per_message["passage_chars_per_message"] * MESSAGES
    entity_chars = per_message["entity_chars_per_message"] * MESSAGES
    projection = {"topic_hours": round(topic_chars / rate / 3600, 1), "people_artifact_hours": round(
        entity_chars / rate / 3600, 1), "per_message_every_message_hours": round(
        MESSAGES / figures["message"]["texts_per_s"] / 3600, 1)}
    print(f"query: {query_ms:.0f} ms; per message on the dev slice: {per_message}")
    print(f"1M messages at {rate} chars/s: topics {projection['topic_hours']} h, people and artifacts "
          f"{projection['people_artifact_hours']} h (every message on its own: "
          f"{projection['per_message_every_message_hours']} h)")
    print(json.dumps({"bench": "local_speed", "cores": args.cores, "load": os.getloadavg()[0],
                      "sizes": figures, "query_ms": round(query_ms), "per_message": per_message,
                      "projection_1m": projection}))


if __name__ == "__main__":
    main()
