"""What a search takes and gives back: the one request every face builds (the window, the CLI,
the MCP server, Ask's search step, evaluation) and the one result they all read.

`SearchService.search(SearchRequest)` (engine/api/search.py) is the pipeline: stage 1 (or the
request's frozen candidates), the query rewrite, the reranker, the unbuilt messages a reranker
does not read, recording. A slider move re-cuts the frozen candidates with `SearchResult.recut`,
a method of the result, not a second path."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict

from engine.messages import Message
from engine.rerank.base import Candidate, KeepAllReranker, Reranker, RerankResult, Selection
from engine.rerank.threshold import ThresholdSettings
from engine.retrieval.search import RetrievalSettings, Stage1Result

if TYPE_CHECKING:
    from engine.api.reports import RerankReport
    from engine.rerank.flash.contextualize import QueryRewrite


@dataclass(frozen=True)
class SearchRequest:
    """One search, as a face asks for it.

    `reranker`: None keeps stage 1's candidates as they are (`--reranker none`).
    `threshold`: the person's threshold settings: what an LLM reranker's fallback keeps, and
    how unbuilt messages a reranker does not read are cut (None: such messages are refused with
    a note). `frozen`: candidates a face already holds (the window's Flash on its table): stage 1
    is not run again. `dates`: a date phrase in the query boosts topics in its range (Ask applies
    its plan's own range, so it turns this off). `client`: the face that asked, kept with the run.
    """

    query: str
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    reranker: Reranker | None = None
    threshold: ThresholdSettings | None = None
    record: bool = False
    client: str = ""
    dates: bool = True
    now: datetime | None = None
    frozen: Stage1Result | None = None

    def chosen_reranker(self) -> Reranker:
        return self.reranker or KeepAllReranker()


@dataclass(frozen=True)
class Timings:
    """How long a search took, in milliseconds: stage 1, the rerank (rewrite and the LLM turns
    included), their sum, and each named part (embed, vectors, lexical, an LLM turn, ...)."""

    stage1_ms: float = 0.0
    rerank_ms: float = 0.0
    total_ms: float = 0.0
    parts: tuple[tuple[str, float], ...] = ()

    def part(self, name: str) -> float | None:
        return next((ms for key, ms in self.parts if key == name), None)

    def as_json(self) -> dict[str, float]:
        """The flat shape the run history and `--json` have always stored."""
        return {**dict(self.parts), "rerank": self.rerank_ms, "total": self.total_ms}

    @classmethod
    def of(cls, stage1: Stage1Result, rerank_ms: float, result: RerankResult) -> Timings:
        parts = dict(stage1.timings_ms)
        llm = result.report.get("timings_ms") if result.report else None
        if isinstance(llm, Mapping):  # per-turn figures of an LLM reranker
            parts.update({f"rerank_{name}": float(value) for name, value in llm.items()})
        stage1_ms = float(stage1.timings_ms.get("total", 0.0))
        parts.pop("total", None)
        return cls(round(stage1_ms, 2), round(rerank_ms, 2), round(stage1_ms + rerank_ms, 2),
                   tuple((name, float(ms)) for name, ms in parts.items()))


class SearchJSON(TypedDict, total=False):
    """`flashback search --json` and MCP's raw shape: what a script reads."""

    query: str
    reranker: str
    candidates: list[dict[str, object]]
    selected: list[dict[str, object]]
    report: dict[str, object]
    fallback: str | None
    fallback_reason: str | None
    fallback_kept: dict[str, object]
    timings_ms: dict[str, float]
    tool_calls: list[list[int]]
    usage: dict[str, object]
    run_id: int
    notes: list[str]
    rewrite: dict[str, object]


@dataclass
class SearchResult:
    """What a search found and kept. `stage1` holds the candidates the reranker chose among
    (after a rewrite, both searches fused); `result` what it kept and why."""

    request: SearchRequest
    stage1: Stage1Result
    result: RerankResult
    timings: Timings
    reranker_settings: object = None  # the reranker's settings dataclass, as run (None for keep-all)
    run_id: int | None = None  # the stored trace (rerank_run), when the run was recorded
    notes: list[Message | str] = field(default_factory=list)  # what the person should know, as codes
    # Seed 000 step 1: the query restated from the recent messages; when `rewrite.used`, `stage1`
    # holds the candidates of the original and the rewrite, fused.
    rewrite: QueryRewrite | None = None

    @property
    def query(self) -> str:
        return self.stage1.query

    @functools.cached_property
    def report(self) -> RerankReport:
        """What the reranker reports, typed by the reranker that ran (engine/api/reports.py): what
        the faces read, where `result.report` is the dict the traces store. Read once per result:
        the window asks for it several times a render (a re-cut is a new result)."""
        from engine.api.report_reading import rerank_report

        return rerank_report(self.result)

    def candidate(self, selection: Selection) -> Candidate | None:
        return next((c for c in self.stage1.candidates if (c.kind, c.id) == (selection.kind, selection.id)), None)

    def recut(self, reranker: Reranker) -> SearchResult:
        """The same candidates through a reranker that never waits (threshold, keep-all), on the
        calling thread: the window re-filters this way as a slider moves. This result itself (and
        its run id) when `reranker` is the one that made it with the same settings; else a new,
        unrecorded result."""
        if reranker.name == self.result.reranker and reranker.settings == self.reranker_settings:
            return self
        import time

        started = time.perf_counter()
        rerank = reranker.rerank_now(self.stage1.query, self.stage1.candidates)
        timings = Timings.of(self.stage1, (time.perf_counter() - started) * 1000, rerank)
        request = dataclasses.replace(self.request, reranker=reranker, record=False)
        return SearchResult(request, self.stage1, rerank, timings, reranker.settings,
                            notes=list(self.stage1.rebuilt.values()))

    def recut_scores(self, threshold: float, top_k: int) -> SearchResult:
        """A cross-encoder run's topics chosen again from the scores already back (its sliders), at
        once and without a request; this result itself (and its run id) at the settings it ran with."""
        from engine.rerank.cross_encoder.recut import recut

        cut = recut(self.result, self.stage1.candidates, threshold, top_k)
        # Not what was recorded: no run id (the recorded one is shown again when the sliders return).
        return self if cut is self.result else dataclasses.replace(self, result=cut, run_id=None)

    def as_dict(self) -> SearchJSON:
        shaped: SearchJSON = {
            "query": self.stage1.query,
            "reranker": self.result.reranker,
            "candidates": [c.as_dict() for c in self.stage1.candidates],
            "selected": [s.as_dict() for s in self.result.selected],
            "report": self.result.report,
            "fallback": self.result.fallback,
            "timings_ms": self.timings.as_json(),
        }
        if self.result.fallback:  # why, and what was kept instead (issue 23), beside the bare name
            report = self.result.report or {}
            reason = report.get("error") or report.get("note")
            shaped["fallback_reason"] = str(reason) if reason is not None else None
            if report.get("fallback_kept"):
                shaped["fallback_kept"] = dict(report["fallback_kept"])
        if self.result.reranker == "flash":  # the LLM's own figures (issue 4's search JSON)
            shaped["tool_calls"] = self.result.tool_calls
            shaped["usage"] = dict(self.result.usage or {})
        if self.run_id is not None:
            shaped["run_id"] = self.run_id
        if self.notes:
            shaped["notes"] = [str(note) for note in self.notes]
        if self.rewrite is not None:
            shaped["rewrite"] = {k: v for k, v in self.rewrite.as_dict().items() if k != "call"}
        return shaped
