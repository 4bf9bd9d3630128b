"""The main window: composes the shell's parts over one service and one key store.

It owns no engine logic and little of its own: the search panel (`ui.search`) is the
central view (the empty state stands in while the store is empty), browsing and run history are docks, the
import/build pipeline is `ImportController` with `ProgressPanel` showing it, and errors
go through `ui.shell.errors`. This class wires them together and handles what only a
window can: menus, drag and drop, geometry, closing.

What a write changed (`engine.api.Changes`) reaches `apply_changes`, whoever made it: this
window's import, build, search or label, or another process seen by the `StoreWatcher`;
each view re-reads only what it shows of the kinds that moved.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from engine.api import Changes, Flashback, msg
from ui import i18n
from ui.app_icon import app_icon
from ui.evaluate import EvaluatePanel
from ui.i18n import engine_words
from ui.people import PeopleView
from ui.search import SearchPanel
from ui.shell import window_state
from ui.shell.about import AboutDialog, AboutInfo, about_dialog, complete_info, open_folder
from ui.shell.actions import WindowActions, export_actions_of, install_menus
from ui.shell.browse import BrowsePanel
from ui.shell.empty_state import EmptyState
from ui.shell.errors import show_error, show_message
from ui.shell.import_controller import ImportController, PipelineSummary
from ui.shell.key_status import key_state
from ui.shell.keys_dialog import PROVIDERS, KeysDialog
from ui.shell.progress_panel import ProgressPanel
from ui.shell.run_history import RunHistoryPanel
from ui.shell.store_watcher import StoreWatcher
from ui.shell.topic_viewer import TopicViewer
from ui.tasks import run_in_background, wait_for_background_work

EXPORT_PATTERNS = "(*.json *.jsonl *.ndjson *.txt *.zip)"
DOCK_WIDTH = 300  # at 1280 px the candidates, the cards and the settings need the rest


class MainWindow(QMainWindow):
    def __init__(self, service: Flashback, keys, *, demo_export: Path | None = None,
                 about: AboutInfo | None = None) -> None:
        super().__init__()
        self._service = service
        self._keys = keys
        self.about_info = complete_info(about, service.data_dir)
        self._demo_export = Path(demo_export) if demo_export else None
        self._viewers: dict[int, TopicViewer] = {}
        self._showing_empty: bool | None = None  # unknown until the first stats arrive
        self._built_unasked = False  # the background build of what an import left (issue 26)
        self._ask_warmed = False  # the Ask flow loaded off the GUI thread once (issue 31)
        self.stats = None
        self.setObjectName("main_window")
        self.setWindowTitle("Flashback")
        if not app_icon().isNull():  # app_icon.install(app) covers every window; this, a window made alone
            self.setWindowIcon(app_icon())
        self.resize(1280, 800)
        self.setAcceptDrops(True)

        self.imports = ImportController(service, self)
        self.imports.topic_llm = self._topic_llm
        self.imports.facts_llm = self._facts_llm
        self.empty_state = EmptyState(demo_available=self._demo_export is not None)
        self.search_panel = SearchPanel(service, keys)
        self.imports.follow(self.search_panel.settings_panel)  # Settings → Embeddings: switch and re-embed
        self.progress_panel = ProgressPanel()
        self._stack = QStackedWidget()
        self._stack.addWidget(self.empty_state)
        self._stack.addWidget(self.search_panel)
        central = QWidget()
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(0, 0, 0, 6)
        central_layout.addWidget(self._stack, stretch=1)
        central_layout.addWidget(self.progress_panel)
        self.setCentralWidget(central)

        self.browse = BrowsePanel(service)
        self.history = RunHistoryPanel(service)
        self.browse_dock = self._dock(self.tr("Browse"), "browse_dock", self.browse)
        self.history_dock = self._dock(self.tr("Run history"), "history_dock", self.history)
        self.tabifyDockWidget(self.browse_dock, self.history_dock)
        self.people = PeopleView(service)  # issue 33: a card per person and one for the owner
        self.people_dock = self._dock(engine_words(msg("people.view.title")), "people_dock", self.people)
        self.tabifyDockWidget(self.history_dock, self.people_dock)
        self.evaluate_panel = EvaluatePanel(service, self.search_panel, keys)
        self.evaluate_dock = QDockWidget(self.tr("Evaluate"), self)
        self.evaluate_dock.setObjectName("evaluate_dock")
        self.evaluate_dock.setWidget(self.evaluate_panel)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.evaluate_dock)
        self.evaluate_dock.hide()
        self.evaluate_dock.toggleViewAction().setShortcut(QKeySequence("Ctrl+E"))
        self.evaluate_dock.visibilityChanged.connect(lambda shown: self.evaluate_panel.refresh() if shown else None)
        self.browse_dock.raise_()
        self.resizeDocks([self.browse_dock], [DOCK_WIDTH], Qt.Orientation.Horizontal)

        # Not `self.actions`: that would hide QWidget.actions(), the list of the window's own actions.
        self.window_actions = WindowActions(self)
        self.window_actions.check_language(i18n.saved_choice())
        self.toolbar = install_menus(self, self.window_actions,
                                     [self.browse_dock, self.history_dock, self.people_dock, self.evaluate_dock],
                                     export_actions_of(self.search_panel), self._demo_export is not None,
                                     [self.search_panel.settings_action])
        self._store_label = QLabel()
        self.statusBar().addPermanentWidget(self._store_label)
        self.read_only_label = QLabel()  # a store this process cannot write: said here while the window is open
        self.read_only_label.setObjectName("read_only_label")
        self.statusBar().addPermanentWidget(self.read_only_label)
        self._show_read_only()
        self.watcher = StoreWatcher(service, self)
        self._connect()
        self.update_key_state()
        self._default_state = self.saveState()
        window_state.restore(self)
        self.apply_changes(Changes.everything())  # the first look: everything is news
        self.watcher.start()

    def _dock(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)  # saveState/restoreState find docks by name
        dock.setWidget(widget)
        dock.setMinimumWidth(240)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        return dock

    def _connect(self) -> None:
        actions = self.window_actions
        actions.import_file.triggered.connect(self.choose_import)
        actions.import_folder.triggered.connect(self.choose_import_folder)
        actions.open_demo.triggered.connect(self.open_demo)
        actions.build.triggered.connect(self.start_build)
        actions.api_key.triggered.connect(self.open_keys_dialog)
        actions.reset_window.triggered.connect(self.reset_window)
        actions.quit.triggered.connect(self.close)
        actions.language.triggered.connect(self._on_language_chosen)
        actions.about.triggered.connect(self.show_about)
        actions.open_data_folder.triggered.connect(self.open_data_folder)
        self.search_panel.settings_panel.changed.connect(
            lambda name: self.update_key_state() if name == "preset" else None)
        self.empty_state.import_requested.connect(self.choose_import)
        self.empty_state.demo_requested.connect(self.open_demo)
        self.progress_panel.cancel_requested.connect(self.imports.cancel)
        self.imports.started.connect(self._on_pipeline_started)
        self.imports.progress.connect(self.progress_panel.show_step)
        self.imports.succeeded.connect(self._on_pipeline_succeeded)
        self.imports.cancelled.connect(self._on_pipeline_cancelled)
        self.imports.failed.connect(self._on_pipeline_failed)
        self.imports.finished.connect(self._on_pipeline_finished)
        self.imports.facts_offered.connect(self.progress_panel.show_facts_offer)  # issue 33: ask before any token
        self.progress_panel.facts_accepted.connect(self.imports.read_facts)
        self.progress_panel.facts_declined.connect(self._on_facts_declined)
        self.imports.facts_finished.connect(self._on_facts_read)
        self.browse.open_topic.connect(self.open_topic)
        self.browse.changed.connect(self.apply_changes)  # a chat forgotten (issue 23)
        self.browse.changed.connect(lambda _changes: self.watcher.resync())  # our own write: not news from elsewhere
        self.people.changed.connect(self.apply_changes)  # a merge moved messages: counts and browse follow
        self.people.open_topic.connect(lambda topic_id, ids: self.open_topic(topic_id, highlight=ids or None))
        for panel in (self.browse, self.history, self.people):
            panel.failed.connect(lambda error: show_error(self, self.tr("Could not read the store"), error))
        self.search_panel.open_topic.connect(self.open_topic)
        self.search_panel.open_cited.connect(lambda topic_id, ids: self.open_topic(topic_id, highlight=ids))
        self.browse.chats_loaded.connect(self.search_panel.settings_panel.set_chats)
        self.search_panel.changed.connect(self.apply_changes)
        self.imports.changed.connect(self.apply_changes)
        self.evaluate_panel.labels_imported.connect(self.apply_changes)
        self.watcher.changed.connect(self._on_store_changed_elsewhere)
        self.watcher.writer_changed.connect(self._on_writer_changed)
        self.history.rerun_requested.connect(self._on_rerun_requested)
        self.history.reask_requested.connect(self.search_panel.reask)

    # -- state ----------------------------------------------------------------------------
    def apply_changes(self, changes: Changes) -> None:
        """Bring every view up to date with a write, this window's or another process's:
        counts and browse lists for messages, chats and topics; cached search state for
        vectors; run history for runs; the shown query's labels and Evaluate for labels."""
        if changes.messages or changes.chats or changes.topics:
            self.refresh()
            self.browse.apply_changes(changes)
            self.people.apply_changes(changes)
        if changes.vectors:
            self._service.memory.invalidate()  # another embedder, a rebuilt index: search reads anew
        self.history.apply_changes(changes)
        if changes.labels:
            self.search_panel.reload_labels()
        if (changes.labels or changes.topics) and self.evaluate_dock.isVisible():
            self.evaluate_panel.refresh()  # new labels, or topics cut anew: labels map onto other topics

    def refresh(self) -> None:
        """Re-read the store's counts (in a worker) and show the empty state or the search."""
        run_in_background(self, self._service.store.stats, self._on_stats,
                          lambda error: show_error(self, self.tr("Could not open the store"), error))

    def _on_stats(self, stats) -> None:
        self.stats = stats
        self._store_label.setText(self.tr("Messages: {messages} · chats: {chats} · topics: {topics}").format(
            messages=f"{stats.messages:,}", chats=f"{stats.chats:,}", topics=f"{stats.topics:,}"))
        self._store_label.setToolTip(str(self._service.data_dir))
        empty = stats.messages == 0
        if empty != self._showing_empty:
            self._stack.setCurrentIndex(0 if empty else 1)
            if self._showing_empty is not None or empty:  # the first time, keep the restored layout
                self.browse_dock.setVisible(not empty)
                self.history_dock.setVisible(not empty)
                self.people_dock.setVisible(not empty)
            self._showing_empty = empty
        if not empty and not self.imports.busy:
            run_in_background(self, self._service.memory.status, self._on_memory_status)
        if not empty and not self._ask_warmed:  # `service.ask` itself imports the flow: in the worker too
            self._ask_warmed = True
            run_in_background(self, lambda: self._service.ask.warm_up(), lambda _done: None, lambda _error: None)

    def _on_memory_status(self, status) -> None:
        """Messages no build has reached (an import by `flashback import`, a build that was
        cancelled): with the built-in embedder they are built in the background while searches
        answer from what is built plus those messages' words (issue 26); another embedder, which
        costs hours or money, waits for Build memory. With nothing to build, the first search's
        index is loaded now rather than when the first query waits for it."""
        if self.imports.busy:
            return
        if status.needs_build and self._service.memory.embedding.provider == "builtin":
            if not self._built_unasked:  # once, for the store as the window found it
                self._built_unasked = True
                self.start_build()
        elif status.needs_build and not status.topics:
            self.statusBar().showMessage(self.tr(
                "These messages are not in memory yet: choose Memory → Build memory to search them."))
        elif not status.needs_build:
            run_in_background(self, self._service.search.warm_up, lambda _done: None, lambda _error: None)

    def _show_read_only(self) -> None:
        """A read-only folder or store file opens for search, browse and export (issue 23): the
        status bar says so, not stderr, and the searches do not repeat it."""
        said = self._service.store.read_only()
        self.read_only_label.setVisible(said is not None)
        self.read_only_label.setText(engine_words(said) if said is not None else "")

    def _on_store_changed_elsewhere(self, changes: Changes) -> None:
        """The watcher saw writes since its last look: update what they changed. An import or a
        build is news from another process; runs and labels may be this window's own."""
        if self.imports.busy:  # the store's contents move with our own pipeline's commits: it says when it ends
            changes = replace(changes, messages=False, chats=False, topics=False, vectors=False)
        self.apply_changes(changes)
        if changes.messages or changes.chats or changes.topics or changes.vectors:
            self.statusBar().showMessage(self.tr("The store was changed by another Flashback process: updated."),
                                         8000)

    def _on_writer_changed(self, writer: str) -> None:
        if self.imports.busy:
            return  # that writer is this window's own child process
        if writer:
            words = self.tr("{writer} is writing the store; searches show what is built so far.").format(writer=writer)
            self.statusBar().showMessage(words[0].upper() + words[1:])
        else:
            self.statusBar().clearMessage()

    # -- importing and building -------------------------------------------------------------
    def choose_import(self) -> QFileDialog:
        kinds = self.tr("Chat exports") + f" {EXPORT_PATTERNS};;" + self.tr("All files") + " (*)"
        dialog = QFileDialog(self, self.tr("Import chat exports"), "", kinds)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.filesSelected.connect(lambda files: self.start_import(*[Path(f) for f in files]))
        dialog.open()  # not exec(): the event loop (and any running import) keeps going
        return dialog

    def choose_import_folder(self) -> QFileDialog:
        dialog = QFileDialog(self, self.tr("Import an export folder"))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(lambda folder: self.start_import(Path(folder)))
        dialog.open()
        return dialog

    def start_import(self, *paths: Path) -> bool:
        """Import `paths` (files, folders or zips) then build; False when something already runs."""
        if self.imports.import_paths(list(paths)):
            return True
        self.statusBar().showMessage(self.tr("An import or build is already running."), 5000)
        return False

    def open_demo(self) -> bool:
        if self._demo_export is None:
            return False
        return self.start_import(self._demo_export)

    def start_build(self) -> bool:
        if self.imports.build():
            return True
        self.statusBar().showMessage(self.tr("An import or build is already running."), 5000)
        return False

    def _on_pipeline_started(self, title: str) -> None:
        self._built_unasked = True  # any import or build here: a cancelled one stays cancelled
        self.progress_panel.show_running(title)
        self.window_actions.set_busy(True)
        self.empty_state.set_busy(True)

    def _on_pipeline_succeeded(self, summary: PipelineSummary) -> None:
        self.progress_panel.show_summary(summary)  # stays until closed: no status-bar echo

    def _on_pipeline_cancelled(self, phase: str) -> None:
        self.progress_panel.show_cancelled(phase)

    def _on_pipeline_failed(self, phase: str, error: Exception) -> None:
        self.progress_panel.hide()
        show_error(self, self.tr("Import failed") if phase == "import" else self.tr("Building memory failed"), error)

    def _on_facts_declined(self) -> None:
        offered = self.imports.offered
        self.imports.skip_facts()
        self.progress_panel.show_facts_skipped(offered[0].topics if offered else 0)

    def _on_facts_read(self, report) -> None:
        self.progress_panel.show_facts_report(report)
        self.people.refresh()  # facts, bios and the people the model named: the cards read them again

    def _on_pipeline_finished(self) -> None:
        self.window_actions.set_busy(False)
        self.empty_state.set_busy(False)
        self.watcher.resync()  # our own changes (applied from `imports.changed`): not news from elsewhere

    # -- dialogs ------------------------------------------------------------------------------
    def open_topic(self, topic_id: int, highlight: list[int] | None = None) -> TopicViewer:
        """The topic's conversation; `highlight`: message ids an answer cites, marked and scrolled to."""
        viewer = self._viewers.get(topic_id)
        if viewer is None:
            viewer = TopicViewer(self._service, topic_id, self, highlight=highlight or ())
            viewer.destroyed.connect(lambda *_args, key=topic_id: self._viewers.pop(key, None))
            self._viewers[topic_id] = viewer
        elif highlight is not None:
            viewer.highlight(highlight)
        viewer.show()
        viewer.raise_()
        viewer.activateWindow()
        return viewer

    def _topic_llm(self):
        """The chat model to make topics with when a build starts: Settings' endpoint and model
        when "Also make topics with this model" is on and its key (if it needs one) is set."""
        settings = self.search_panel.settings_panel.settings()
        if not settings.topics_llm:
            return None
        key = self._keys.get(settings.preset)
        if settings.needs_key() and not key:
            self.statusBar().showMessage(self.tr("No API key for the topic model: building without it."), 8000)
            return None
        return settings.endpoint(key)

    def _facts_llm(self):
        """The chat model to read facts with after a build (issue 33): Settings' endpoint and
        model when its key (if it needs one) is set; None otherwise, and nothing is offered."""
        settings = self.search_panel.settings_panel.settings()
        key = self._keys.get(settings.preset)
        if settings.needs_key() and not key:
            return None
        return settings.endpoint(key)

    def open_keys_dialog(self) -> KeysDialog:
        preset = self.search_panel.settings_panel.settings().preset
        dialog = KeysDialog(self._keys, self, provider=preset if preset in PROVIDERS else PROVIDERS[0])
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        # Flash's "needs a key" hint and the toolbar follow what was saved or forgotten.
        dialog.finished.connect(self._on_keys_dialog_closed)
        dialog.open()
        return dialog

    def _on_keys_dialog_closed(self, _result: int) -> None:
        self.search_panel.refresh_keys()
        self.update_key_state()

    def update_key_state(self) -> None:
        self.window_actions.show_key_state(key_state(self._keys, self.search_panel.settings_panel.settings().preset))

    def show_about(self) -> AboutDialog:
        return about_dialog(self, self.about_info, self._service.memory.embedding,
                            self.search_panel.settings_panel.settings())

    def open_data_folder(self) -> bool:
        folder = self.about_info.data_dir or self._service.data_dir  # None: the service's (AboutInfo)
        if open_folder(folder):
            return True
        self.statusBar().showMessage(self.tr("Could not open {0}: no file manager answered.").format(folder), 8000)
        return False

    def _on_rerun_requested(self, settings: dict, query: str) -> None:
        self.search_panel.rerun(settings, query)

    def _on_language_chosen(self, action) -> None:
        i18n.save_choice(action.data())
        show_message(self, self.tr("Language"), self.tr("Flashback will use the new language after a restart."))

    # -- window ---------------------------------------------------------------------------------
    def reset_window(self) -> None:
        window_state.forget()
        self.restoreState(self._default_state)
        self.resize(1280, 800)
        empty = bool(self._showing_empty)
        self.browse_dock.setVisible(not empty)
        self.history_dock.setVisible(not empty)
        self.people_dock.setVisible(not empty)
        self.browse_dock.raise_()
        self.search_panel.settings_action.setChecked(True)

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """Closing mid-import cancels it (the import rolls back; a build keeps finished stages)."""
        self.imports.cancel()
        self.watcher.stop()
        wait_for_background_work(30_000)
        window_state.save(self)
        for viewer in list(self._viewers.values()):
            viewer.close()
        super().closeEvent(event)

    # -- drag and drop --------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt's name)
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt's name)
        paths = [Path(url.toLocalFile()) for url in event.mimeData().urls() if url.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.start_import(*paths)

