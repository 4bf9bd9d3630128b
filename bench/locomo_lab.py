"""LoCoMo retrieval lab: `python -m bench.locomo_lab [--locomo PATH] [--only SECTION]`.

The alternatives behind the defaults, measured in memory (no store, no hnswlib: exact
scoring over every topic), on the same slice, queries and metrics as `bench.locomo`
(engine.evaluation.metrics). Each section varies one thing against a reference:

- granularity: what a topic is (sessions, balanced cuts, the subject splitter, greedy caps);
- context: adding the session's or the neighbouring topics' score to a topic's own;
- lexical: BM25 variants (IDF form, k1/b, RM3 pseudo-relevance feedback);
- vector: the hashed embedder's dimension, windows, features, and exact char TF-IDF;
- fusion: score normalisations, weights, RRF, a per-query weight;
- signals: best 5-message window BM25 and exact char TF-IDF added to the fusion.

Topic text (as the product indexes it): the days in words, then "Author: text" lines.
BM25 here is FTS5's formula (k1 1.2, b 0.75, IDF log((N-n+0.5)/(n+0.5)) floored at 1e-6)
over the product's stemmed terms and query terms, unless a row says otherwise. Numbers
can differ from `bench.locomo` by ~0.005 (no summary, exact instead of approximate search).
Prints one line per configuration.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import numpy as np

from bench.embedder_choice import exact_tfidf
from bench.locomo import DEFAULT_LOCOMO
from bench.locomo_convert import convert
from engine.embeddings.builtin import BuiltinEmbedder, idf_buckets
from engine.embeddings.hashing import features, normalise, word_features
from engine.evaluation.metrics import QueryOutcome, summarise
from engine.memory.documents import date_words, log_windows
from engine.retrieval.lexical import query_terms
from engine.text.stemming import terms as stemmed
from engine.topics.session_split import split_subjects
from engine.topics.sessions import MessageRow

Topics = list[list[int]]  # message indexes per topic
Scorer = Callable[[str], np.ndarray]


class Corpus:
    def __init__(self, path: Path) -> None:
        work = Path(tempfile.mkdtemp(prefix="flashback-locomo-lab-"))
        convert(path, work / "m.jsonl", work / "q.json")
        self.messages = [json.loads(line) for line in open(work / "m.jsonl", encoding="utf-8")]
        for m in self.messages:
            m["at"] = datetime.fromisoformat(m["date"]).timestamp()
        self.queries = json.loads((work / "q.json").read_text(encoding="utf-8"))["queries"]
        self.key = {(m["chat"], m["id"]): i for i, m in enumerate(self.messages)}
        sessions: dict[tuple, list[int]] = defaultdict(list)
        for i, m in enumerate(self.messages):
            sessions[(m["chat"], m["id"].split(":")[0])].append(i)
        self.sessions: Topics = list(sessions.values())

    def text(self, topic: list[int]) -> str:
        lines = [f"{self.messages[i]['author']}: {self.messages[i]['text']}" for i in topic]
        return "\n".join([date_words(self.messages[i]["at"] for i in topic), *lines])

    def rows(self, topic: list[int]) -> list[MessageRow]:
        return [MessageRow(i, 1, self.messages[i]["author"], "other", self.messages[i]["at"],
                           self.messages[i]["text"], "") for i in topic]


# ---- topics ----

def balanced(corpus: Corpus, topic: list[int], target: int) -> Topics:
    """Equal-size parts at message boundaries, no reading of the text."""
    sizes = [len(corpus.messages[i]["text"]) for i in topic]
    parts = max(1, round(sum(sizes) / target))
    out, current, done = [], [], 0
    for i, size in zip(topic, sizes, strict=True):
        if current and done + size / 2 > sum(sizes) / parts * (len(out) + 1) and len(out) < parts - 1:
            out.append(current)
            current = []
        current.append(i)
        done += size
    return out + [current]


def greedy_cap(corpus: Corpus, topic: list[int], cap: int) -> Topics:
    """A size cap cutting as soon as the next message would pass it (what sessions.py does with caps)."""
    out, current, size = [], [], 0
    for i in topic:
        length = len(corpus.messages[i]["text"])
        if current and size + length > cap:
            out.append(current)
            current, size = [], 0
        current.append(i)
        size += length
    return out + [current]


def subjects(corpus: Corpus, topic: list[int], target: int) -> Topics:
    return [[row.id for row in part] for part in split_subjects(corpus.rows(topic), target, 3600.0)]


# ---- scorers ----

class BM25:
    """Okapi BM25 over stemmed terms; `fts` IDF as FTS5 computes it, else Lucene's log(1 + …)."""

    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75, fts: bool = True) -> None:
        self._index([stemmed(t) for t in texts], k1, b, fts)

    @classmethod
    def over_terms(cls, documents: list[list[str]]) -> BM25:
        """BM25 over documents given as their terms (pairs, prefixed terms…), not texts."""
        model = cls.__new__(cls)
        model._index(documents, 1.2, 0.75, True)
        return model

    def _index(self, documents: list[list[str]], k1: float, b: float, fts: bool) -> None:
        self.k1, self.b, self.fts = k1, b, fts
        self.tf = [Counter(terms) for terms in documents]
        self.length = np.array([max(1, sum(c.values())) for c in self.tf], dtype=float)
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for j, counts in enumerate(self.tf):
            for term, n in counts.items():
                self.postings[term].append((j, n))
        self.n = len(documents)

    def idf(self, term: str) -> float:
        df = len(self.postings.get(term, ()))
        if self.fts:
            value = math.log((self.n - df + 0.5) / (df + 0.5))
            return value if value > 0 else 1e-6
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def score_terms(self, weights: dict[str, float]) -> np.ndarray:
        out = np.zeros(self.n)
        norm = self.k1 * (1 - self.b + self.b * self.length / self.length.mean())
        for term, weight in weights.items():
            idf = self.idf(term) * weight
            for j, n in self.postings.get(term, ()):
                out[j] += idf * n * (self.k1 + 1) / (n + norm[j])
        return out

    def __call__(self, query: str) -> np.ndarray:
        return self.score_terms(dict.fromkeys(query_terms(query), 1.0))


