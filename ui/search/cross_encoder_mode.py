"""The cross-encoder from the search view (issue 25): with the reranker set to Cross-encoder,
every search's frozen candidates go to the rerank server once, as a coroutine on the qasync
loop (like Flash: the server is a network call, the GUI thread never waits on it), and the run
is recorded in the run history.

What happens when a setting changes: Score ≥ and top-K re-cut the scores already back
(ui/search/cross_encoder_view.py, no request); the server, its model and what is sent (topics,
passage length, batch, the conditions, the timeout) ask the server again about the same
candidates once the hand rests. A server that fails never fails the search: the engine keeps
stage 1's first topics and names the fallback, which the report, the cards and the status
line say. Chained, Flash reads only the topics this cross-encoder left it (`chained`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from engine.api import Flashback, Stage1Result
from ui.i18n import engine_words
from ui.search.flash_runner import FlashRunner, plain_words
from ui.search.settings_model import SearchSettings

translate = QCoreApplication.translate  # lupdate reads translate("SearchPanel", "…") calls
RESEND_DELAY_MS = 300
# What is sent, or where to: the server is asked again about the same candidates.
RESEND = frozenset({"rerank_preset", "rerank_url", "rerank_model", "ce_top_n", "ce_passage_tokens", "ce_batch",
                    "ce_skip_small", "ce_skip_flat", "ce_timeout"})
RECUT = frozenset({"ce_threshold", "ce_top_k"})  # a cut of the scores already back


class CrossEncoderMode(QObject):
    finished = Signal(object)  # SearchResult (recorded)
    failed = Signal(str)  # plain words (an internal error: a server's failure is a fallback, not this)
    cancelled = Signal()

    def __init__(self, service: Flashback, keys, settings: Callable[[], SearchSettings],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._service, self._keys, self._settings = service, keys, settings
        self.runner = FlashRunner(service, self, translate("SearchPanel", "The cross-encoder"))
        self.runner.finished.connect(self.finished)
        self.runner.failed.connect(self.failed)
        self.runner.cancelled.connect(self.cancelled)
        self.resend_later = QTimer(self, singleShot=True, interval=RESEND_DELAY_MS)

    def running(self) -> bool:
        return self.runner.running()

    def cancel(self, quiet: bool = False) -> None:
        self.resend_later.stop()
        self.runner.cancel(quiet)

    def server(self, settings: SearchSettings) -> str:
        """The rerank server's name in the window's language ("llama.cpp server")."""
        return engine_words(settings.rerank_endpoint(None).label)

    def blocked(self, settings: SearchSettings) -> str:
        """Why the server cannot be asked with these settings, or "" when it can."""
        if settings.rerank_preset == "custom" and not settings.rerank_url.strip():
            return translate("SearchPanel", "Enter the rerank server's URL in Settings → Cross-encoder.")
        if settings.rerank_needs_key() and not self._key(settings):
            name = settings.rerank_key_name()
            env = " or ".join(getattr(self._keys, "env_vars", lambda _p: ())(name)) or "—"
            return translate("SearchPanel", "No API key for {0}: add one in the API key dialog, or set {1}.").format(
                self.server(settings), env)
        return ""

    def reranker(self, settings: SearchSettings):
        """The cross-encoder these settings describe; people and files by the threshold sliders' cut
        (as `flashback search --reranker cross-encoder` keeps them). Raises an EngineError for settings
        it cannot run with."""
        return self._service.search.cross_encoder_reranker(settings.rerank_endpoint(self._key(settings)),
                                                           settings.cross_encoder_settings(),
                                                           settings.threshold_settings())

    def chained(self, settings: SearchSettings, flash):
        """Flash reading only the cross-encoder's best `ce_chain_keep` topics."""
        return self._service.search.chained_reranker(self.reranker(settings), flash)

    def start(self, stage1: Stage1Result) -> tuple[str, bool]:
        """Ask the server about `stage1`'s candidates; what the status line says (text, is it an error)."""
        self.resend_later.stop()
        settings = self._settings()
        blocked = self.blocked(settings)
        if blocked:
            self.runner.cancel(quiet=True)
            return blocked, True
        try:
            reranker = self.reranker(settings)
        except Exception as error:  # a setting the engine refuses: plain words, never a traceback
            return plain_words(error, translate("SearchPanel", "The cross-encoder")), True
        self.runner.start(stage1, reranker)
        topics = sum(1 for c in stage1.candidates if c.kind == "topic")
        return translate("SearchPanel", "Scoring up to {0} of {1} topics on {2}…").format(
            min(topics, settings.ce_top_n), topics, self.server(settings)), False

    def _key(self, settings: SearchSettings) -> str | None:
        return self._keys.get(settings.rerank_key_name()) if self._keys is not None else None
