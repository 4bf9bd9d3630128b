"""More LoCoMo lab sections: ideas aimed at the recall@5 misses, measured and not kept.

`python -m bench.locomo_lab_ideas [--only SECTION]`, in `bench.locomo_lab`'s setting
(2,000-char subjects, exact scoring, stemmed BM25 0.9 + hashed vectors 0.1):

- parts: how many parts a session is cut into (round vs floor of size / target) at
  several targets: the trade-off between recall@5 and evidence@8000;
- speakers: "author_term" pairs, so "what did Melanie paint" prefers Melanie's own lines;
- typos: query words not in the store replaced by the nearest stored term (edit distance);
- diversity: at most N subjects of one session near the top, or a score decay per
  earlier subject of the same session;
- proximity: BM25 over pairs of query terms that stand next to each other (or within a
  window) in a message, as in the sequential dependence model (Metzler & Croft 2005).

Prints one line per configuration.
"""

from __future__ import annotations

import sys
from collections import Counter

import numpy as np

import engine.topics.session_split as subjects_module
from bench.locomo_lab import BM25, Lab, fuse, run_sections, subjects
from engine.retrieval.lexical import query_stopwords, query_terms
from engine.text.stemming import terms as stemmed


def parts(lab: Lab) -> None:
    c = lab.corpus
    original = subjects_module.math.floor
    for rule, offset in (("round", 0.5), ("floor + 0.3", 0.3), ("floor", 0.0)):
        # split_subjects computes floor(total / target + 0.5); shift the 0.5 to change the rule
        subjects_module.math = _Shifted(offset - 0.5)
        try:
            for target in (1600, 1800, 2000, 2200):
                topics = [[r.id for r in p] for s in c.sessions
                          for p in subjects_module.split_subjects(c.rows(s), target, 3600.0)]
                *_, fused = lab.standard(topics)
                lab.run(f"parts by {rule}, target {target}", topics, fused)
        finally:
            subjects_module.math = sys.modules["math"]
    assert subjects_module.math.floor is original


class _Shifted:
    """`math` with floor(x) shifted by `delta`: the only use in split_subjects is the part count."""

    def __init__(self, delta: float) -> None:
        self.delta = delta

    def floor(self, x: float) -> int:
        return int(np.floor(x + self.delta))

    def __getattr__(self, name: str):
        return getattr(sys.modules["math"], name)


def speakers(lab: Lab) -> None:
    c = lab.corpus
    topics = [p for s in c.sessions for p in subjects(c, s, 2000)]
    _, _, _, bm25, hashed, fused = lab.standard(topics)
    authors = {stemmed(m["author"])[0] for m in c.messages if stemmed(m["author"])}
    pairs = BM25.over_terms([[f"{stemmed(c.messages[i]['author'])[0]}_{w}" for i in t
                              for w in stemmed(c.messages[i]["text"])] for t in topics])

    def pair_scores(query: str) -> np.ndarray:
        terms = query_terms(query)
        names = [t for t in terms if t in authors]
        return pairs.score_terms(dict.fromkeys((f"{n}_{t}" for n in names for t in terms if t not in authors), 1.0))

    cache = {q["query"]: pair_scores(q["query"]) for q in c.queries}
    lab.run("reference", topics, fused)
    for weight in (0.1, 0.2, 0.3, 0.4):
        lab.run(f"+ speaker-term pairs at {weight}", topics, lambda q, w=weight: fuse(
            (0.9 * (1 - w), bm25[q]), (0.1 * (1 - w), hashed[q]), (w, cache[q])))


