"""Which built-in embedder: recall on LoCoMo session retrieval, speed and memory per variant.

    python -m bench.embedder_choice [--dims 512,1024,2048,4096] [--hnsw 20000]

Documents are LoCoMo sessions ("speaker: text" lines), queries are the questions
(category 5, adversarial, skipped), relevant = the sessions holding the evidence turns.
Two settings: "conv" searches the sessions of the question's own conversation (~25, how
LoCoMo is usually scored); "pool" searches all sessions of all conversations at once (more
distractors, closer to one store holding many chats). R@k = share of a question's relevant
sessions found in the top k; hit@k = at least one found (the measure behind the earlier
0.904 figure); both averaged over questions.

Variants: hashed char 3-5-grams (`BuiltinEmbedder`) without IDF, with IDF fitted on all
sessions (frozen, fingerprint in model_id), with IDF fitted on the *other* conversations only
(a table frozen before these chats arrived), with IDF on the query side only, plus words;
references: exact (unhashed) char TF-IDF fitted per corpus, and word BM25.
Prints a table and ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine.embeddings.builtin import DEFAULT_DIM, BuiltinEmbedder, idf_buckets
from engine.embeddings.hashing import features, normalise, word_features

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"
KS = (1, 5, 10)
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")  # tolerates "D8:6; D9:17", "D:11:26", "D30:05"; "D" yields nothing


def load_locomo(path: Path = LOCOMO) -> list[dict]:
    """Per conversation: its session texts and its answerable questions with relevant session indexes."""
    conversations = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        numbers = sorted(int(key.split("_")[1]) for key in conv if re.fullmatch(r"session_\d+", key) and conv[key])
        texts = ["\n".join(f"{turn['speaker']}: {turn['text']}" for turn in conv[f"session_{n}"]) for n in numbers]
        position = {n: i for i, n in enumerate(numbers)}
        questions = []
        for qa in sample["qa"]:
            if qa.get("category") == 5:
                continue
            relevant = {position[int(s)] for ev in qa.get("evidence", []) for s, _ in _EVIDENCE.findall(str(ev))
                        if int(s) in position}
            if relevant:
                questions.append((qa["question"], relevant))
        conversations.append({"id": sample["sample_id"], "texts": texts, "questions": questions})
    return conversations


def recall_and_hit(scores: np.ndarray, relevant: set[int], offset: int = 0) -> dict[str, float]:
    """R@k (share of the relevant sessions in the top k) and hit@k (at least one of them is)."""
    order = np.argsort(-scores, kind="stable")
    out = {}
    for k in KS:
        found = len({int(i) - offset for i in order[:k]} & relevant)
        out[f"r@{k}"], out[f"hit@{k}"] = found / len(relevant), float(found > 0)
    return out


# ---- reference scorers that are not embedders ----

def exact_tfidf(docs: list[str]) -> Callable[[str], np.ndarray]:
    """Unhashed char 3-5-gram TF-IDF (sublinear tf, smooth idf) fitted on `docs`: what hashing approximates."""
    bags = [dict(zip(*features(normalise(d))[:2], strict=True)) for d in docs]
    df = Counter(key for bag in bags for key in bag)
    idf = {key: math.log((1 + len(docs)) / (1 + n)) + 1 for key, n in df.items()}

    def vec(bag: dict) -> dict:
        v = {k: (1 + math.log(c)) * idf.get(k, math.log(1 + len(docs)) + 1) for k, c in bag.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {k: x / norm for k, x in v.items()}

    doc_vecs = [vec(b) for b in bags]

    def score(query: str) -> np.ndarray:
        q = vec(dict(zip(*features(normalise(query))[:2], strict=True)))
        return np.array([sum(x * d.get(k, 0.0) for k, x in q.items()) for d in doc_vecs])

    return score


def bm25(docs: list[str], k1: float = 1.2, b: float = 0.75) -> Callable[[str], np.ndarray]:
    bags = [Counter(normalise(d).split()) for d in docs]
    lengths = np.array([sum(bag.values()) for bag in bags], dtype=float)
    df = Counter(word for bag in bags for word in bag)
    n = len(docs)

    def score(query: str) -> np.ndarray:
        out = np.zeros(n)
        for word in set(normalise(query).split()):
            if word not in df:
                continue
            idf = math.log(1 + (n - df[word] + 0.5) / (df[word] + 0.5))
            tf = np.array([bag.get(word, 0) for bag in bags], dtype=float)
            out += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths / lengths.mean()))
        return out

    return score


# ---- evaluation ----

def evaluate(conversations: list[dict], make: Callable[[list[dict], int], Callable]) -> dict[str, float]:
    """`make(conversations, held_out)` returns a scorer over the docs it is given: `(docs)(query) -> scores`."""
    sums = {f"{where}_{m}@{k}": 0.0 for where in ("conv", "pool") for m in ("r", "hit") for k in KS}
    count = 0
    all_docs = [t for c in conversations for t in c["texts"]]
    pool_scorer = make(conversations, -1)(all_docs)
    offset = 0
    for index, conv in enumerate(conversations):
        scorer = make(conversations, index)(conv["texts"])
        for question, relevant in conv["questions"]:
            for metric, value in recall_and_hit(scorer(question), relevant).items():
                sums[f"conv_{metric}"] += value
            for metric, value in recall_and_hit(pool_scorer(question), relevant, offset).items():
                sums[f"pool_{metric}"] += value
            count += 1
        offset += len(conv["texts"])
    return {key: round(value / count, 3) for key, value in sums.items()} | {"questions": count}


def embedder_scorer(embedder: BuiltinEmbedder) -> Callable[[list[str]], Callable[[str], np.ndarray]]:
    def build(docs: list[str]) -> Callable[[str], np.ndarray]:
        matrix = embedder.embed(docs)
        return lambda query: matrix @ embedder.embed([query], kind="query")[0]
    return build


class QueryOnlyIdf(BuiltinEmbedder):
    """IDF on the query side only (squared, so a match still weighs idf² as in TF-IDF).

    Stored vectors would never depend on the table, so it could be refitted freely.
    """

    def weighted_features(self, text: str, kind: str = "document") -> tuple[np.ndarray, np.ndarray]:
        keys, counts = features(normalise(text))
        weights = 1.0 + np.log(counts)
        if self.idf is not None and kind == "query":
            weights *= self.idf.weights[idf_buckets(keys)] ** 2
        return keys, weights


class WordsAndChars(BuiltinEmbedder):
    """Whole words as extra features next to the char n-grams, at half weight (measured best of 0.5/1/2)."""

    WORD_WEIGHT = 0.5

    def feature_keys(self, text: str) -> np.ndarray:
        padded = normalise(text)
        return np.concatenate([features(padded)[0], word_features(padded)[0]])

    def weighted_features(self, text: str, kind: str = "document") -> tuple[np.ndarray, np.ndarray]:
        padded = normalise(text)
        (grams, gram_counts), (words, word_counts) = features(padded), word_features(padded)
        keys = np.concatenate([grams, words])
        weights = np.concatenate([1.0 + np.log(gram_counts), self.WORD_WEIGHT * (1.0 + np.log(word_counts))])
        if self.idf is not None:
            weights *= self.idf.weights[idf_buckets(keys)]
        return keys, weights


def fitted(embedder: BuiltinEmbedder, corpus: str) -> Callable:
    """IDF fitted on "all" sessions, the conversation's "own" sessions, or only the "others" (a stale table)."""
    cache: dict[int, BuiltinEmbedder] = {}

    def make(conversations: list[dict], held_out: int) -> Callable:
        key = -1 if corpus == "all" or held_out < 0 else held_out
        if key not in cache:
            chosen = [c for i, c in enumerate(conversations)
                      if key < 0 or (i == held_out) == (corpus == "own")]
            cache[key] = embedder.fit([t for c in chosen for t in c["texts"]])
        return embedder_scorer(cache[key])
    return make


