"""What stage 1 hands on: a ranked, scored topic, person or artifact (rerankers take a list)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

KINDS = ("topic", "person", "artifact")


@dataclass(frozen=True)
class Candidate:
    kind: str  # topic | person | artifact
    id: int
    rank: int  # 1-based, within its kind, in stage-1 order
    score: float  # in [0, 1], comparable across embedders: calibrated similarity, fused with BM25 in hybrid search
    raw_score: float  # the raw cosine of the query and the best window
    date: str | None = None  # ISO date of the first message (topics), last seen (people)
    chat: str | None = None
    messages: int = 0
    chars: int = 0
    summary: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
