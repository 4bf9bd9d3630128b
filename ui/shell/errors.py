"""The one place in `ui/` that turns an exception into what the person sees.

Engine errors already carry plain-words messages (a code the window renders in its language); a
cancel is not an error at all; anything else is a bug, which gets one honest sentence
and goes to the log with its traceback (never into a dialog). The app names the log's file
(`use_log_file`, app/gui.py), so the sentence can say where it is; `UnexpectedErrors` does
the same for an exception no slot caught.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from engine.api import EngineError, is_cancel
from ui.i18n import engine_words

__all__ = ["UnexpectedErrors", "is_cancel", "plain_message", "show_error", "show_message", "use_log_file"]

log = logging.getLogger(__name__)
translate = QCoreApplication.translate  # lupdate reads translate("context", "text") calls
_log_file: Path | None = None  # where the details go; None until the app has set a log up


def use_log_file(path: Path | None) -> None:
    """Name the file this process logs to, for the sentences that send people there."""
    global _log_file
    _log_file = Path(path) if path is not None else None


def plain_message(error: BaseException) -> str:
    """What to tell the person about `error`, in their words, without a traceback."""
    if isinstance(error, EngineError):
        return engine_words(error)  # its message code, in the window's language
    if isinstance(error, PermissionError):
        text = translate("errors", "Flashback is not allowed to open {name}. Check the file's permissions.")
        return text.format(name=error.filename or translate("errors", "a file"))
    if isinstance(error, FileNotFoundError):
        text = translate("errors", "{name} does not exist (any more).")
        return text.format(name=error.filename or translate("errors", "The file"))
    if isinstance(error, OSError):
        text = translate("errors", "The system refused a file operation: {reason}")
        return text.format(reason=error.strerror or error)
    if _log_file is not None:
        text = translate("errors", "Flashback hit an internal error ({kind}). Nothing you did caused it; "
                                   "the details are in {log} (please attach it when you report this).")
        return text.format(kind=type(error).__name__, log=_log_file)
    text = translate("errors", "Flashback hit an internal error ({kind}). Nothing you did caused it; "
                               "the details are in the log.")
    return text.format(kind=type(error).__name__)


def show_error(parent: QWidget | None, title: str, error: BaseException) -> QMessageBox | None:
    """Show `error` in a window-modal box that does not block the caller (`open()`, not
    `exec()`), and return it; cancels show nothing and return None."""
    if is_cancel(error):
        return None
    if isinstance(error, EngineError):
        log.info("%s: %s", title, error)
        icon = QMessageBox.Icon.Warning
    else:
        log.error("%s", title, exc_info=error)
        icon = QMessageBox.Icon.Critical
    return show_message(parent, title, plain_message(error), icon)


def show_message(parent: QWidget | None, title: str, text: str,
                 icon: QMessageBox.Icon = QMessageBox.Icon.Information) -> QMessageBox:
    """Open a message box, unless the same words are already shown there: several reads that
    meet one fault at once (a damaged store fails the chats, people and topics lists) say so once."""
    if parent is not None:
        for shown in parent.findChildren(QMessageBox, "flashback_message"):
            if shown.isVisible() and shown.text() == text:
                return shown
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("flashback_message")
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


class UnexpectedErrors(QObject):
    """An exception nothing caught (a bug in a slot, in a worker thread): its traceback goes
    to the log, and the person sees one dialog naming the log, never a traceback on the
    terminal. While that dialog is open, further ones are only logged (a bug in a paint
    handler would otherwise open a box per frame)."""

    _caught = Signal(object)  # from any thread; the dialog opens on the GUI thread

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window: QWidget | None = None  # the dialogs' parent, once the window exists
        self.box: QMessageBox | None = None
        self._caught.connect(self._show)

    def install(self) -> None:
        sys.excepthook = self.excepthook
        threading.excepthook = self._thread_excepthook

    def _thread_excepthook(self, args) -> None:
        if args.exc_type is not SystemExit:  # a thread's SystemExit just ends it, as Python has it
            self.excepthook(args.exc_type, args.exc_value, args.exc_traceback)

    def excepthook(self, kind, error, trace) -> None:
        if issubclass(kind, KeyboardInterrupt):  # Ctrl+C in the terminal is no bug
            sys.__excepthook__(kind, error, trace)
            return
        log.error("unexpected error", exc_info=(kind, error, trace))
        self._caught.emit(error)

    def _show(self, error: BaseException) -> None:
        if self.box is not None and self.box.isVisible():
            return
        self.box = show_message(self.window, translate("errors", "Unexpected error"), plain_message(error),
                                QMessageBox.Icon.Critical)
        self.box.finished.connect(self._closed)  # deleted on close: forget it before it is gone

    def _closed(self, _result: int) -> None:
        self.box = None