def _distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def typos(lab: Lab) -> None:
    c = lab.corpus
    topics = [p for s in c.sessions for p in subjects(c, s, 2000)]
    _, bm25_model, _, _, hashed, fused = lab.standard(topics)
    vocabulary = {t: len(p) for t, p in bm25_model.postings.items()}
    fixed: dict[str, str] = {}
    for q in c.queries:
        for term in query_terms(q["query"]):
            if term in vocabulary or len(term) < 4:
                continue
            limit = 1 if len(term) < 7 else 2
            near = [(_distance(term, v), -vocabulary[v], v) for v in vocabulary
                    if abs(len(v) - len(term)) <= limit and v[0] == term[0]]
            near = [n for n in near if n[0] <= limit]
            if near:
                fixed[term] = min(near)[2]
    print(f"{len(fixed)} query terms replaced, e.g. {list(fixed.items())[:8]}")
    corrected = {q["query"]: bm25_model.score_terms(dict.fromkeys((fixed.get(t, t) for t in query_terms(q["query"])),
                                                                  1.0)) for q in c.queries}
    lab.run("reference", topics, fused)
    lab.run("typo-corrected query terms", topics, lambda q: fuse((0.9, corrected[q]), (0.1, hashed[q])))


def diversity(lab: Lab) -> None:
    c = lab.corpus
    topics, session = [], []
    for s, members in enumerate(c.sessions):
        for part in subjects(c, members, 2000):
            topics.append(part)
            session.append(s)
    *_, fused = lab.standard(topics)

    def capped(scores: np.ndarray, cap: int, depth: int) -> np.ndarray:
        seen: Counter = Counter()
        head, tail = [], []
        for j in np.argsort(-scores, kind="stable"):
            (head if seen[session[j]] < cap or len(head) >= depth else tail).append(j)
            seen[session[j]] += 1
        out = np.zeros(len(scores))
        for rank, j in enumerate(head[:depth] + tail + head[depth:]):
            out[j] = -rank
        return out

    def decayed(scores: np.ndarray, factor: float) -> np.ndarray:
        seen: Counter = Counter()
        out = scores.copy()
        for j in np.argsort(-scores, kind="stable"):
            out[j] = scores[j] * factor ** seen[session[j]]
            seen[session[j]] += 1
        return out

    lab.run("reference", topics, fused)
    for cap in (1, 2):
        lab.run(f"at most {cap} subject(s) of a session in the top 5", topics, lambda q, k=cap: capped(fused(q), k, 5))
    for factor in (0.5, 0.7, 0.9):
        lab.run(f"score × {factor} per earlier subject of its session", topics,
                lambda q, f=factor: decayed(fused(q), f))


def _pairs(tokens: list[str], window: int) -> list[str]:
    if window == 2:
        return [f"{a}_{b}" for a, b in zip(tokens, tokens[1:], strict=False)]
    return ["_".join(sorted((a, b))) for i, a in enumerate(tokens) for b in tokens[i + 1:i + window]]


def proximity(lab: Lab) -> None:
    c = lab.corpus
    topics = [p for s in c.sessions for p in subjects(c, s, 2000)]
    _, _, _, bm25, hashed, fused = lab.standard(topics)
    lab.run("reference", topics, fused)
    for window, keep_function_words in ((2, True), (2, False), (8, False)):
        docs = []
        for topic in topics:
            tokens: list[str] = []
            for i in topic:
                words = stemmed(c.messages[i]["text"])
                tokens += _pairs(words if keep_function_words else
                                 [w for w in words if w not in query_stopwords()], window)
            docs.append(tokens)
        pairs = BM25.over_terms(docs)
        cache = {q["query"]: pairs.score_terms(dict.fromkeys(_pairs(query_terms(q["query"]), window), 1.0))
                 for q in c.queries}
        label = f"window {window}" + (", function words kept in messages" if keep_function_words else "")
        for weight in (0.1, 0.2, 0.3):
            lab.run(f"+ term pairs ({label}) ×{weight} into BM25", topics,
                    lambda q, w=weight, extra=cache: fuse((0.9, bm25[q] + w * extra[q]), (0.1, hashed[q])))


SECTIONS = {"parts": parts, "speakers": speakers, "typos": typos, "diversity": diversity, "proximity": proximity}


if __name__ == "__main__":
    run_sections(SECTIONS, __doc__.splitlines()[0])
