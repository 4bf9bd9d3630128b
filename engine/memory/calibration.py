"""Making similarity scores mean the same whatever the embedder.

Raw cosines live in different ranges: a lexical hashed vector gives unrelated texts ~0.05
and a good match ~0.35; an API model gives ~0.55 and ~0.85. Thresholds set with sliders
(safety 0.3, threshold 0.5, gap 0.15) must cut alike for both, so every raw score goes
through a per-model linear map fixed by two anchors measured on the store itself:

- `unrelated`: the 90th percentile of cosines between probe queries and topics they were
  not taken from (maps to 0.30: the safety threshold drops nearly all of the unrelated);
- `related`: the median cosine between a probe and the topic it was taken from (maps to
  0.70: a typical real match clears the 0.50 threshold with room to spare).

A probe is a run of 4 to 10 words (`PROBE_WORDS`) from one message of a sampled topic: questions
share a few words with what they ask about, not whole messages (whole-message probes set
the anchors far above where real questions land: measured on LoCoMo, docs/benchmarks.md). The
anchors are saved per model next to the indexes; a store too small to measure (fewer than
`MIN_TOPICS` topics) uses the embedder's `default_anchors` (the built-in one's are measured on
small stores), or passes raw scores through.

A sentence model (the local multilingual-e5-small) needs another scale. Its cosines sit in
a narrow band that moves with the language pair: on LoCoMo conv-30 the topic holding the
answer had a median cosine of 0.867 for English questions and 0.816 for the same questions
in Russian, while the best *other* topics sat at 0.852 and 0.813 (issue 15; docs/benchmarks.md).
No fixed cosine separates them, and probes of 4-10 random words did not either (their own
topic's median 0.846 against 0.847 for the others). What does hold is how far a topic stands
out from the rest of the store *for this query*: a "relative" calibration scores
z = (cosine − mean) / standard deviation over a fixed sample of the store's topic vectors
(`background_sample`). Then the answer's median z was 2.43 (English), 2.08 (Russian) and 2.48
(English questions over the demo's Russian chats): the language shift is gone. Such an
embedder names its anchors in z (`relative_anchors`, unrelated → 0.30, related → 0.70);
they are the model's, not probed per store.
"""

from __future__ import annotations

import json
import math
import random
import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engine.embeddings.base import Embedder
from engine.files import private_folder, write_private
from engine.memory.item_vectors import ItemVectors
from engine.memory.vectors import items_of_entities
from engine.messages import Message, msg
from engine.store.sql import IDS, select_in

UNRELATED_SCORE = 0.30
RELATED_SCORE = 0.70
MIN_TOPICS = 12
PROBES = 200
PROBE_WORDS = (4, 10)  # a query's length in words: a short search to a long question
FILE_NAME = "calibration.json"
BACKGROUND_ITEMS = 512  # topic vectors a relative calibration compares each query with
RELATIVE_FALLBACK = (1.0, 3.0)  # z anchors when probes cannot separate raw cosines: the local E5 model's
COMPARISON_TOPICS = 2000
_PROBE_TEXT = "is_service = 0 AND length(text) >= 60"


@dataclass(frozen=True)
class Calibration:
    model_id: str
    unrelated: float  # raw cosine mapped to UNRELATED_SCORE
    related: float  # raw cosine mapped to RELATED_SCORE
    probes: int = 0  # 0: defaults, not measured
    relative: bool = False  # anchors are z-scores against the query's background (see the module docstring)

    def score(self, raw: float | np.ndarray, background: tuple[float, float] | None = None) -> float | np.ndarray:
        """Raw cosine(s) → [0, 1]. A relative calibration needs the query's `background`
        (mean, standard deviation: `query_background`); without one it scores 0."""
        raw = np.asarray(raw, dtype=np.float64)
        if self.relative:
            if background is None:
                raw = np.full_like(raw, -np.inf)
            else:
                mean, deviation = background
                raw = (raw - mean) / max(deviation, 1e-6)
        span = max(self.related - self.unrelated, 1e-6)
        scaled = UNRELATED_SCORE + (raw - self.unrelated) * (RELATED_SCORE - UNRELATED_SCORE) / span
        clipped = np.clip(scaled, 0.0, 1.0)
        return float(clipped) if np.ndim(clipped) == 0 else clipped


