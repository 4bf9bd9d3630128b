"""Reads the window lists and the assistants ask for: chats, topics, people, run history,
and the relevance labels the person gives (the one write among them, under the store lock)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import browse
from engine.api.context import StoreContext
from engine.api.figures import RunMetrics
from engine.changes import Changes
from engine.evaluation.labels import ImportSummary, LabelledQuery, LabelStore
from engine.evaluation.qrels import QueryFilters
from engine.traces.runs import RunSummary


@dataclass(frozen=True)
class RunRecord:
    """Everything stored about one run (`flashback runs --show`, Run history's detail)."""

    id: int
    created_at: str  # ISO 8601, UTC
    created_at_epoch: float
    query: str
    reranker: str
    model: str | None
    candidates_count: int
    selected_count: int
    tool_calls_count: int
    fallback: str | None
    duration_ms: float
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    # The recorded JSON, as it was written: settings (retrieval + reranker, `client` for an
    # assistant's call), candidates, selected, tool calls, per-step timings, report, trace.
    settings: dict[str, Any] = field(default_factory=dict)
    candidates: list[dict[str, Any]] = field(default_factory=list)
    selected: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    trace: dict[str, Any] | list[Any] | None = None

    @property
    def client(self) -> str:
        """Who asked: "" for the window and the CLI, an assistant's name for an MCP call."""
        return str(self.settings.get("client") or "")

    @classmethod
    def from_row(cls, run: dict[str, Any]) -> RunRecord:
        return cls(**{**run, **{name: run.get(name) or default for name, default in (
            ("settings", {}), ("candidates", []), ("selected", []), ("tool_calls", []), ("timings_ms", {}),
            ("report", {}))}})

    def as_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


class BrowseService:
    def __init__(self, context: StoreContext) -> None:
        self._context = context

    def chats(self) -> list[browse.ChatInfo]:
        return self._context.read(browse.chats)

    def chat_formats(self) -> dict[int, str]:
        """chat id → the export format it came from (telegram, chatgpt, whatsapp, jsonl)."""
        return self._context.read(lambda connection: dict(connection.execute("SELECT id, format FROM chat")
                                                          .fetchall()))

    def topics(self, chat_id: int | None = None, text: str = "", limit: int = 500) -> list[browse.TopicInfo]:
        return self._context.read(lambda connection: browse.topics(connection, chat_id, text, limit))

    def people(self) -> list[browse.PersonInfo]:
        return self._context.read(browse.people)

    def topic_detail(self, topic_id: int) -> browse.TopicDetail:
        return self._context.read(lambda connection: browse.topic_detail(connection, topic_id))


class RunService:
    def __init__(self, context: StoreContext) -> None:
        self._context = context

    def list(self, limit: int = 50, offset: int = 0) -> list[RunSummary]:
        from engine.traces import list_runs

        return self._context.read(lambda connection: list_runs(connection, limit, offset))

    def get(self, run_id: int) -> RunRecord | None:
        from engine.traces import get_run

        run = self._context.read(lambda connection: get_run(connection, run_id))
        return None if run is None else RunRecord.from_row(run)

    def metrics(self) -> RunMetrics:
        from engine.traces import run_metrics

        return RunMetrics.from_json(self._context.read(run_metrics))


class LabelService:
    """Relevance labels (Evaluate): each write takes the store's write lock without waiting
    (refused at once, naming the writer) and returns what changed. Writes from this process
    take turns instead: two labels clicked in quick succession run in two workers, and the
    second must not be refused because the first holds the lock for a few milliseconds."""

    def __init__(self, context: StoreContext) -> None:
        self._context = context
        self._writing = threading.Lock()

    def _store(self) -> LabelStore:
        return LabelStore(self._context.data_dir)

    def label_topic(self, query: str, filters: QueryFilters, topic_id: int,
                    verdict: bool | None) -> tuple[dict[int, bool], Changes]:
        with self._writing:
            return self._store().label_topic(query, filters, topic_id, verdict), Changes(labels=True)

    def topic_labels(self, query: str, filters: QueryFilters) -> dict[int, bool]:
        return self._store().topic_labels(query, filters)

    def queries(self) -> list[LabelledQuery]:
        return self._store().queries()

    def delete(self, query_id: int) -> Changes:
        with self._writing:
            self._store().delete(query_id)
        return Changes(labels=True)

    def export_qrels(self, path: Path) -> int:
        """The labels as a QRELS file at `path` (docs/evaluation.md's format, `flashback eval` reads
        it back); how many labelled queries it holds. The face names the file, the engine writes it."""
        import json

        from engine.files import write_private

        document = self._store().export_qrels()
        write_private(Path(path), json.dumps(document, ensure_ascii=False, indent=1))  # queries: private (issue 35)
        return len(document["queries"])

    def import_qrels(self, path: Path) -> tuple[ImportSummary, Changes]:
        with self._writing:
            return self._store().import_qrels(path), Changes(labels=True)