def rm3(bm25: BM25, docs: int = 5, terms: int = 10, alpha: float = 0.3) -> Scorer:
    """Pseudo-relevance feedback: the top documents' best terms added to the query with weight ≤ alpha."""
    def score(query: str) -> np.ndarray:
        first = bm25(query)
        weights: Counter[str] = Counter()
        for j in [j for j in np.argsort(-first)[:docs] if first[j] > 0]:
            for term, n in bm25.tf[j].items():
                if len(term) > 2 and not term.isdigit():
                    weights[term] += n / bm25.length[j] * first[j] * bm25.idf(term)
        original = set(query_terms(query))
        extra = [(t, w) for t, w in weights.most_common(terms + len(original)) if t not in original][:terms]
        top = extra[0][1] if extra else 1.0
        return bm25.score_terms({t: 1.0 for t in original} | {t: alpha * w / top for t, w in extra})
    return score


class Hashed:
    """The built-in embedder's vectors, best window per topic (exact search)."""

    def __init__(self, texts: list[str], dim: int = 1024, window: int = 4000,
                 embedder: BuiltinEmbedder | None = None) -> None:
        chunks, owners = [], []
        for j, text in enumerate(texts):
            for lines in log_windows(text.split("\n"), window):
                chunks.append("\n".join(lines))
                owners.append(j)
        self.embedder = embedder if embedder is not None else BuiltinEmbedder(dim).fit(chunks)
        self.matrix, self.owners = self.embedder.embed(chunks), np.array(owners)
        self.n, self.vectors = len(texts), len(chunks)

    def __call__(self, query: str) -> np.ndarray:
        out = np.full(self.n, -1.0)
        np.maximum.at(out, self.owners, self.matrix @ self.embedder.embed([query], "query")[0])
        return out