def default_calibration(embedder: Embedder) -> Calibration:
    """Until a store is big enough to measure: the embedder's own `default_anchors` where it
    names them (the built-in one: from its first topic on, issue 23), else scores pass through
    (raw 0.30 → 0.30, 0.70 → 0.70); an embedder with `relative_anchors` always gets those."""
    anchors = getattr(embedder, "relative_anchors", None)
    if anchors is not None:
        return Calibration(embedder.model_id, unrelated=anchors[0], related=anchors[1], relative=True)
    unrelated, related = getattr(embedder, "default_anchors", None) or (0.30, 0.70)
    return Calibration(embedder.model_id, unrelated=unrelated, related=related)


def background_sample(connection: sqlite3.Connection, model_id: str, size: int = BACKGROUND_ITEMS,
                      source: ItemVectors | None = None) -> np.ndarray:
    """Up to `size` topic vectors spread evenly over the store (every n-th item), float32 rows."""
    items = [r[0] for r in connection.execute(
        "SELECT id FROM vector_item WHERE model_id = ? AND kind = 'topic' ORDER BY id", (model_id,))]
    if not items:
        return np.zeros((0, 0), dtype=np.float32)
    chosen = items[:: max(1, len(items) // size)][:size]
    return (source or ItemVectors(connection, model_id)).load("topic", chosen)[2]


def query_background(sample: np.ndarray, query_vector: np.ndarray) -> tuple[float, float] | None:
    """(mean, standard deviation) of the query's cosines with the background sample."""
    if len(sample) < 2:
        return None
    cosines = sample @ query_vector
    return float(cosines.mean()), float(cosines.std())


def _sample_comparison(rng: random.Random, eligible: list[int], probe_topics: list[int]) -> list[int]:
    """The probes' own topics plus up to COMPARISON_TOPICS others: unrelated cosines are a
    percentile, which a few thousand topics pin down as well as a whole big store would."""
    if len(eligible) <= COMPARISON_TOPICS:
        return eligible
    return sorted(set(probe_topics) | set(rng.sample(eligible, COMPARISON_TOPICS)))


def measure(connection: sqlite3.Connection, embedder: Embedder, source: ItemVectors | None = None,
            seed: int = 7) -> Calibration | None:
    """Anchors from probes on this store, or None when it is too small to say. `source`: where
    the topics' vectors are read (a build's own index), else the cache or the embedder again.

    Reads only the sampled topics' messages and vectors, so it costs the same on a store
    of a million messages as on a small one.
    """
    if getattr(embedder, "relative_anchors", None) is not None:
        return default_calibration(embedder)  # the model's own anchors: nothing to probe
    eligible = [r[0] for r in connection.execute(
        f"SELECT DISTINCT topic_id FROM message WHERE topic_id IS NOT NULL AND {_PROBE_TEXT} ORDER BY topic_id")]
    if len(eligible) < MIN_TOPICS:
        return None
    rng = random.Random(seed)
    topics = rng.sample(eligible, min(PROBES, len(eligible)))
    texts: dict[int, list[str]] = {}
    for topic_id, text in select_in(
            connection, f"SELECT topic_id, text FROM message WHERE topic_id IN ({IDS}) AND {_PROBE_TEXT} ORDER BY id",
            topics):
        texts.setdefault(topic_id, []).append(text)
    probes = []
    for topic in topics:
        words = rng.choice(texts[topic]).split()
        length = rng.randint(*PROBE_WORDS)
        start = rng.randrange(max(1, len(words) - length + 1))
        probes.append(" ".join(words[start:start + length]))
    compared = _sample_comparison(rng, eligible, topics)
    source = source or ItemVectors(connection, embedder.model_id, embedder=embedder)
    labels, entities, vectors = source.load("topic", items_of_entities(connection, embedder.model_id, "topic",
                                                                       compared))
    if not len(labels):
        return None
    query_vectors = embedder.embed(probes, "query")
    similarity = query_vectors @ vectors.T  # probes × items
    topic_ids = sorted(set(entities.tolist()))
    column = {t: i for i, t in enumerate(topic_ids)}
    per_topic = np.full((len(probes), len(topic_ids)), -1.0, dtype=np.float32)
    owners = np.array([column[e] for e in entities.tolist()])
    for item, owner in enumerate(owners):  # best chunk per topic
        per_topic[:, owner] = np.maximum(per_topic[:, owner], similarity[:, item])
    own = np.array([column.get(t, -1) for t in topics])
    related = [per_topic[i, own[i]] for i in range(len(probes)) if own[i] >= 0]
    mask = np.ones_like(per_topic, dtype=bool)
    mask[np.arange(len(probes))[own >= 0], own[own >= 0]] = False
    unrelated = per_topic[mask]
    if not related or not unrelated.size:
        return None
    measured = Calibration(embedder.model_id, unrelated=float(np.percentile(unrelated, 90)),
                           related=float(np.median(related)), probes=len(probes))
    if measured.related <= measured.unrelated:
        # The probes cannot tell their own topic from the rest on a raw-cosine scale: a
        # sentence model's narrow band (multilingual-e5-small served as a custom endpoint:
        # unrelated 0.848 above related 0.833 on LoCoMo conv-30). Such anchors made every
        # topic under 0.848 score 0, so the safety threshold dropped real answers. Score how far
        # a topic stands out for the query instead, as the local E5 model does.
        return Calibration(embedder.model_id, unrelated=RELATIVE_FALLBACK[0], related=RELATIVE_FALLBACK[1],
                           probes=len(probes), relative=True)
    return measured


def save(folder: Path, calibration: Calibration) -> None:
    if not valid(calibration):
        raise ValueError(f"refusing to save invalid calibration anchors {calibration}")
    private_folder(folder)
    path = folder / FILE_NAME
    try:
        saved = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except ValueError:
        saved = {}  # damaged: this model's anchors replace it, the others are measured again
    if not isinstance(saved, dict):
        saved = {}
    saved[calibration.model_id] = asdict(calibration)
    write_private(path, json.dumps(saved, indent=1))


def valid(calibration: Calibration) -> bool:
    """Finite anchors: a NaN anchor made every score NaN and every search empty, without a
    word (issue 12, finding 5). Their order is not checked: a model that cannot tell a
    probe's own topic from the others (related ≤ unrelated, seen with hash-like test
    vectors) is weak, not damaged, and `score` already copes with a span of zero."""
    return math.isfinite(calibration.unrelated) and math.isfinite(calibration.related)


def load(folder: Path, embedder: Embedder) -> Calibration:
    """The saved anchors of `embedder`'s model, or the defaults when there are none or they
    are unusable (`problem` says which)."""
    if getattr(embedder, "relative_anchors", None) is not None:
        return default_calibration(embedder)
    try:
        saved = json.loads((Path(folder) / FILE_NAME).read_text(encoding="utf-8"))
        calibration = Calibration(**saved[embedder.model_id])
    except (OSError, ValueError, KeyError, TypeError):
        return default_calibration(embedder)
    return calibration if valid(calibration) else default_calibration(embedder)


def discard(folder: Path, model_id: str) -> None:
    """Forget `model_id`'s saved anchors (unusable ones: the next build measures anew)."""
    path = Path(folder) / FILE_NAME
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        path.unlink(missing_ok=True)
        return
    if isinstance(saved, dict) and saved.pop(model_id, None) is not None:
        write_private(path, json.dumps(saved, indent=1))


MISSING = msg("memory.calibration.missing")


def problem(folder: Path, model_id: str) -> str | None:
    """Why the saved calibration of `model_id` cannot be used ("missing", "unreadable",
    "invalid: …"), or None when it is fine."""
    found = problem_message(folder, model_id)
    return str(found) if found is not None else None


def problem_message(folder: Path, model_id: str) -> Message | None:
    """`problem` as a code (`MISSING`, unreadable, invalid with its anchors), for a face to say."""
    path = Path(folder) / FILE_NAME
    if not path.exists():
        return MISSING
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if model_id not in saved:
            return MISSING
        calibration = Calibration(**saved[model_id])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return msg("memory.calibration.unreadable")
    if not valid(calibration):
        return msg("memory.calibration.invalid", unrelated=calibration.unrelated, related=calibration.related)
    return None
