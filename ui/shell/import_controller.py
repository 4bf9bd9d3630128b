"""Import exports, then build memory (topics → embeddings → index), off the GUI thread; then,
when a chat model is set, offer to read facts from the topics not yet read (issue 33).

One pipeline at a time: the store has one writer, and a second import while a build runs
would only make both slower. The pipeline is a single background task (which relays a
child process: `service.imports.pipeline`) so that a cancel stops whatever step it is in,
and the user sees one progress panel from file to index.

Reading facts costs tokens (money, on a paid endpoint), so it never starts on its own: after a
build the controller reads the estimate in a worker and says `facts_offered`; only
`read_facts()` (the person's yes) runs the extraction, as its own cancellable task in this
process (it calls the model over HTTP: no GIL-heavy work to move to a child). A topic is
marked read as it is done, so a stopped run resumes at the next build.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from engine.api import (
    PIPELINE_CHANGES,
    Changes,
    EmbeddingConfig,
    Endpoint,
    ExtractionEstimate,
    ExtractionReport,
    Flashback,
    PipelineSummary,
    Step,
    is_cancel,
    local_model_available,
    msg,
)
from ui.i18n import engine_words
from ui.tasks import BackgroundTask, run_in_background

__all__ = ["ImportController", "PipelineSummary", "Step"]


class ImportController(QObject):
    """Owns the running pipeline; views listen to its signals and never touch the worker."""

    started = Signal(str)  # what is running, already translated
    progress = Signal(object)  # Step
    succeeded = Signal(object)  # PipelineSummary
    cancelled = Signal(str)  # the phase that was stopped: "import" | "build"
    failed = Signal(str, object)  # the phase ("import" | "build") and the exception (not a cancel)
    finished = Signal()  # after any of the three above; the store may have changed
    changed = Signal(object)  # Changes: what the run (or an embedder switch) changed, before `finished`
    embedder_reverted = Signal(str)  # a switch failed: the provider searches use again
    facts_offered = Signal(object, object)  # (ExtractionEstimate, Endpoint): ask before reading facts
    facts_finished = Signal(object)  # ExtractionReport of a run `read_facts` started

    def __init__(self, service: Flashback, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.use_child_process = True  # a child Python (service.imports.pipeline): the GUI keeps its GIL to itself
        # Asked when a build starts: the chat model to make topics with, or None (extractive).
        self.topic_llm: Callable[[], Endpoint | None] = lambda: None
        # Asked after a build: the chat model to read facts with, or None (no offer, nothing read).
        self.facts_llm: Callable[[], Endpoint | None] = lambda: None
        self.offered: tuple[ExtractionEstimate, Endpoint] | None = None  # waiting for the person's answer
        self._offer_after = False  # the run that ends built memory: offer facts once it has finished
        self._service = service
        self._task: BackgroundTask | None = None
        self._phase = "import"
        self._started = 0.0
        self._previous_embedding: EmbeddingConfig | None = None  # until a switch's build succeeds
        self._pending_embedding: EmbeddingConfig | None = None  # a switch asked for while busy
        self._changes = Changes()  # what the running pipeline changed, said when it ends

    @property
    def busy(self) -> bool:
        return self._task is not None

    def import_paths(self, paths: Sequence[Path], *, build: bool = True) -> bool:
        """Import each path (one transaction each), then build; False when already busy."""
        paths = [Path(p) for p in paths]
        if not paths:
            return False
        title = (self.tr("Importing {name}…").format(name=paths[0].name) if len(paths) == 1
                 else self.tr("Importing {count} exports…").format(count=len(paths)))
        return self._start(title, paths, build)

    def build(self) -> bool:
        return self._start(self.tr("Building memory…"), [], True)

    def switch_embedder(self, config: EmbeddingConfig) -> bool:
        """Search with `config` from now on and embed every topic with it in the background.

        The build that follows drops the other model's vectors as it starts, so searches use
        the new model at once and find more as its batches commit. If the build fails (the
        model is not installed, the server does not answer) the previous embedder comes
        back and `embedder_reverted` says which. While another pipeline runs, the switch
        waits for it to finish.
        """
        memory = self._service.memory
        if config == memory.embedding:
            return False
        if self._task is not None:
            self._pending_embedding = config
            return True
        self._previous_embedding = memory.embedding
        self.changed.emit(memory.use_embedding(config))  # searches use it at once (cached state dropped)
        label = self.tr("the local model") if config.provider == "local" else self.tr("the built-in embedder")
        return self._start(self.tr("Embedding topics with {model}…").format(model=label), [], True)

    def follow(self, panel) -> None:
        """Keep the service on the embedder a settings panel names: now, and on every change.
        A store built with the other embedder (by `flashback build` in a terminal) sets the
        panel to that one; a saved choice of the local model whose extra is gone falls back to
        the built-in one (the panel shows why) rather than failing every search."""
        wanted = panel.settings().embedding_config()
        memory = self._service.memory
        built = memory.built_embedding()  # one small read of the store, once at start
        if built is not None and built.provider in ("builtin", "local") and built.provider != wanted.provider \
                and (built.provider == "builtin" or local_model_available()):
            # Built elsewhere (`flashback build --embedder local`): keep to it. Searching with the
            # saved choice would find nothing, and the next build would re-embed every topic.
            panel.set_value("embedder", built.provider)
            wanted = panel.settings().embedding_config()
        if wanted.provider == "local" and not local_model_available():
            panel.set_value("embedder", "builtin")
            wanted = panel.settings().embedding_config()
        if wanted.provider != memory.embedding.provider:
            memory.use_embedding(wanted)  # a store built with another one says so on the next search
        panel.changed.connect(lambda name: self.switch_embedder(panel.settings().embedding_config())
                              if name == "embedder" else None)
        self.embedder_reverted.connect(lambda provider: panel.set_value("embedder", provider))

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()

    # -- facts (issue 33) ---------------------------------------------------------------------
    def _offer_facts(self) -> None:
        """After a build: with a chat model set, read the estimate in a worker and offer it."""
        endpoint = self.facts_llm()
        if endpoint is None:
            return  # no model: nothing is read or invented (the People view says what one would add)
        run_in_background(self, lambda: self._service.facts.estimate(endpoint),
                          lambda estimate: self._on_estimate(estimate, endpoint), lambda _error: None)

    def _on_estimate(self, estimate: ExtractionEstimate, endpoint: Endpoint) -> None:
        if estimate.topics and self._task is None:  # a run started meanwhile: its own end offers again
            self.offered = (estimate, endpoint)
            self.facts_offered.emit(estimate, endpoint)

    def skip_facts(self) -> None:
        """The person said no: nothing is read; the next build offers again."""
        self.offered = None

    def read_facts(self) -> bool:
        """The person said yes to the offer: read the unread topics in a worker, with progress
        (`progress`, stage "facts") and cancel; `facts_finished` says what was read."""
        if self._task is not None or self.offered is None:
            return False
        _estimate, endpoint = self.offered
        self.offered = None
        facts = self._service.facts

        def work(progress, cancel) -> ExtractionReport:
            return facts.extract(
                endpoint, on_progress=lambda done, total: progress(Step("build", "facts", done, total)), cancel=cancel,
                on_wait=lambda holder: progress(Step("wait", holder.describe(), 0, 0, holder=holder)))

        task = BackgroundTask(work, self, progress_key=lambda step: (step.phase, step.name))
        task.signals.progress.connect(self.progress)
        task.signals.succeeded.connect(self.facts_finished)
        task.signals.failed.connect(self._on_failed)
        task.signals.finished.connect(self._on_finished)
        self._phase = "facts"
        self._changes = Changes()
        self._started = time.monotonic()
        self._task = task.start()
        self.started.emit(engine_words(msg("facts.window.running")))
        return True

    def _start(self, title: str, paths: list[Path], build: bool) -> bool:
        if self._task is not None:
            return False
        imports, phase, in_child = self._service.imports, self._set_phase, self.use_child_process
        topic_llm = self.topic_llm() if build else None
        self.offered = None  # a new run: an unanswered offer is made again when it ends
        self._offer_after = build

        def work(progress, cancel) -> tuple[PipelineSummary, Changes]:
            return imports.pipeline(paths, build, progress, cancel, phase, topic_llm, in_child=in_child)

        task = BackgroundTask(work, self, progress_key=lambda step: (step.phase, step.name))
        task.signals.progress.connect(self.progress)
        task.signals.succeeded.connect(self._on_succeeded)
        task.signals.failed.connect(self._on_failed)
        task.signals.finished.connect(self._on_finished)
        self._phase = "import" if paths else "build"
        self._changes = Changes()
        self._started = time.monotonic()
        self._task = task.start()
        self.started.emit(title)
        return True

    def _on_succeeded(self, result: tuple[PipelineSummary, Changes]) -> None:
        summary, self._changes = result
        self._offer_after = self._offer_after and summary.built
        summary.seconds = time.monotonic() - self._started  # what the person waited, start-up included
        self.succeeded.emit(summary)

    def _set_phase(self, phase: str) -> None:
        # Written by the worker, read on the GUI thread after `failed`: a str swap is atomic.
        self._phase = phase

    def _on_failed(self, error: Exception) -> None:
        self._offer_after = False
        self._changes = PIPELINE_CHANGES  # a cancelled build keeps its finished stages; an import may have committed
        if is_cancel(error):  # a cancelled switch keeps the new model: building again resumes it
            self.cancelled.emit(self._phase)
        else:
            self._revert_embedder()
            self.failed.emit(self._phase, error)

    def _revert_embedder(self) -> None:
        previous, self._previous_embedding = self._previous_embedding, None
        if previous is not None:
            self._changes = self._changes | self._service.memory.use_embedding(previous)
            self.embedder_reverted.emit(previous.provider)  # the panel follows; equal config: no new switch

    def _on_finished(self) -> None:
        self._task = None
        self._previous_embedding = None
        changes, self._changes = self._changes, Changes()
        if changes.any:
            self.changed.emit(changes)
        self.finished.emit()
        offer, self._offer_after = self._offer_after, False
        pending, self._pending_embedding = self._pending_embedding, None
        if pending is not None:
            self.switch_embedder(pending)
        elif offer:
            self._offer_facts()

