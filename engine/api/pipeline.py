"""Import exports, then build memory: the work itself, and where it runs.

Qt-free on purpose: it runs in a child process. A worker *thread* is not enough to keep
the window smooth: parts of an import and a build hold Python's GIL for 100 ms and more
(measured: hnswlib's `save_index` ~130 ms for 6k topics, growing with the index; full
garbage collections over the import's objects), and while a thread holds the GIL the GUI
thread cannot run a single slot. A child has its own GIL and heap; the window's worker
thread only relays its messages. Where no child can be started (a frozen app) or the
service is not the real one (tests' fakes), the same steps run in the worker thread.

It runs under the engine's child-process harness (`engine.child_process`): the parent
sends ("run", request) and, to stop it, ("cancel",) (or closes the pipe: the parent is gone);
the child sends ("progress", Step fields), ("phase", "import" | "build") and then its result
(PipelineSummary fields) or its error, which arrives here as the class it was raised as: an
`ImportFormatError`, a `StoreError`, an `ImportCancelled` or `BuildCancelled`, a bug.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.child_process import ChildEnded, ChildProcess, ParentChannel
from engine.errors import BuildCancelled, Cancelled, CancelToken, ImportCancelled
from engine.llm.presets import Endpoint
from engine.progress import ProgressThrottle
from engine.store.lock import LockHolder

if TYPE_CHECKING:  # loaded where they run (the child starts with as little as it can)
    from engine.api.context import StoreContext
    from engine.embeddings.base import EmbeddingConfig
    from engine.importers.base import ImportProgress, ProgressCallback
    from engine.importers.runner import ImportReport
    from engine.store.lock import WaitCallback

CHILD = ("engine.api.pipeline", "child_main")  # what the child runs (module, function)
_KILL_AFTER_CANCEL_S = 30.0  # a cancel is checked between batches; past this the child is stuck
_POLL_S = 0.1


@dataclass(frozen=True)
class Step:
    """One progress report: which phase, which file or build stage, how far."""

    phase: str  # "import" | "build" | "wait" (another process writes the store)
    name: str  # the file being imported, the build stage ("topics", "embeddings", …), or who is waited for
    done: int
    total: int
    messages: int = 0
    holder: LockHolder | None = None  # phase "wait": who writes, for words in the window's language
    file_number: int = 1  # phase "import": which export of the path ("file 2 of 5")
    files: int = 1  # phase "import": how many exports the path holds


def _step_from_json(fields: dict[str, object]) -> Step:
    """A step as the import child sent it (`dataclasses.asdict`: the holder as its fields)."""
    holder = fields.get("holder")
    return Step(str(fields["phase"]), str(fields["name"]), _int(fields["done"]), _int(fields["total"]),
                _int(fields.get("messages", 0)), _holder(holder) if isinstance(holder, dict) else None,
                _int(fields.get("file_number", 1)), _int(fields.get("files", 1)))


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float | str) else 0


def _holder(fields: dict[str, object]) -> LockHolder | None:
    """The LockHolder the child sent as its fields; None for a malformed one (shown by name only)."""
    try:
        since = fields.get("since", 0.0)
        return LockHolder(_int(fields["pid"]), str(fields["operation"]), str(fields.get("origin", "")),
                          float(since) if isinstance(since, int | float | str) else 0.0)
    except (KeyError, ValueError):
        return None


@dataclass
class PipelineSummary:
    """What a finished import-and-build changed, for the summary line."""

    sources: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)  # already imported, nothing new
    skipped: list[str] = field(default_factory=list)  # files in a folder/zip that are not exports
    chats: int = 0
    messages: int = 0
    attachments: int = 0
    conflicting: int = 0  # messages whose id came again with another text: the first text was kept
    already_stored: int = 0  # messages read that the store already held (issue 34: said, not hidden)
    system_lines: int = 0  # joins, calls, renames: stored, kept out of topics
    entries_skipped: dict[str, int] = field(default_factory=dict)  # read, no message made: reason → count
    aside: int = 0  # files that hold no chat (READMEs, an export's own lists): counted, not named
    # Stored chats the imports went into (issue 23): by their id or name, or recognised by their
    # messages under another name (a renamed or re-downloaded export).
    existing: list[str] = field(default_factory=list)
    recognised: list[str] = field(default_factory=list)
    topics: int = 0
    model_chunks: int = 0  # session chunks the chat model split into topics (build with the model)
    model_fallbacks: int = 0  # chunks it failed on, summarised extractively instead
    imported: bool = False  # False for a build on its own
    built: bool = False
    seconds: float = 0.0


class PipelineCrashed(Exception):
    """The child died without an answer (not an error it raised: that arrives as its own class)."""


Progress = Callable[[Step], None]
Phase = Callable[[str], None]


def run_steps(service: PipelineSteps, paths: Sequence[Path], build: bool, progress: Progress, cancel: CancelToken,
              phase: Phase, topic_llm: Endpoint | None = None) -> PipelineSummary:
    """Import each path (one transaction each), then build (with the chat model's topic agents
    when `topic_llm` is given); in whatever process calls it."""
    started = time.perf_counter()
    summary = PipelineSummary(imported=bool(paths))

    def waiting(holder: LockHolder) -> None:  # another window or a command writes the store: say for whom
        progress(Step("wait", holder.describe(), 0, 0, holder=holder))

    for path in paths:
        phase("import")
        report = service.import_path(Path(path), on_progress=lambda p: progress(_import_step(p)), cancel=cancel,
                                     on_wait=waiting)
        summary.skipped += report.skipped
        summary.aside += len(getattr(report, "aside", ()))
        for source in report.sources:
            (summary.unchanged if source.status == "unchanged" else summary.sources).append(source.name)
            summary.chats += source.chats
            summary.messages += source.messages_added
            summary.attachments += source.artifacts_added
            summary.conflicting += getattr(source, "messages_conflicting", 0)
            summary.already_stored += getattr(source, "messages_already_stored", 0)
            summary.system_lines += getattr(source, "messages_service", 0)
            for reason, count in getattr(source, "entries_skipped", {}).items():
                summary.entries_skipped[reason] = summary.entries_skipped.get(reason, 0) + count
            for match in getattr(source, "matched", ()):
                (summary.recognised if match.by == "content" else summary.existing).append(match.title)
    if build:
        phase("build")
        built = service.build(on_progress=lambda s, d, t: progress(Step("build", s, d, t)), cancel=cancel,
                              on_wait=waiting, topic_llm=topic_llm)  # None: build's own default
        summary.topics = built.topics_created - built.topics_merged
        agents = getattr(built, "agents", None) or {}
        summary.model_chunks = int(agents.get("split_chunks", 0))
        summary.model_fallbacks = sum((agents.get("fallbacks") or {}).values())
        summary.built = True
    summary.seconds = time.perf_counter() - started
    return summary


def _import_step(progress: ImportProgress) -> Step:
    # Bytes can pass 2**31 (a QProgressBar's int): report per-mille instead.
    total = max(progress.bytes_total, 1)
    return Step("import", progress.source, int(1000 * progress.bytes_done / total), 1000, progress.messages,
                file_number=progress.file_number, files=progress.files)


def run_in_child(service: PipelineSteps, paths: Sequence[Path], build: bool, progress: Progress, cancel: CancelToken,
                 phase: Phase, topic_llm: Endpoint | None = None) -> PipelineSummary:
    """`run_steps` in a child Python; blocks the calling (worker) thread until it ends. What
    the child raises is raised here as the same class (a cancel too, by the phase it stopped)."""
    if cancel.cancelled:  # cancelled before it began (the window closing): start nothing
        raise _cancel_error(importing=bool(paths))
    request = {"data_dir": str(service.data_dir), "embedding": dataclasses.asdict(service.embedding),
               "paths": [str(p) for p in paths], "build": build,
               "topic_llm": dataclasses.asdict(topic_llm) if topic_llm is not None else None}
    current = "import" if paths else "build"
    try:
        with ChildProcess(*CHILD) as child:
            child.send(("run", request))  # the API key travels on the pipe, never in argv or env
            while True:
                if cancel.cancelled:
                    child.cancel(_KILL_AFTER_CANCEL_S)
                try:
                    message = child.receive(_POLL_S)
                except ChildEnded as ended:
                    if child.cancelling:  # killed after a cancel it did not answer
                        raise _cancel_error(importing=current == "import") from ended
                    raise PipelineCrashed(f"the import process ended without an answer (exit code "
                                          f"{ended.returncode})") from ended
                if message is None:
                    continue
                kind, body = message
                if kind == "phase":
                    current = body
                    phase(body)
                elif kind == "progress":
                    step = _step_from_json(body)
                    if step.phase != "wait":
                        current = step.phase
                        phase(step.phase)
                    progress(step)
                elif kind == "result":
                    return PipelineSummary(**body)
    finally:
        if build:
            _forget_cached_state(service)


def _cancel_error(importing: bool) -> Cancelled:
    """The cancel of the phase that was stopped: an import keeps nothing, a build what it made."""
    return ImportCancelled() if importing else BuildCancelled()


def _forget_cached_state(service: PipelineSteps) -> None:
    """The child rewrote the store and indexes behind this process's service (a new fitted
    embedder, new index files): drop the retriever it cached, as its own `build()` does."""
    invalidate = getattr(service, "invalidate", None)
    if callable(invalidate):  # test doubles may lack it
        invalidate()


# -- the child ----------------------------------------------------------------------------
def child_main(channel: ParentChannel) -> dict:
    """The child's work (see `CHILD`): the parent's request, run; progress as it goes."""
    from engine.api.context import StoreContext
    from engine.embeddings.base import EmbeddingConfig

    _yield_cpu_to_the_window()
    message = channel.receive()
    if message is None:  # the parent closed our stdin before asking (it is gone): as its cancel would
        raise ImportCancelled()
    _, request = message
    cancel = channel.cancel_token()
    worth_sending = ProgressThrottle(key=lambda step: (step.phase, step.name))

    def progress(step: Step) -> None:
        if worth_sending(step):
            channel.progress(dataclasses.asdict(step))

    def phase(name: str) -> None:
        channel.send(("phase", name))

    service = PipelineSteps(StoreContext(Path(request["data_dir"]), EmbeddingConfig(**request["embedding"]),
                                         "window"))
    topic_llm = Endpoint(**request["topic_llm"]) if request.get("topic_llm") else None
    summary = run_steps(service, [Path(p) for p in request["paths"]], request["build"], progress, cancel, phase,
                        topic_llm)
    return dataclasses.asdict(summary)


def _yield_cpu_to_the_window() -> None:
    """Background work: a lower priority, and (Linux) one core left free. hnswlib and BLAS
    start a thread per core; on a 2-core laptop that starved the window's thread for
    ~100 ms at a time (measured), priority or not."""
    if hasattr(os, "nice"):
        os.nice(5)
    if hasattr(os, "sched_getaffinity"):
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) > 1:
            os.sched_setaffinity(0, cores[1:])  # threads and grandchildren started later inherit it


class PipelineSteps:
    """What `run_steps` calls (import one path, build), over one store's sub-services; the
    window's process and the child each make one over their own StoreContext."""

    def __init__(self, context: StoreContext) -> None:
        from engine.api.memory import MemoryService
        from engine.importers.runner import import_path

        self._context = context
        self.build = MemoryService(context).build

        def import_one(path: Path, format_name: str = "auto", on_progress: ProgressCallback | None = None,
                       cancel: CancelToken | None = None, on_wait: WaitCallback | None = None) -> ImportReport:
            return import_path(context.data_dir, Path(path), format_name, on_progress, cancel, on_wait,
                               context.origin)

        self.import_path = import_one

    @property
    def data_dir(self) -> Path:
        return self._context.data_dir

    @property
    def embedding(self) -> EmbeddingConfig:
        return self._context.embedding

    def invalidate(self) -> None:
        """The child rebuilt the indexes behind this process: drop the cached retriever."""
        self._context.invalidate()
