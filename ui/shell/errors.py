"""The one place in `ui/` that turns an exception into what the person sees.

Engine errors already carry plain-words messages (a code the window renders in its language); a
cancel is not an error at all; anything else is a bug, which gets one honest sentence
and goes to the log with its traceback (never into a dialog).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from engine.api import EngineError, is_cancel
from ui.i18n import engine_words

__all__ = ["is_cancel", "plain_message", "show_error", "show_message"]

log = logging.getLogger(__name__)
translate = QCoreApplication.translate  # lupdate reads translate("context", "text") calls


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
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("flashback_message")
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