class Variant(BuiltinEmbedder):
    """Feature variants of the hashed embedder (class attributes set per variant)."""

    sizes = (3, 4, 5)
    prune = 1.0  # drop features in more than this share of the fitted documents
    binary = False
    words = False

    def fit(self, texts, on_progress=None, cancel=None):
        fitted = super().fit(texts, on_progress, cancel)
        fitted.__class__ = type(self)
        return fitted

    def feature_keys(self, text: str) -> np.ndarray:
        return self._features(text)[0]

    def _features(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        padded = normalise(text)
        keys, counts = features(padded, self.sizes)
        if self.words:
            word_keys, word_counts = word_features(padded)
            keys, counts = np.concatenate([keys, word_keys]), np.concatenate([counts, word_counts])
        return keys, counts

    def weighted_features(self, text: str, kind: str = "document") -> tuple[np.ndarray, np.ndarray]:
        keys, counts = self._features(text)
        weights = np.ones(len(keys)) if self.binary else 1.0 + np.log(counts)
        if self.idf is not None:
            buckets = idf_buckets(keys)
            weights = weights * self.idf.weights[buckets]
            share = self.idf.document_frequency[buckets] / max(1, self.idf.documents)
            weights = np.where(share > self.prune, 0.0, weights)
        return keys, weights


def variant(dim: int = 1024, **attributes) -> BuiltinEmbedder:
    return type("V", (Variant,), attributes)(dim)


def top_minmax(scores: np.ndarray, k: int = 50, how: str = "minmax") -> np.ndarray:
    """The product's normalisation over each side's top k (others 0), or a variant of it."""
    out = np.zeros(len(scores))
    idx = np.argsort(-scores, kind="stable")[:k]
    values = scores[idx]
    if how == "minmax":
        out[idx] = (values - values.min()) / ((values.max() - values.min()) or 1.0)
    elif how == "max":
        out[idx] = values / (values.max() or 1.0)
    elif how == "z":
        z = (values - values.mean()) / (values.std() or 1.0)
        out[idx] = z - z.min()
    elif how == "rrf":
        out[idx] = 1.0 / (60 + np.arange(1, len(idx) + 1))
    return out


def fuse(*sides: tuple[float, np.ndarray], how: str = "minmax") -> np.ndarray:
    return sum(weight * top_minmax(scores, how=how) for weight, scores in sides)


# ---- evaluation ----

class Lab:
    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    def run(self, name: str, topics: Topics, rank: Callable[[str], np.ndarray]) -> dict:
        topic_of = {i: j for j, topic in enumerate(topics) for i in topic}
        chars = {j: sum(len(self.corpus.messages[i]["text"]) for i in topic) for j, topic in enumerate(topics)}
        outcomes = []
        for query in self.corpus.queries:
            evidence = tuple(topic_of[self.corpus.key[(r["chat"], r["message"])]] for r in query["relevant"])
            scores = rank(query["query"])
            ranking = [int(j) for j in np.argsort(-scores, kind="stable")[:50]]
            outcomes.append(QueryOutcome(query["category"], ranking, frozenset(evidence), evidence, 0.0))
        m = summarise(outcomes, chars)
        print(f"{name:<58} R@1 {m['recall@1_any']:.3f}  R@5 {m['recall@5_any']:.3f}  R@10 {m['recall@10_any']:.3f}  "
              f"MRR {m['mrr']:.3f}  ev@8000 {m['evidence@8000']:.3f}  ev@32000 {m['evidence@32000']:.3f}  "
              f"topics {len(topics)} (mean {m['topic_chars_mean']:.0f})", flush=True)
        return m

    def standard(self, topics: Topics, lexical_weight: float = 0.9):
        texts = [self.corpus.text(t) for t in topics]
        bm25, hashed = BM25(texts), Hashed(texts)
        cache_b = {q["query"]: bm25(q["query"]) for q in self.corpus.queries}
        cache_v = {q["query"]: hashed(q["query"]) for q in self.corpus.queries}
        return texts, bm25, hashed, cache_b, cache_v, (
            lambda q: fuse((lexical_weight, cache_b[q]), (1 - lexical_weight, cache_v[q])))


def granularity(lab: Lab) -> None:
    c = lab.corpus
    cuts = [("sessions", c.sessions)]
    for target in (1500, 2000, 2500):
        cuts.append((f"balanced cuts, target {target}", [p for s in c.sessions for p in balanced(c, s, target)]))
    for target in (1500, 2000, 2500):
        cuts.append((f"subject splitter, target {target}", [p for s in c.sessions for p in subjects(c, s, target)]))
    for cap in (1500, 2500):
        cuts.append((f"greedy size cap {cap}", [p for s in c.sessions for p in greedy_cap(c, s, cap)]))
    for name, topics in cuts:
        *_, cache_b, _, fused = lab.standard(topics)
        lab.run(f"{name}: BM25", topics, lambda q, cache_b=cache_b: cache_b[q])
        lab.run(f"{name}: fused 0.9", topics, fused)


def context(lab: Lab) -> None:
    c = lab.corpus
    topics = [p for s in c.sessions for p in subjects(c, s, 2000)]
    session_of = {i: n for n, s in enumerate(c.sessions) for i in s}
    parent = np.array([session_of[t[0]] for t in topics])
    *_, fused = lab.standard(topics)
    *_, session_fused = lab.standard(c.sessions)
    own = {q["query"]: fused(q["query"]) for q in c.queries}
    whole = {q["query"]: session_fused(q["query"]) for q in c.queries}
    lab.run("own score (reference)", topics, lambda q: own[q])
    for beta in (0.3, 0.5, 1.0):
        lab.run(f"own + {beta} × its session's score", topics, lambda q, beta=beta: own[q] + beta * whole[q][parent])
    n = len(topics)
    previous = np.array([j - 1 if j and parent[j - 1] == parent[j] else n for j in range(n)])
    following = np.array([j + 1 if j + 1 < n and parent[j + 1] == parent[j] else n for j in range(n)])
    for beta in (0.1, 0.2, 0.3):
        def neighbours(q, beta=beta):
            padded = np.append(own[q], 0.0)
            return own[q] + beta * np.maximum(padded[previous], padded[following])
        lab.run(f"own + {beta} × best neighbouring topic", topics, neighbours)


def lexical(lab: Lab) -> None:
    c = lab.corpus
    topics = [p for s in c.sessions for p in subjects(c, s, 2000)]
    texts = [c.text(t) for t in topics]
    bm25 = BM25(texts)
    lab.run("BM25, FTS5 IDF, k1 1.2 b 0.75 (reference)", topics, bm25)
    lab.run("BM25, Lucene IDF log(1+…)", topics, BM25(texts, fts=False))
    for k1, b in ((0.9, 0.4), (1.2, 0.3), (1.2, 1.0), (2.0, 0.75)):
        lab.run(f"BM25 k1 {k1} b {b}", topics, BM25(texts, k1=k1, b=b))
    for docs, terms, alpha in ((3, 10, 0.3), (5, 10, 0.3), (5, 20, 0.5), (10, 20, 0.3)):
        lab.run(f"BM25 + RM3 ({docs} docs, {terms} terms, weight {alpha})", topics, rm3(bm25, docs, terms, alpha))


def vector(lab: Lab) -> None:
    c = lab.corpus
    topics = [p for s in c.sessions for p in subjects(c, s, 2000)]
    texts = [c.text(t) for t in topics]
    bm25 = BM25(texts)
    lexical_scores = {q["query"]: bm25(q["query"]) for q in c.queries}
    rows: list[tuple[str, Scorer, int]] = []
    for dim, window in ((1024, 4000), (1024, 2000), (1024, 1000), (1024, 600), (2048, 4000), (4096, 4000)):
        hashed = Hashed(texts, dim, window)
        rows.append((f"hashed d{dim}, windows of {window} chars", hashed, hashed.vectors))
    for name, attributes in (("prune features in > 20 % of texts", {"prune": 0.2}),
                             ("4-5-grams only", {"sizes": (4, 5)}), ("3-6-grams", {"sizes": (3, 4, 5, 6)}),
                             ("binary tf", {"binary": True}), ("+ whole words", {"words": True})):
        chunks = ["\n".join(lines) for text in texts for lines in log_windows(text.split("\n"), 4000)]
        hashed = Hashed(texts, window=4000, embedder=variant(1024, **attributes).fit(chunks))
        rows.append((f"hashed d1024, {name}", hashed, hashed.vectors))
    rows.append(("exact char 3-5-gram TF-IDF (no hashing)", exact_tfidf(texts), len(texts)))
    for name, scorer, vectors in rows:
        cache = {q["query"]: scorer(q["query"]) for q in c.queries}
        lab.run(f"{name} ({vectors} vectors): alone", topics, lambda q, cache=cache: cache[q])
        lab.run(f"{name}: fused 0.9", topics, lambda q, cache=cache: fuse((0.9, lexical_scores[q]), (0.1, cache[q])))


def fusion(lab: Lab) -> None:
    c = lab.corpus
    topics = [p for s in c.sessions for p in subjects(c, s, 2000)]
    *_, cache_b, cache_v, _ = lab.standard(topics)
    for how in ("minmax", "max", "z"):
        for weight in (0.5, 0.7, 0.8, 0.9, 1.0):
            lab.run(f"{how} normalisation, lexical weight {weight}", topics,
                    lambda q, w=weight, how=how: fuse((w, cache_b[q]), (1 - w, cache_v[q]), how=how))
    lab.run("reciprocal rank fusion k=60", topics, lambda q: fuse((1, cache_b[q]), (1, cache_v[q]), how="rrf"))

    def gap(scores: np.ndarray) -> float:
        top = np.sort(scores)[::-1]
        return float((top[0] - top[min(4, len(top) - 1)]) / (top[0] or 1.0))

    lab.run("per query: weight 0.6 + 0.35 × BM25 top-5 gap", topics,
            lambda q: fuse((w := 0.6 + 0.35 * min(1.0, 2 * gap(cache_b[q])), cache_b[q]), (1 - w, cache_v[q])))


def signals(lab: Lab) -> None:
    c = lab.corpus
    topics = [p for s in c.sessions for p in subjects(c, s, 2000)]
    texts, _, _, cache_b, cache_v, fused = lab.standard(topics)
    windows, owners = [], []
    for j, topic in enumerate(topics):
        for p in range(len(topic)):
            part = topic[max(0, p - 2):p + 3]
            windows.append("\n".join(f"{c.messages[i]['author']}: {c.messages[i]['text']}" for i in part))
            owners.append(j)
    window_bm25, owners = BM25(windows), np.array(owners)
    exact = exact_tfidf(texts)
    best_window, exact_scores = {}, {}
    for q in c.queries:
        out = np.zeros(len(topics))
        np.maximum.at(out, owners, window_bm25(q["query"]))
        best_window[q["query"]], exact_scores[q["query"]] = out, exact(q["query"])
    lab.run("fused 0.9 (reference)", topics, fused)
    lab.run("+ best 5-message window BM25 (0.65/0.15/0.2)", topics,
            lambda q: fuse((0.65, cache_b[q]), (0.15, cache_v[q]), (0.2, best_window[q])))
    lab.run("BM25 + exact char TF-IDF (0.7/0.3)", topics, lambda q: fuse((0.7, cache_b[q]), (0.3, exact_scores[q])))
    lab.run("BM25 + exact + window (0.55/0.25/0.2)", topics,
            lambda q: fuse((0.55, cache_b[q]), (0.25, exact_scores[q]), (0.2, best_window[q])))


SECTIONS = {"granularity": granularity, "context": context, "lexical": lexical, "vector": vector,
            "fusion": fusion, "signals": signals}


def run_sections(sections: dict[str, Callable[[Lab], None]], description: str) -> None:
    """The lab's command line: `[--locomo PATH] [--only SECTION]…`, then each section in turn."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--only", choices=sorted(sections), action="append")
    args = parser.parse_args()
    lab = Lab(Corpus(args.locomo))
    for name in args.only or sections:
        print(f"== {name}")
        sections[name](lab)


if __name__ == "__main__":
    run_sections(SECTIONS, __doc__.splitlines()[0])
