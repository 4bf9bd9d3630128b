"""Copy or save the selected context (Markdown or JSON) within a token budget.

The context is assembled by the engine (`service.search.context`) in a worker thread, since it
reads whole conversations from the store; only the clipboard is touched on the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QSpinBox, QWidget

from engine.api import SETTINGS, to_json, to_markdown, write_private
from ui.search.flash_runner import plain_words
from ui.search.settings_model import RANGES
from ui.search.settings_panel import unit_suffix
from ui.tasks import BackgroundTask


def _render(service, outcome, budget: int, fmt: str, path: Path | None) -> tuple[str, Path | None, int] | Exception:
    """Worker side: assemble, render and (for a file) write; what the GUI reports, or the error
    (returned, so the GUI gets one signal per export: see SearchPanel.search on why)."""
    try:
        pack = service.search.context(outcome, budget)
        text = to_markdown(pack) if fmt == "md" else to_json(pack)
        if path is not None:
            write_private(path, text)  # chat text: 0600 whatever the umask (engine/files.py)
    except Exception as error:  # shown in plain words by the bar
        return error
    return text, path, len(pack.items)


class ExportBar(QWidget):
    message = Signal(str)  # what happened, in plain words, for the panel's status line
    budget_changed = Signal(int)

    def __init__(self, service, current_outcome: Callable[[], object | None], budget: int,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._current_outcome = current_outcome
        self._tasks: set[BackgroundTask] = set()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel(self.tr("Context budget")))
        self.budget = QSpinBox()
        low, high, _ = RANGES["budget_tokens"]
        self.budget.setRange(int(low), int(high))
        self.budget.setSingleStep(500)
        self.budget.setGroupSeparatorShown(True)
        self.budget.setSuffix(unit_suffix(SETTINGS["budget_tokens"].unit))
        self.budget.setValue(budget)
        self.budget.valueChanged.connect(self.budget_changed)
        layout.addWidget(self.budget)
        self.copy_button = QPushButton(self.tr("Copy context"))
        self.copy_button.clicked.connect(lambda: self.export("md", None))
        self.markdown_button = QPushButton(self.tr("Export Markdown…"))
        self.markdown_button.clicked.connect(lambda: self.choose_file("md"))
        self.json_button = QPushButton(self.tr("Export JSON…"))
        self.json_button.clicked.connect(lambda: self.choose_file("json"))
        for button in (self.copy_button, self.markdown_button, self.json_button):
            layout.addWidget(button)
        layout.addStretch(1)
        self.set_available(False)

    def set_available(self, available: bool) -> None:
        for button in (self.copy_button, self.markdown_button, self.json_button):
            button.setEnabled(available)

    def choose_file(self, fmt: str) -> None:
        if fmt == "md":
            title, pattern, suffix = self.tr("Export context as Markdown"), self.tr("Markdown (*.md)"), ".md"
        else:
            title, pattern, suffix = self.tr("Export context as JSON"), self.tr("JSON (*.json)"), ".json"
        name, _ = QFileDialog.getSaveFileName(self, title, "flashback-context" + suffix, pattern)
        if name:
            path = Path(name)
            self.export(fmt, path if path.suffix else path.with_suffix(suffix))

    def export(self, fmt: str, path: Path | None) -> BackgroundTask | None:
        """Markdown to the clipboard (`path` None) or `fmt` to `path`, off the GUI thread."""
        outcome = self._current_outcome()
        if outcome is None:
            self.message.emit(self.tr("Search first: there is nothing selected to export."))
            return None
        service, budget = self._service, self.budget.value()
        task = BackgroundTask(lambda _progress, _cancel: _render(service, outcome, budget, fmt, path))
        task.signals.succeeded.connect(lambda result: self._on_done(task, result))
        task.signals.failed.connect(lambda error: self._on_done(task, error))
        self._tasks.add(task)
        return task.start()

    def busy(self) -> bool:
        return bool(self._tasks)

    def _on_done(self, task: BackgroundTask, result: tuple[str, Path | None, int] | Exception) -> None:
        self._tasks.discard(task)
        if isinstance(result, Exception):
            self._on_failed(result)
            return
        text, path, items = result
        if path is None:
            QGuiApplication.clipboard().setText(text)
            self.message.emit(self.tr("Copied the context ({0} items) to the clipboard.").format(items))
        else:
            self.message.emit(self.tr("Saved the context ({0} items) to {1}.").format(items, path))

    def _on_failed(self, error: Exception) -> None:
        if isinstance(error, OSError):
            self.message.emit(self.tr("Could not write the file: {0}").format(error.strerror or error))
        else:
            self.message.emit(plain_words(error, self.tr("Export")))
