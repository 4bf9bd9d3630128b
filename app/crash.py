"""What the CLI does with an exception nobody planned for: one sentence for the person, the
traceback for whoever fixes it, in `<data dir>/logs/flashback.log` (0600, rotated at
512 KiB, two old files kept), never with an API key in it. The window writes the same file
for as long as it runs (`install_window_log`): its "the details are in …" names it.

Keys are scrubbed twice: every key this process read (`app.keys.keys_in_use`) and the
key environment variables' values are replaced, then anything shaped like a key or a
`Bearer` header (`engine.scrub`).
"""

from __future__ import annotations

import logging
import os
import sys
import traceback
from logging.handlers import RotatingFileHandler
from pathlib import Path

from app.keys import ENV_VARS, keys_in_use
from engine.api import msg, scrub_text

LOG_FILE = Path("logs") / "flashback.log"
MAX_BYTES = 512 * 1024
BACKUPS = 2


class _Scrubbed(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return scrub_text(super().format(record), _secrets())


def _secrets() -> list[str]:
    names = {name for names in ENV_VARS.values() for name in names}
    return [*keys_in_use(), *(os.environ[name] for name in sorted(names) if os.environ.get(name))]


def log_path(data_dir: Path) -> Path:
    return Path(data_dir) / LOG_FILE


class _ReportingFileHandler(RotatingFileHandler):
    """Keeps a failed write instead of printing logging's own "--- Logging error ---" and a
    traceback to the terminal (a full disk did): `report` then says the log could not be written."""

    failure: OSError | None = None

    def _open(self):  # logging's hook for (re)opening the file, after a rollover too
        if not os.path.exists(self.baseFilename):  # created 0600 whatever the umask (issue 35)
            os.close(os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT, 0o600))
        return super()._open()

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 (logging's naming)
        error = sys.exc_info()[1]
        self.failure = error if isinstance(error, OSError) else OSError(str(error))


def _file_handler(data_dir: Path, form: str) -> _ReportingFileHandler:
    path = log_path(data_dir)
    Path(data_dir).mkdir(mode=0o700, parents=True, exist_ok=True)  # the window logs before the store makes it
    path.parent.mkdir(mode=0o700, exist_ok=True)
    if not path.exists():  # created private whatever the umask; the rotated copies are renames of it
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    handler = _ReportingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8",
                                    errors="backslashreplace")
    handler.setFormatter(_Scrubbed(form))
    return handler


def _logger(data_dir: Path) -> logging.Logger:
    logger = logging.getLogger("flashback.crash")
    logger.propagate = False  # the traceback goes to the file only, never to the terminal
    for old in list(logger.handlers):
        logger.removeHandler(old)
        old.close()
    logger.addHandler(_file_handler(data_dir, "%(asctime)s %(levelname)s %(message)s"))
    return logger


# What the window's log keeps: the engine's and the window's own notes (a Flash fallback's
# reason, a retry, an index rebuilt) and every warning or error, whoever logs it.
WINDOW_LOGGERS = ("engine", "ui", "app")
_window_handler: logging.Handler | None = None  # what a second call replaces


def install_window_log(data_dir: Path) -> Path | None:
    """Send this process's logging to the data folder's log (same file, same scrubbing as
    the CLI's crash report) instead of the terminal, and return the file's path. With a
    handler on the root logger, Python's last-resort handler (which printed an unhandled
    record's traceback, unscrubbed, on stderr) is never used. Where the file cannot be
    made (a read-only folder), warnings go to stderr, scrubbed too, and None is returned."""
    global _window_handler
    form = "%(asctime)s %(levelname)s %(name)s: %(message)s"
    try:
        handler: logging.Handler = _file_handler(data_dir, form)
        handler.setLevel(logging.INFO)
        path: Path | None = log_path(data_dir)
    except OSError:
        handler, path = logging.StreamHandler(sys.stderr), None
        handler.setFormatter(_Scrubbed(form))
        handler.setLevel(logging.WARNING)
    root = logging.getLogger()
    if _window_handler is not None:
        root.removeHandler(_window_handler)
        _window_handler.close()
    _window_handler = handler
    root.addHandler(handler)
    for name in WINDOW_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO)
    return path


def report(exc: BaseException, data_dir: Path | None, command: str | None) -> str:
    """Log `exc` with its traceback; return the one sentence to show instead."""
    message = scrub_text(str(exc), _secrets()).strip()
    what = f"{type(exc).__name__}: {message.splitlines()[0][:200]}" if message else type(exc).__name__
    details = "".join(traceback.format_exception(exc))
    if data_dir is None:
        return _words(msg("cli.crash.no_folder", what=what))
    try:
        logger = _logger(data_dir)
        logger.error("`flashback %s` failed\n%s", command or "", details)
        for handler in logger.handlers:
            handler.close()
            if isinstance(handler, _ReportingFileHandler) and handler.failure is not None:
                raise handler.failure
    except OSError as problem:
        reason = problem.strerror or str(problem) or type(problem).__name__
        return _words(msg("cli.crash.not_written", what=what, log=str(log_path(data_dir)), reason=reason))
    return _words(msg("cli.crash.logged", what=what, log=str(log_path(data_dir))))


def _words(message) -> str:
    """In the CLI's language (imported here: the crash path must not fail on a broken import above it)."""
    from app.cli_options import say

    return say(message)
