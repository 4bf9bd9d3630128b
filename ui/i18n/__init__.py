"""The UI's language: English (the source strings) or Russian (Qt translations).

The choice ("system", "en" or "ru") is the engine's saved setting `language` ([ui] in the
settings file QSettings keeps too); "system" follows the OS locale.
Translators are installed once, before the first window is built, and the choice takes
effect at the next start: every widget sets its texts in `__init__`, and retranslating a
live window with half its strings built from data is more fragile than it is worth.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

import resources
from engine.api import SETTINGS, EngineError, Message, read_settings, render, write_settings
from ui.settings_file import settings_file

SETTING = "ui/language"  # the QSettings key of the engine's setting `language`
CHOICES = SETTINGS["language"].choices
LANGUAGES = {"en": "English", "ru": "Русский"}  # each in its own language, never translated
_current = "en"  # what `install` put in place: the language engine messages are rendered in


def saved_choice() -> str:
    return read_settings(settings_file()).language


def save_choice(choice: str) -> None:
    if choice not in CHOICES:
        raise ValueError(f"unknown language choice {choice!r}")
    write_settings(settings_file(), {"language": choice})


def resolve(choice: str, locale: QLocale | None = None) -> str:
    """The language to show for `choice`: the system's when it is one we have, else English."""
    if choice in LANGUAGES:
        return choice
    name = (locale or QLocale.system()).name()  # "ru_RU", "en_US", "C"
    return name.split("_")[0] if name.split("_")[0] in LANGUAGES else "en"


def current_language() -> str:
    """The window's language ("en" or "ru"): engine messages (`engine.messages`) are rendered in it,
    as Qt's translators render the window's own words."""
    return _current


def engine_words(said: Message | EngineError | str) -> str:
    """What the engine said, in the window's language: a `Message` (an error's, a search's
    notes, who writes the store), an `EngineError`, or text the engine has no code for yet; a
    message about a missing setting gets the window's hint of where to set it (its own panel or
    dialog, issue 31)."""
    if isinstance(said, EngineError):
        return render(said.message, _current, face="window")
    return render(said, _current, face="window")


def install(app: QCoreApplication, choice: str | None = None) -> list[QTranslator]:
    """Install Flashback's translation (and Qt's own, for standard buttons) for `choice`
    (default: the saved one). The translators are children of `app` (they live as long as
    it); pass the returned list to `uninstall` to go back to English. English needs none."""
    global _current
    language = resolve(choice or saved_choice())
    _current = language
    if language == "en":
        return []
    installed = []
    ours = QTranslator(app)
    catalogue = resources.translation(language)
    if catalogue is not None and ours.load(str(catalogue)):
        app.installTranslator(ours)
        installed.append(ours)
    qt_own = QTranslator(app)
    if qt_own.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt_own)
        installed.append(qt_own)
    return installed


def qt_words_qtbase_lacks() -> list[str]:
    """Qt's own words that the qtbase_ru.qm shipped in the PySide6 wheel (6.11) does not have, as
    the window shows them now. The file dialog's labels gained mnemonics ("&Look in:", "Files of
    &type:") and its file types moved to QAbstractFileIconProvider, so the Russian file dialog said
    "Look in:" and "Folder" (issue 31). Our catalogue translates them (lupdate finds them here), and
    Qt asks our translator when its own has nothing: translators are searched newest first, and
    Qt's is installed after ours. A test checks each is translated."""
    translate = QCoreApplication.translate
    return [translate("QFileDialog", "&Look in:"), translate("QFileDialog", "Files of &type:"),
            translate("QAbstractFileIconProvider", "Folder", "All other platforms"),
            translate("QAbstractFileIconProvider", "%1 File", "%1 is a file name suffix, for example txt"),
            translate("QAbstractFileIconProvider", "File", "All other platforms"),
            translate("QAbstractFileIconProvider", "Drive")]


def uninstall(app: QCoreApplication, translators: list[QTranslator]) -> None:
    global _current
    _current = "en"
    for translator in translators:
        app.removeTranslator(translator)
