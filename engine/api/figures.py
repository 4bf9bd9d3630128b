"""The figures the faces show, typed: an evaluation's metrics (`flashback eval`) and the run
history's (`flashback runs`, Run history). The engine computes both as JSON objects (what
`--json` prints, unchanged); these records are what a face reads, and `as_json()` gives the
object back exactly, in the same key order, for a script."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields

from engine.evaluation.metrics import METRIC_KEYS


def _field_name(key: str) -> str:
    """"recall@5_any" → "recall_at_5_any": the metric's name as a Python field."""
    return key.replace("@", "_at_")


@dataclass(frozen=True)
class MetricSet:
    """engine/evaluation/metrics.py's figures for one set of judged queries (every query, or one
    category): recall at k (any / all of the relevant topics), MRR, nDCG@10, the evidence found
    within a character budget, topic sizes, stage-1 latency, and the kept set's scores."""

    recall_at_1_any: float = 0.0
    recall_at_5_any: float = 0.0
    recall_at_10_any: float = 0.0
    recall_at_5_all: float = 0.0
    mrr: float = 0.0
    ndcg_at_10: float = 0.0
    evidence_at_8000: float = 0.0
    evidence_at_32000: float = 0.0
    topic_chars_mean: float = 0.0
    topic_chars_p90: float = 0.0
    latency_ms_p50: float = 0.0
    latency_ms_p95: float = 0.0
    queries: int = 0
    kept_precision: float = 0.0
    kept_recall: float = 0.0
    kept_f1: float = 0.0

    @classmethod
    def from_json(cls, raw: Mapping[str, float]) -> MetricSet:
        values = {_field_name(key): raw[key] for key in METRIC_KEYS if key in raw}
        return cls(**values)  # type: ignore[arg-type]  # "queries" is an int: each figure as computed

    def as_json(self) -> dict[str, float]:
        """The metrics object of `flashback eval --json`, keyed as engine/evaluation/metrics.py names them."""
        return {key: getattr(self, _field_name(key)) for key in METRIC_KEYS}


@dataclass(frozen=True)
class EvaluationFigures:
    """`flashback eval QRELS`: the metrics over every judged query and per category, and how
    many judged messages matched none in the store."""

    metrics: MetricSet
    by_category: dict[str, MetricSet]
    unmatched_messages: int = 0

    @classmethod
    def from_json(cls, raw: Mapping[str, object]) -> EvaluationFigures:
        categories = raw.get("by_category")
        metrics = raw.get("metrics")
        unmatched = raw.get("unmatched_messages")
        return cls(MetricSet.from_json(metrics if isinstance(metrics, Mapping) else {}),
                   {str(name): MetricSet.from_json(values) for name, values in
                    (categories.items() if isinstance(categories, Mapping) else ())},
                   int(unmatched) if isinstance(unmatched, int) else 0)

    def as_json(self) -> dict[str, object]:
        """Exactly what `flashback eval --json` has always printed."""
        return {"metrics": self.metrics.as_json(),
                "by_category": {name: figures.as_json() for name, figures in self.by_category.items()},
                "unmatched_messages": self.unmatched_messages}


@dataclass(frozen=True)
class RunMetrics:
    """engine/traces/metrics.py over every recorded run: counts, fallbacks by reason, tool calls,
    tokens, cost, latency. Means and latencies are None when no run is counted (`cost_mean`
    when none had a cost)."""

    runs: int = 0
    by_reranker: dict[str, int] = field(default_factory=dict)
    fallbacks: dict[str, int] = field(default_factory=dict)  # reason ("none" for none) → runs
    fallback_rate: float | None = None
    tool_calls_total: int = 0
    tool_calls_mean: float | None = None
    tool_calls_histogram: dict[str, int] = field(default_factory=dict)  # "0", "1", … → runs with that many calls
    candidates_in_mean: float | None = None
    candidates_out_mean: float | None = None
    prompt_tokens_total: int = 0
    completion_tokens_total: int = 0
    prompt_tokens_mean: float | None = None
    completion_tokens_mean: float | None = None
    cost_total: float = 0.0
    cost_mean: float | None = None
    runs_with_cost: int = 0
    latency_ms_p50: float | None = None
    latency_ms_p95: float | None = None
    latency_ms_mean: float | None = None
    latency_ms_max: float | None = None

    @classmethod
    def from_json(cls, raw: Mapping[str, object]) -> RunMetrics:
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in raw.items() if key in known}
        return cls(**values)  # type: ignore[arg-type]  # engine/traces/metrics.py's figures, by name

    def as_json(self) -> dict[str, object]:
        """What `flashback runs --json` has always printed under "metrics"."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
