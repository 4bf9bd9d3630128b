"""Stage 1's settings, apart from stage 1 itself: the settings schema (engine/api/settings.py)
reads their defaults, and every command builds its argparse options from that schema, so
importing them must not bring in numpy and the indexes (`flashback --version` would pay
~150 ms for them). `engine.retrieval.search` re-exports the class."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RetrievalSettings:
    candidates: int = 50
    safety_threshold: float = 0.30  # calibrated score
    hybrid: bool = True
    fusion: str = "score"  # "score": weighted min-max score fusion; "rrf": reciprocal rank fusion (k=60)
    # Share of the BM25 side in score fusion; None: by embedder (`default_lexical_weight`).
    lexical_weight: float | None = None
    mmr: bool = False
    mmr_lambda: float = 0.5
    people: int = 20
    artifacts: int = 20
    date_from: float | None = None  # UTC epoch seconds, inclusive
    date_to: float | None = None
    chat_ids: tuple[int, ...] = ()