def speed(embedder: BuiltinEmbedder, conversations: list[dict]) -> dict[str, float]:
    lines = [line for c in conversations for t in c["texts"] for line in t.split("\n")]
    long_texts, chunk = [], []
    for line in lines * 10:  # ~3,000-character texts, like a topic's embedding text
        chunk.append(line)
        if sum(map(len, chunk)) >= 3000:
            long_texts.append("\n".join(chunk)[:3000])
            chunk = []
    queries = [q for c in conversations for q, _ in c["questions"]]
    started = time.perf_counter()
    embedder.embed(long_texts)
    docs_per_s = len(long_texts) / (time.perf_counter() - started)
    started = time.perf_counter()
    for q in queries:
        embedder.embed([q], kind="query")
    query_ms = (time.perf_counter() - started) * 1000 / len(queries)
    started = time.perf_counter()
    embedder.fit(long_texts)
    fit_per_s = len(long_texts) / (time.perf_counter() - started)
    return {"docs_per_s": round(docs_per_s), "query_ms": round(query_ms, 3), "fit_docs_per_s": round(fit_per_s),
            "doc_chars": 3000, "docs": len(long_texts)}


def hnsw_check(conversations: list[dict], count: int, dims: list[int]) -> dict[str, dict]:
    """hnswlib recall@10 against brute force on `count` synthetic topics (25 random LoCoMo turns each)."""
    import random

    import hnswlib

    rng = random.Random(0)
    lines = [line for c in conversations for t in c["texts"] for line in t.split("\n")]
    docs = ["\n".join(rng.sample(lines, 25)) for _ in range(count)]
    queries = [q for c in conversations for q, _ in c["questions"]][:300]
    out = {}
    for dim in dims:
        embedder = BuiltinEmbedder(dim).fit(docs[:2000])
        vectors, query_vectors = embedder.embed(docs), embedder.embed(queries, kind="query")
        index = hnswlib.Index(space="ip", dim=dim)
        index.init_index(max_elements=count, M=16, ef_construction=200)
        started = time.perf_counter()
        index.add_items(vectors, np.arange(count), num_threads=1)
        row = {"build_s": round(time.perf_counter() - started, 1)}
        exact = np.argsort(-(query_vectors @ vectors.T), axis=1)[:, :10]
        for ef in (64, 128, 256, 512):
            index.set_ef(ef)
            labels, _ = index.knn_query(query_vectors, k=10, num_threads=1)
            row[f"ef{ef}_recall@10"] = round(float(np.mean([len(set(a) & set(b)) / 10
                                                             for a, b in zip(labels, exact, strict=True)])), 3)
        out[f"d{dim}"] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dims", default="256,512,1024,2048,4096,65536")
    parser.add_argument("--hnsw", type=int, default=0, help="also check hnswlib recall on N synthetic topics")
    args = parser.parse_args()
    conversations = load_locomo()
    dims = [int(d) for d in args.dims.split(",")]
    questions = sum(len(c["questions"]) for c in conversations)
    print(f"LoCoMo dev: {len(conversations)} conversations, "
          f"{sum(len(c['texts']) for c in conversations)} sessions, {questions} questions (category 5 skipped)")

    rows: dict[str, dict] = {}
    base = BuiltinEmbedder()
    rows["exact char 3-5 tf-idf (reference)"] = evaluate(conversations, lambda cs, held: exact_tfidf)
    rows["word bm25 (reference)"] = evaluate(conversations, lambda cs, held: bm25)
    rows["d1024 no idf"] = evaluate(conversations, lambda cs, held: embedder_scorer(base))
    rows["d1024 idf fitted on all"] = evaluate(conversations, fitted(base, "all"))
    rows["d1024 idf fitted on own conv"] = evaluate(conversations, fitted(base, "own"))
    rows["d1024 idf fitted on others"] = evaluate(conversations, fitted(base, "others"))
    rows["d1024 idf query side only"] = evaluate(conversations, fitted(QueryOnlyIdf(), "all"))
    rows["d1024 words+chars idf all"] = evaluate(conversations, fitted(WordsAndChars(), "all"))
    for dim in dims:
        if dim != DEFAULT_DIM:
            rows[f"d{dim} idf fitted on all"] = evaluate(conversations, fitted(BuiltinEmbedder(dim), "all"))

    header = ["variant", *(f"{w} {m}@{k}" for w in ("conv", "pool") for m in ("R", "hit") for k in KS)]
    print("\n" + " | ".join(header))
    for name, row in rows.items():
        cells = [f"{row[f'{w}_{m}@{k}']:.3f}" for w in ("conv", "pool") for m in ("r", "hit") for k in KS]
        print(" | ".join([name, *cells]))
    print("(pool figures of 'own'/'others' equal 'all': the pooled corpus is every conversation)")

    memory = {f"d{d}": round(100_000 * d * 4 / 1e6) for d in sorted({*dims, DEFAULT_DIM})}
    print("\nMB of float32 vectors per 100k topics (hnswlib stores dim*4 bytes each):", memory)
    figures = speed(base.fit([t for c in conversations for t in c["texts"]]), conversations)
    print(f"speed d{DEFAULT_DIM}: {figures['docs_per_s']} texts/s of 3,000 chars, {figures['query_ms']} ms per "
          f"question, fit {figures['fit_docs_per_s']} texts/s")
    hnsw = hnsw_check(conversations, args.hnsw, [d for d in dims if d <= 4096]) if args.hnsw else {}
    for name, row in hnsw.items():
        print(f"hnswlib {args.hnsw} topics {name}: {row}")
    print(json.dumps({"bench": "embedder_choice", "questions": questions, "default": base.model_id,
                      "recall": rows, "mb_per_100k": memory, "speed": figures, "hnsw": hnsw},
                     separators=(",", ":")))


if __name__ == "__main__":
    main()
