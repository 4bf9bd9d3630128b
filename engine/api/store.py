"""The store as a whole: counts, who writes it, what changed since the face last looked, and
imports (the writes that bring messages in), alone or followed by a build (the window's pipeline)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from engine.api.context import StoreContext
from engine.api.memory import BUILD_CHANGES
from engine.api.pipeline import PipelineSteps, PipelineSummary, Step, run_in_child, run_steps
from engine.changes import Changes, ChangeToken, read_change_token
from engine.errors import CancelToken
from engine.importers.base import ProgressCallback
from engine.importers.runner import FORMATS, ImportReport, import_path
from engine.llm.presets import Endpoint
from engine.memory.forget import ForgetReport, ForgetTarget, SourceInfo, StageCallback, forget, list_sources, preview
from engine.messages import Message, msg
from engine.store.lock import LockHolder, WaitCallback, current_holder
from engine.store.stats import StoreStats, store_stats

IMPORT_CHANGES = Changes(messages=True, chats=True)
PIPELINE_CHANGES = IMPORT_CHANGES | BUILD_CHANGES  # what a pipeline that failed or was cancelled may have changed


class StoreService:
    def __init__(self, context: StoreContext) -> None:
        self._context = context

    @property
    def data_dir(self) -> Path:
        return self._context.data_dir

    def stats(self) -> StoreStats:
        return store_stats(self._context.data_dir)

    def read_only(self) -> Message | None:
        """The sentence a face shows once, where it stays in view (the window's status bar), when
        this process cannot write the store: searching, browsing and exporting work; runs are
        not recorded; import and build refuse. None for a writable store. Once asked, searches
        do not say it again (issue 23)."""
        refused = self._context.read_only()
        if refused is None:
            return None
        self._context.tell_read_only()
        if refused.store_file is not None:
            return msg("store.status.read_only_file", file=str(refused.store_file))
        return msg("store.status.read_only", folder=str(self._context.data_dir))

    def writer(self) -> LockHolder | None:
        """Who writes the store now (an import or build here or in another process), or None."""
        return current_holder(self._context.data_dir)

    def change_token(self) -> ChangeToken:
        """Moves when an import, build, run or label (in any process) changed the store: a few
        primary-key reads, cheap enough to poll. `token.changes_since(previous)` says what moved."""
        return self._context.read(read_change_token)

    def sources(self) -> list[SourceInfo]:
        """Every import (a file of an export) with its id, what `forget(source_id=…)` takes."""
        return self._context.read(list_sources)

    def forget_preview(self, *, chat_id: int | None = None, source_id: int | None = None) -> ForgetReport:
        """What `forget` would remove (counts and the chats that go), for a confirmation; writes nothing."""
        target = ForgetTarget(chat_id, source_id)
        return self._context.read(lambda connection: preview(connection, target))

    def forget(self, *, chat_id: int | None = None, source_id: int | None = None,
               on_stage: StageCallback | None = None) -> tuple[ForgetReport, Changes]:
        """Remove one chat, or everything one import brought, with all that was made from it, and
        compact the store so the text leaves the file (engine/memory/forget.py, issue 23). Blocking
        (seconds to minutes on a big store: the vacuum); refused at once while another process writes."""
        report = forget(self._context.data_dir, ForgetTarget(chat_id, source_id), self._context.origin, on_stage)
        self._context.invalidate()  # the indexes lost items
        return report, Changes(messages=True, chats=True, topics=report.topics > 0, vectors=report.vectors > 0,
                               runs=report.runs > 0, labels=report.labels > 0)

    def changes_since(self, previous: ChangeToken | None) -> tuple[Changes, ChangeToken]:
        """What changed since `previous` (everything for None), and the token to pass next time;
        the cached search state is dropped when vectors moved (another process built)."""
        token = self.change_token()
        changes = token.changes_since(previous)
        if changes.vectors:
            self._context.invalidate()
        return changes, token


class ImportService:
    formats = FORMATS

    def __init__(self, context: StoreContext) -> None:
        self._context = context

    def import_path(self, path: Path, format_name: str = "auto", on_progress: ProgressCallback | None = None,
                    cancel: CancelToken | None = None, on_wait: WaitCallback | None = None) -> ImportReport:
        """Import one file, folder or zip in one transaction (a broken export changes nothing).
        What it changed: `IMPORT_CHANGES` when `report` added anything."""
        context = self._context
        return import_path(context.data_dir, Path(path), format_name, on_progress, cancel, on_wait, context.origin)

    def child_possible(self) -> bool:
        """Whether `pipeline` can run in a child process (not in a frozen app: no Python to start)."""
        return not getattr(sys, "frozen", False)

    def pipeline(self, paths: Sequence[Path], build: bool, progress: Callable[[Step], None], cancel: CancelToken,
                 on_phase: Callable[[str], None], topic_llm: Endpoint | None = None, *,
                 in_child: bool = True) -> tuple[PipelineSummary, Changes]:
        """Import each path (one transaction each), then build when `build` (blocking: run it in a
        worker). `in_child` runs it in a child Python (engine.api.pipeline: the window's GIL
        stays free); `on_phase` says which phase runs ("import", "build"), for a failure's words.
        Returns the summary and what it changed; a failed or cancelled run may have changed
        `PIPELINE_CHANGES` (a cancelled build keeps its finished stages)."""
        steps = PipelineSteps(self._context)
        runner = run_in_child if in_child and self.child_possible() else run_steps
        summary = runner(steps, list(paths), build, progress, cancel, on_phase, topic_llm)
        imported = summary.imported and bool(summary.sources)
        return summary, Changes(messages=imported, chats=imported) | (BUILD_CHANGES if summary.built else Changes())


