"""The Ask mode's controller: from the search view's settings to a run, and its outcome to the view.

Ask uses what the window already has: Settings → Flash's endpoint and model (no model, or no
key: the sources and one sentence saying what to set), the reranker chosen there (Flash when
a model is set, the cross-encoder on its own or before Flash when chosen, else threshold or
vector only), and the search filters. Before the first
question to a cloud endpoint it says once, per host, which excerpts leave the machine and to
whom (remembered in QSettings); nothing is sent until the person agrees.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from engine.api import AskSettings, Plan, make_reranker
from ui.search.ask_runner import AskRunner
from ui.search.ask_view import AskView, plan_of
from ui.search.ask_words import comparison, endpoint_host, fallback_sentence, model_missing, summary
from ui.search.flash_runner import plain_words

NOTICE_KEY = "ask/cloud_notice_hosts"  # hosts the person was told about, comma-separated


class AskMode(QObject):
    outcome_ready = Signal(object)  # AskOutcome: the candidates and cards follow it
    run_recorded = Signal(int)
    said = Signal(str, bool)  # the status line: text, is it an error

    def __init__(self, service, keys, settings_panel, store: QSettings, view: AskView,
                 recent: Callable[[], str], parent: QWidget, cross_encoder=None) -> None:
        super().__init__(parent)
        self._cross_encoder = cross_encoder  # the panel's CrossEncoderMode: its server settings and key
        self._service, self._keys, self._settings_panel = service, keys, settings_panel
        self._store = store
        self._recent = recent
        self._window = parent
        self.view = view
        self.notice: QMessageBox | None = None  # the cloud notice while it waits for an answer
        self._missing: str | None = None  # why this run has no model, said with its outcome
        self._previous = None  # the recorded run a re-run is compared with
        self.runner = AskRunner(service, self)
        self.runner.step.connect(view.show_step)
        self.runner.answer_text.connect(view.show_text)
        self.runner.finished.connect(self._on_finished)
        self.runner.stopped.connect(self._on_stopped)
        view.cancel_requested.connect(self.cancel)

    def running(self) -> bool:
        return self.runner.running() or self.notice is not None

    def ask(self, question: str, plan: Plan | None = None, previous=None) -> bool:
        """Ask `question` (with the person's own plan, or comparing with a recorded run `previous`);
        False when it could not start (said in the status line)."""
        settings = self._settings_panel.settings()
        self._missing = model_missing(settings, self._keys)
        try:
            endpoint = None if self._missing else settings.endpoint(self._keys.get(settings.preset))
            cross_encoder = self._cross_encoder is not None and (
                settings.mode == "cross-encoder" or (settings.mode == "flash" and settings.chain_cross_encoder))
            why_not = self._cross_encoder.blocked(settings) if cross_encoder else ""
            if why_not:  # the rerank server's URL or key is missing: said as the Search's cross-encoder says it
                self.said.emit(why_not, True)
                return False
            if settings.mode == "cross-encoder":
                reranker = self._cross_encoder.reranker(settings)
            elif settings.mode == "flash" and endpoint is not None:
                # The person's threshold settings, as Search, the CLI and MCP pass them: what a fallback
                # keeps and how unbuilt messages are cut (issue 31: Ask's Flash had none).
                reranker = self._service.search.flash_reranker(endpoint, settings.flash_settings(), self._recent(),
                                                               threshold=settings.threshold_settings())
                if cross_encoder:  # Flash reads only the cross-encoder's best topics, as in Search
                    reranker = self._cross_encoder.chained(settings, reranker)
            else:
                reranker = make_reranker("none" if settings.mode == "vector" else "threshold",
                                         settings.threshold_settings())
        except Exception as error:  # a bad URL: plain words, never a traceback
            self.said.emit(plain_words(error, self.tr("Ask")), True)
            return False
        ask_settings = AskSettings(retrieval=settings.retrieval(), use_plan_model=plan is None)
        self.runner.cancel(quiet=True)
        self._previous = previous

        def start() -> None:
            self._start(question, reranker, endpoint, ask_settings, plan)

        host = endpoint_host(settings)
        if endpoint is not None and not endpoint.is_local and host not in self._told():
            self._ask_first(host, settings, start)
        else:
            start()
        return True

    def cancel(self) -> None:
        self.runner.cancel()

    # -- the cloud notice -------------------------------------------------------------------
    def _told(self) -> set[str]:
        return {h for h in str(self._store.value(NOTICE_KEY, "") or "").split(",") if h}

    def _ask_first(self, host: str, settings, start: Callable[[], None]) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, self.tr("Before the first question to {0}").format(host),
                          self.tr("To answer, Ask sends parts of your chats to {0} ({1}).").format(
                              host, settings.model.strip()), QMessageBox.StandardButton.Cancel, self._window)
        tokens = AskSettings().resolved(False).budget_tokens or 0
        lines = [self.tr("• your question and the names of your chats, to plan the searches;"),
                 self.tr("• the messages found for it, as numbered excerpts with their chat, authors and times: "
                         "up to about {0:,} tokens per question;").format(tokens)]
        if settings.mode == "flash":
            lines.append(self.tr("• the found topics' messages, which Flash reads to choose among them;"))
        lines.append(self.tr("• nothing else: the store, the index and every other message stay on this "
                             "computer."))
        box.setInformativeText("\n".join(lines) + "\n\n" + self.tr("This is said once for {0}.").format(host))
        send = box.addButton(self.tr("Send and ask"), QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(send)

        def answered(_result: int) -> None:
            self.notice = None
            if box.clickedButton() is send:
                self._store.setValue(NOTICE_KEY, ",".join(sorted(self._told() | {host})))
                start()
            else:
                self.said.emit(self.tr("Not asked: nothing was sent to {0}.").format(host), False)
            box.deleteLater()

        box.finished.connect(answered)
        self.notice = box
        box.open()  # not exec(): the event loop keeps running

    # -- a run ---------------------------------------------------------------------------------
    def _start(self, question: str, reranker, endpoint, settings: AskSettings, plan: Plan | None) -> None:
        self.view.start(plan)
        self.runner.start(question, reranker, endpoint, settings, plan)
        self.said.emit(self.tr("Asking…"), False)

    def _on_finished(self, outcome) -> None:
        note = ""
        if self._previous is not None:
            note = comparison(self._previous.report or {}, self._previous.id, outcome)
        self.view.show_outcome(outcome, self._missing if outcome.fallback == "no_model" else None,
                               fallback_sentence(outcome.fallback), note)
        self.outcome_ready.emit(outcome)
        self.said.emit(summary(outcome), False)
        if outcome.run_id is not None:
            self.run_recorded.emit(outcome.run_id)

    def _on_stopped(self, partial, words: str) -> None:
        self.view.show_stopped(partial, words)
        self.said.emit(words, False)


def recorded_plan(run) -> Plan | None:
    """The plan a recorded Ask run searched, when the person had given it (asked again as given)."""
    data = (run.report or {}).get("plan")
    return plan_of(data) if isinstance(data, dict) and data.get("source") == "user" else None
