"""Start the desktop app: QApplication on a qasync event loop, one service, one key store, one window."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import resources
from engine.api import EngineError

DEMO_EXPORT = resources.demo_export()  # None in an installation that does not carry it
log = logging.getLogger(__name__)


class NoDisplayError(EngineError):
    """Linux without X11 or Wayland: Qt would abort with a message about xcb libraries."""

    def __init__(self) -> None:
        super().__init__("No display was found (neither DISPLAY nor WAYLAND_DISPLAY is set), so the window cannot "
                         "open; run it headless with QT_QPA_PLATFORM=offscreen, or use the commands "
                         "(`flashback --help`, `flashback --self-test`).")


def check_display(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> None:
    """Raise NoDisplayError where Qt would find no display. Without this, Qt's xcb plugin
    aborts the process (exit 134) blaming a missing libxcb-cursor0, which sends people off
    installing packages. macOS and Windows always have one; QT_QPA_PLATFORM set is the
    user's own choice (offscreen, vnc, eglfs…), trusted as given."""
    if not platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return
    if environ.get("QT_QPA_PLATFORM") or environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return
    raise NoDisplayError()


def create_app(settings_dir: Path | None = None, copy_native_settings: bool = False):
    """The QApplication, named, with its settings placed and translations installed.

    With `settings_dir` (the data folder), QSettings is the INI file the engine reads and writes
    for every face (`<dir>/Flashback/Flashback.ini`, engine.api.settings_path): the window's
    layout beside the search settings and the language, and a second, separate Flashback (a
    test, a demo, another person's folder) keeps its own. `copy_native_settings` (the default
    data folder): on macOS and Windows, an older window's settings (a plist, the registry) are
    copied in once (Linux's INI file was copied by app.saved_settings.settings_file). Must run
    before any QSettings exists.
    """
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from ui import app_icon, i18n

    if settings_dir is not None:
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(settings_dir))
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication), "the window needs widgets: a bare QCoreApplication cannot host it"
    app.setApplicationName("Flashback")
    app.setOrganizationName("Flashback")
    app.setOrganizationDomain("flashback.local")
    if settings_dir is not None and copy_native_settings and sys.platform in ("darwin", "win32"):
        _copy_native_settings(app)
    i18n.install(app)  # before any widget exists: texts are set in constructors
    app_icon.install(app)  # the window icon, and the .desktop id Wayland finds the icon by
    return app


def _copy_native_settings(app) -> None:
    """Once, while the data folder's settings file does not exist: every key an older window
    kept in the platform's store (named as QSettings() named it: the domain first on macOS)."""
    from PySide6.QtCore import QSettings

    target = QSettings()
    if Path(target.fileName()).exists():
        return
    old = QSettings(QSettings.Format.NativeFormat, QSettings.Scope.UserScope,
                    app.organizationDomain() if sys.platform == "darwin" else app.organizationName(),
                    app.applicationName())
    for key in old.allKeys():
        target.setValue(key, old.value(key))
    target.sync()
    log.info("settings: copied %d keys from %s to %s", len(old.allKeys()), old.fileName(), target.fileName())


_QT_LEVELS = {"QtDebugMsg": logging.DEBUG, "QtInfoMsg": logging.INFO, "QtWarningMsg": logging.WARNING,
              "QtCriticalMsg": logging.ERROR, "QtFatalMsg": logging.CRITICAL}


def _qt_message_to_log(mode, _context, message: str) -> None:
    logging.getLogger("ui.qt").log(_QT_LEVELS.get(getattr(mode, "name", ""), logging.WARNING), "%s", message)


def watch_errors(app, data_dir: Path):
    """The window's log: what goes wrong is written to `<data dir>/logs/flashback.log` (the
    CLI's crash log: same file, same key scrubbing), which the window's "internal error"
    sentence names, and an exception no slot caught is logged and shown in one dialog,
    never printed on the terminal. Qt's own warnings go to the log too. Returns the
    `UnexpectedErrors` reporter, whose `window` the caller sets once the window exists."""
    from PySide6.QtCore import qInstallMessageHandler

    from app import crash
    from ui.shell import errors

    path = crash.install_window_log(data_dir)
    errors.use_log_file(path)
    if path is not None:  # without a file, Qt's warnings stay on the terminal, where they were
        qInstallMessageHandler(_qt_message_to_log)
    reporter = errors.UnexpectedErrors(app)
    reporter.install()
    return reporter


def open_service(data_dir: Path):
    """The store's service, or None after telling why it cannot be opened (damaged, written
    by a newer Flashback…) in a dialog: a window started from a launcher has no terminal."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QMessageBox

    from engine.api import Flashback
    from ui.shell.errors import plain_message

    try:
        return Flashback(data_dir)
    except EngineError as error:
        log.warning("the store in %s cannot be opened: %s", data_dir, error)
        title = QCoreApplication.translate("MainWindow", "Could not open the store")
        QMessageBox(QMessageBox.Icon.Critical, title, plain_message(error)).exec()
        return None


def open_window(data_dir: Path, demo: bool = False, settings_in_data_dir: bool = False):
    """Everything `run_gui` does before it waits: the app with its log and error hooks, the
    qasync loop, the service and the window, shown. None when the store cannot be opened
    (a dialog has said why). The settings always live in the data folder; `settings_in_data_dir`:
    the person named that folder, so nothing is copied from the platform's config folder."""
    import qasync
    from PySide6.QtCore import QTimer

    from app import __version__
    from app.keys import KeyStore
    from app.saved_settings import settings_file
    from ui.main_window import MainWindow
    from ui.shell.about import AboutInfo

    settings_file(data_dir, settings_in_data_dir)  # an older window's settings copied in once (Linux)
    app = create_app(data_dir, copy_native_settings=not settings_in_data_dir)
    errors = watch_errors(app, data_dir)
    service = open_service(data_dir)
    if service is None:
        return None
    asyncio.set_event_loop(qasync.QEventLoop(app))
    demo_export = DEMO_EXPORT
    window = MainWindow(service, KeyStore(), demo_export=demo_export, about=AboutInfo(__version__, data_dir))
    errors.window = window
    window.show()
    if demo and demo_export is not None:
        # After the first paint: the window shows at once, the import and build run behind
        # the progress panel. Idempotent: a second start imports nothing and builds nothing new.
        QTimer.singleShot(0, window.open_demo)
    return window


def run_gui(data_dir: Path, demo: bool = False, settings_in_data_dir: bool = False) -> int:
    check_display()
    window = open_window(data_dir, demo, settings_in_data_dir)  # held: dropping it would close it
    if window is None:
        return 1
    from PySide6.QtWidgets import QApplication

    loop = asyncio.get_event_loop()  # the qasync loop open_window set
    closed = asyncio.Event()
    app = QApplication.instance()
    assert app is not None, "open_window made it"
    app.aboutToQuit.connect(closed.set)
    try:
        loop.run_until_complete(closed.wait())
    finally:  # what qasync's `with loop:` does on the way out
        loop.stop()
        loop.close()
    return 0
