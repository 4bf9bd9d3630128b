"""The cross-encoder's knobs: seed 002 §7's conditions and cuts, and its own selection.

The seed runs the cross-encoder "only when there are more than 20 candidates or their
scores barely differ": with few candidates whose stage-1 scores are clearly apart, stage 1
has already chosen. Each of the two conditions can be switched off:

    skip_small  a query with ≤ `small_limit` topic candidates is a reason to skip
    skip_flat   stage 1's top scores lying clearly apart (the spread of the first
                `flat_window` ≥ `flat_spread`) is a reason to skip; a flat spread runs it

A query is skipped when every condition that is on says skip (both on: the seed's rule;
both off: the cross-encoder always runs). `threshold` and `top_k` choose among the scored
passages as the threshold reranker's sliders do among stage-1 scores.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from engine.messages import msg
from engine.rerank.cross_encoder.errors import CrossEncoderSettingsError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CrossEncoderSettings:
    threshold: float = 0.10  # keep passages the cross-encoder scores ≥ this (a probability)
    top_k: int = 5  # then at most this many, best first
    top_n: int = 40  # stage-1 topic candidates sent to the server (the seed's top_n)
    passage_tokens: int = 256  # each passage cut to about this many tokens (engine/text/tokens.py)
    batch: int = 16  # passages per request (the seed's 8-16)
    skip_small: bool = True
    skip_flat: bool = True
    small_limit: int = 20
    flat_spread: float = 0.05  # top scores closer than this count as flat (calibrated stage-1 scores)
    flat_window: int = 5
    timeout: float = 30.0  # seconds for the whole step: every batch, retries and waits
    chain_keep: int = 10  # chained with Flash: the topics Flash reads, best cross-encoder scores first
    # What ran, recorded with the run (filled in from the endpoint; never its address or key).
    preset: str = ""
    model: str = ""

    def __post_init__(self) -> None:
        rules = (("threshold", 0.0 <= self.threshold <= 1.0, "between 0 and 1"),
                 ("top_k", self.top_k >= 1, "at least 1"), ("top_n", self.top_n >= 1, "at least 1"),
                 ("passage_tokens", self.passage_tokens >= 1, "at least 1"), ("batch", self.batch >= 1, "at least 1"),
                 ("small_limit", self.small_limit >= 0, "at least 0"),
                 ("flat_spread", self.flat_spread >= 0.0, "at least 0"),
                 ("flat_window", self.flat_window >= 2, "at least 2"), ("timeout", self.timeout > 0, "above 0"),
                 ("chain_keep", self.chain_keep >= 1, "at least 1"))
        for name, holds, rule in rules:
            if not holds:
                log.debug("cross-encoder %s must be %s", name, rule)
                raise CrossEncoderSettingsError(msg("rerank.cross_encoder.settings.invalid", name=name,
                                                    value=str(getattr(self, name))))
