"""The main window: for now the store's contents and importing with progress and cancel."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.errors import EngineError, ImportCancelled
from engine.importers.base import ImportProgress
from engine.importers.service import ImportReport
from engine.service import FlashbackService
from ui.tasks import BackgroundTask


class MainWindow(QMainWindow):
    def __init__(self, service: FlashbackService) -> None:
        super().__init__()
        self._service = service
        self._task: BackgroundTask | None = None
        self._progress: QProgressDialog | None = None
        self.setWindowTitle("Flashback")
        self.resize(960, 640)
        self.setAcceptDrops(True)
        self._build_menu()
        self._summary = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self._summary.setWordWrap(True)
        import_button = QPushButton("Import an export…")
        import_button.clicked.connect(self.choose_import)
        layout = QVBoxLayout()
        layout.addStretch()
        layout.addWidget(self._summary)
        layout.addWidget(import_button, alignment=Qt.AlignmentFlag.AlignCenter)
        layout.addStretch()
        central = QWidget()
        central.setLayout(layout)
        self.setCentralWidget(central)
        self._store_label = QLabel(f"Store: {service.data_dir}")
        self.statusBar().addPermanentWidget(self._store_label)
        self.refresh()

    def _build_menu(self) -> None:
        menu = self.menuBar().addMenu("&File")
        open_file = QAction("&Import file or zip…", self, shortcut=QKeySequence.StandardKey.Open)
        open_file.triggered.connect(self.choose_import)
        open_folder = QAction("Import &folder…", self)
        open_folder.triggered.connect(self.choose_import_folder)
        quit_action = QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        menu.addActions([open_file, open_folder])
        menu.addSeparator()
        menu.addAction(quit_action)

    def refresh(self) -> None:
        stats = self._service.stats()
        if stats.messages == 0:
            self._summary.setText("<h2>No chats yet</h2>Import a Telegram, ChatGPT, WhatsApp or JSONL export "
                                  "to start. You can also drop files, folders or zips on this window.")
        else:
            self._summary.setText(
                f"<h2>{_count(stats.messages, 'message')}</h2>{_count(stats.chats, 'chat')} · "
                f"{_count(stats.people, 'person', 'people')} · {_count(stats.artifacts, 'attachment')} · "
                f"{_count(stats.sources, 'imported file')}")

    # -- importing ---------------------------------------------------------------------
    def choose_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Import a chat export", "", "Chat exports (*.json *.jsonl *.txt *.zip);;All files (*)")
        if path:
            self.start_import(Path(path))

    def choose_import_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Import an export folder")
        if path:
            self.start_import(Path(path))

    def start_import(self, path: Path) -> BackgroundTask | None:
        if self._task is not None:
            self.statusBar().showMessage("An import is already running.", 5000)
            return None
        service = self._service
        task = BackgroundTask(lambda progress, cancel: service.import_path(path, on_progress=progress, cancel=cancel),
                              self)
        self._progress = QProgressDialog(f"Importing {path.name}…", "Cancel", 0, 1000, self)
        self._progress.setWindowModality(Qt.WindowModality.WindowModal)
        self._progress.setMinimumDuration(300)
        self._progress.canceled.connect(task.cancel)
        task.signals.progress.connect(self._on_import_progress)
        task.signals.succeeded.connect(self._on_import_succeeded)
        task.signals.failed.connect(self._on_import_failed)
        task.signals.finished.connect(self._on_import_finished)
        self._task = task.start()
        return task

    def _on_import_progress(self, progress: ImportProgress) -> None:
        if self._progress is not None and progress.bytes_total:
            self._progress.setValue(int(1000 * progress.bytes_done / progress.bytes_total))
            self._progress.setLabelText(f"Importing {progress.source}… {progress.messages:,} messages")

    def _on_import_succeeded(self, report: ImportReport) -> None:
        added = report.messages_added
        self.statusBar().showMessage(
            f"Imported {added:,} new messages from {report.path}" if added else f"Nothing new in {report.path}", 10000)

    def _on_import_failed(self, error: Exception) -> None:
        if isinstance(error, ImportCancelled):
            self.statusBar().showMessage(str(error), 10000)
        elif isinstance(error, EngineError):
            QMessageBox.warning(self, "Import failed", str(error))
        else:  # a bug: still no traceback in the user's face, but say it is ours
            QMessageBox.critical(self, "Import failed", f"Flashback hit an internal error: {error!r}")

    def _on_import_finished(self) -> None:
        if self._progress is not None:
            self._progress.reset()
            self._progress.deleteLater()
            self._progress = None
        if self._task is not None:
            self._task.signals.deleteLater()
        self._task = None
        self.refresh()

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """Closing mid-import cancels it (the transaction rolls back) before the window goes."""
        if self._task is not None:
            self._task.cancel()
            QThreadPool.globalInstance().waitForDone(30_000)
        super().closeEvent(event)

    # -- drag and drop -----------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt's name)
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt's name)
        paths = [Path(url.toLocalFile()) for url in event.mimeData().urls() if url.isLocalFile()]
        if paths:
            self.start_import(paths[0])


def _count(value: int, singular: str, plural: str | None = None) -> str:
    return f"{value:,} {singular if value == 1 else plural or singular + 's'}"
