"""Import exports, then build memory: the work itself, and where it runs.

Qt-free on purpose: it runs in a child process. A worker *thread* is not enough to keep
the window smooth: parts of an import and a build hold Python's GIL for 100 ms and more
(measured: hnswlib's `save_index` ~130 ms for 6k topics, growing with the index; full
garbage collections over the import's objects), and while a thread holds the GIL the GUI
thread cannot run a single slot. A child has its own GIL and heap; the window's worker
thread only relays its JSON lines. Where no child can be started (a frozen app) or the
service is not the real one (tests' fakes), the same steps run in the worker thread.

Protocol, one JSON object per line. Parent → child (stdin): the request, then "cancel"
(or EOF: the parent is gone). Child → parent (stdout): {"progress": Step}, then one of
{"result": PipelineSummary}, {"cancelled": phase}, {"error": message, "engine": bool,
"kind": class name}. Engine code never prints, so stdout carries only this.
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import CancelToken, EngineError, ImportCancelled, is_cancel
from engine.llm.presets import Endpoint
from engine.progress import ProgressThrottle

_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding `engine` and `ui`
_BOOT = f"import sys; sys.path.insert(0, {_ROOT!r}); from engine.jobs.import_build import child_main; child_main()"
_KILL_AFTER_CANCEL_S = 30.0  # a cancel is checked between batches; past this the child is stuck


@dataclass(frozen=True)
class Step:
    """One progress report: which phase, which file or build stage, how far."""

    phase: str  # "import" | "build" | "wait" (another process writes the store)
    name: str  # the file being imported, the build stage ("topics", "embeddings", …), or who is waited for
    done: int
    total: int
    messages: int = 0
    holder: dict | None = None  # phase "wait": the LockHolder's fields, for words in the window's language


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
    topics: int = 0
    model_chunks: int = 0  # session chunks the chat model split into topics (build with the model)
    model_fallbacks: int = 0  # chunks it failed on, summarised extractively instead
    imported: bool = False  # False for a build on its own
    built: bool = False
    seconds: float = 0.0


class PipelineCrashed(Exception):
    """The child failed in a way that is a bug (not an EngineError), or died."""


Progress = Callable[[Step], None]
Phase = Callable[[str], None]


def run_steps(service, paths: Sequence[Path], build: bool, progress: Progress, cancel: CancelToken,
              phase: Phase, topic_llm: Endpoint | None = None) -> PipelineSummary:
    """Import each path (one transaction each), then build (with the chat model's topic agents
    when `topic_llm` is given); in whatever process calls it."""
    started = time.perf_counter()
    summary = PipelineSummary(imported=bool(paths))

    def waiting(holder) -> None:  # another window or a command writes the store: say for whom
        progress(Step("wait", holder.describe(), 0, 0, holder=dataclasses.asdict(holder)))

    for path in paths:
        phase("import")
        report = service.import_path(Path(path), on_progress=lambda p: progress(_import_step(p)), cancel=cancel,
                                     on_wait=waiting)
        summary.skipped += report.skipped
        for source in report.sources:
            (summary.unchanged if source.status == "unchanged" else summary.sources).append(source.name)
            summary.chats += source.chats
            summary.messages += source.messages_added
            summary.attachments += source.artifacts_added
            summary.conflicting += getattr(source, "messages_conflicting", 0)
    if build:
        phase("build")
        extra = {"topic_llm": topic_llm} if topic_llm is not None else {}
        built = service.build(on_progress=lambda s, d, t: progress(Step("build", s, d, t)), cancel=cancel,
                              on_wait=waiting, **extra)
        summary.topics = built.topics_created - built.topics_merged
        agents = getattr(built, "agents", None) or {}
        summary.model_chunks = int(agents.get("split_chunks", 0))
        summary.model_fallbacks = sum((agents.get("fallbacks") or {}).values())
        summary.built = True
    summary.seconds = time.perf_counter() - started
    return summary


def _import_step(progress) -> Step:
    # Bytes can pass 2**31 (a QProgressBar's int): report per-mille instead.
    total = max(progress.bytes_total, 1)
    return Step("import", progress.source, int(1000 * progress.bytes_done / total), 1000, progress.messages)


def child_possible(service) -> bool:
    from engine.service import FlashbackService

    return type(service) is FlashbackService and not getattr(sys, "frozen", False)


def run_in_child(service, paths: Sequence[Path], build: bool, progress: Progress, cancel: CancelToken,
                 phase: Phase, topic_llm: Endpoint | None = None) -> PipelineSummary:
    """`run_steps` in a child Python; blocks the calling (worker) thread until it ends."""
    cancel.raise_if_cancelled()  # cancelled before it began (the window closing): start nothing
    request = {"data_dir": str(service.data_dir), "embedding": dataclasses.asdict(service.embedding),
               "paths": [str(p) for p in paths], "build": build,
               "topic_llm": dataclasses.asdict(topic_llm) if topic_llm is not None else None}
    child = subprocess.Popen([sys.executable, "-c", _BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, encoding="utf-8")
    lines: queue.Queue[str | None] = queue.Queue()
    reader = threading.Thread(target=_pump, args=(child.stdout, lines), daemon=True)
    reader.start()
    outcome: dict | None = None
    cancelled_at: float | None = None
    try:
        _send(child, json.dumps(request))  # the API key travels on the pipe, never in argv or env
        while True:
            if cancel.cancelled and cancelled_at is None:
                cancelled_at = time.monotonic()
                _send(child, "cancel")
            if cancelled_at is not None and time.monotonic() - cancelled_at > _KILL_AFTER_CANCEL_S:
                child.kill()
            try:
                line = lines.get(timeout=0.1)
            except queue.Empty:
                continue
            if line is None:
                break
            message = json.loads(line)
            if "progress" in message:
                step = Step(**message["progress"])
                if step.phase != "wait":
                    phase(step.phase)
                progress(step)
            else:
                outcome = message
    finally:
        if child.poll() is None and outcome is None:
            child.kill()
        child.wait()
        for stream in (child.stdin, child.stdout):
            try:
                stream.close()
            except OSError:
                pass  # a pipe to a dead child: nothing left to flush
        if build:
            _forget_cached_state(service)
    return _result(outcome, child.returncode, phase)


def _forget_cached_state(service) -> None:
    """The child rewrote the store and indexes behind this process's service (a new fitted
    embedder, new index files): drop the retriever it cached, as its own `build()` does."""
    invalidate = getattr(service, "invalidate", None)
    if callable(invalidate):  # test doubles may lack it
        invalidate()


def _result(outcome: dict | None, returncode: int, phase: Phase) -> PipelineSummary:
    if outcome is None:
        raise PipelineCrashed(f"the import process ended without an answer (exit code {returncode})")
    if "result" in outcome:
        return PipelineSummary(**outcome["result"])
    if "cancelled" in outcome:
        phase(outcome["cancelled"])
        raise ImportCancelled()  # a cancel type: the controller reports it by phase
    if outcome.get("engine"):
        raise EngineError(outcome["error"])  # already plain words
    raise PipelineCrashed(f"{outcome.get('kind')}: {outcome.get('error')}")


def _send(child: subprocess.Popen, line: str) -> None:
    try:
        child.stdin.write(line + "\n")
        child.stdin.flush()
    except (BrokenPipeError, OSError):
        pass  # the child has ended; its last words (or silence) are on stdout


def _pump(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


# -- the child ----------------------------------------------------------------------------
def child_main() -> None:
    from engine.embeddings.base import EmbeddingConfig
    from engine.service import FlashbackService

    _yield_cpu_to_the_window()
    request = json.loads(sys.stdin.readline())
    cancel = CancelToken()
    threading.Thread(target=_watch_stdin, args=(cancel,), daemon=True).start()
    out_lock = threading.Lock()
    current = {"phase": "import"}
    worth_sending = ProgressThrottle(key=lambda step: (step.phase, step.name))

    def send(message: dict) -> None:
        with out_lock:
            sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
            sys.stdout.flush()

    def progress(step: Step) -> None:
        if worth_sending(step):
            send({"progress": dataclasses.asdict(step)})

    def phase(name: str) -> None:
        current["phase"] = name

    try:
        service = FlashbackService(Path(request["data_dir"]), EmbeddingConfig(**request["embedding"]), origin="window")
        topic_llm = Endpoint(**request["topic_llm"]) if request.get("topic_llm") else None
        summary = run_steps(service, [Path(p) for p in request["paths"]], request["build"], progress, cancel, phase,
                            topic_llm)
    except Exception as exc:  # every way out is one line the parent understands
        if is_cancel(exc):
            send({"cancelled": current["phase"]})
        elif isinstance(exc, EngineError):
            send({"error": str(exc), "engine": True, "kind": type(exc).__name__})
        else:
            traceback.print_exc(file=sys.stderr)  # for the log; the window shows one sentence
            send({"error": str(exc), "engine": False, "kind": type(exc).__name__})
        return
    send({"result": dataclasses.asdict(summary)})


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


def _watch_stdin(cancel: CancelToken) -> None:
    for line in sys.stdin:
        if line.strip() == "cancel":
            break
    cancel.cancel()  # "cancel", or EOF: the window is gone, stop at the next batch
