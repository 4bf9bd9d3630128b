"""What stage 1 hands on: a ranked, scored topic, person, artifact or unbuilt message (rerankers
take a list).

The kinds are a closed type: code that branches on a kind ends with `assert_never`, so mypy
fails where a new kind is not handled (issue 31: unbuilt messages broke five places that
only knew three kinds)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

# "message": a message no build has reached yet, found by its words (engine.retrieval.unbuilt).
CandidateKind = Literal["topic", "person", "artifact", "message"]
KINDS: tuple[CandidateKind, ...] = get_args(CandidateKind)


@dataclass(frozen=True)
class Candidate:
    kind: CandidateKind
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
