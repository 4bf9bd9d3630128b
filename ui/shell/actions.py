"""The window's actions, and the menus and toolbar made of them.

Actions are created once and shared by menu, toolbar and shortcuts, so enabling "Build
memory" while a build runs is one call. The window connects them; nothing here knows
what an action does.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, QObject, QSize
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QStyle, QToolBar

from ui.i18n import LANGUAGES
from ui.shell.key_status import MISSING, KeyState, key_icon

translate = QCoreApplication.translate  # lupdate reads translate("context", "text") calls


# In both languages at once and never translated, like the languages' names: whoever opens the
# menu to switch may not read the language the window is in now (issue 31: nothing said that a
# switch waits for a restart until after it was made). See ui/i18n for why it waits.
RESTART_NOTE = "Takes effect after a restart · Вступит в силу после перезапуска"

class WindowActions(QObject):
    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        style = window.style()
        icon = style.standardIcon
        self.import_file = QAction(icon(QStyle.StandardPixmap.SP_DialogOpenButton), self.tr("&Import file or zip…"),
                                   window, shortcut=QKeySequence(QKeySequence.StandardKey.Open))
        self.import_file.setIconText(self.tr("Import"))
        self.import_file.setToolTip(self.tr("Import a chat export: a file or a zip"))
        self.import_folder = QAction(icon(QStyle.StandardPixmap.SP_DirOpenIcon), self.tr("Import &folder…"), window)
        self.import_folder.setIconText(self.tr("Import folder"))
        self.import_folder.setToolTip(self.tr("Import an export folder (for example a Telegram DataExport folder)"))
        self.open_demo = QAction(self.tr("Open the &demo"), window)
        self.build = QAction(icon(QStyle.StandardPixmap.SP_BrowserReload), self.tr("&Build memory"), window,
                             shortcut=QKeySequence("Ctrl+B"))
        self.build.setIconText(self.tr("Build memory"))
        self.build.setToolTip(self.tr("Find topics, embed them and update the index for new messages"))
        self.api_key = QAction(key_icon(MISSING), self.tr("API &key…"), window)  # the window shows the real state
        self.api_key.setIconText(self.tr("API key"))
        self.reset_window = QAction(self.tr("&Reset window"), window)
        self.reset_window.setToolTip(self.tr("Put the panels back where they were at the first start"))
        self.quit = QAction(self.tr("&Quit"), window, shortcut=QKeySequence(QKeySequence.StandardKey.Quit))
        self.open_data_folder = QAction(self.tr("Open &data folder"), window)
        self.open_data_folder.setToolTip(self.tr("Show the folder that holds the store, the index and the run history"))
        self.about = QAction(self.tr("&About Flashback"), window)
        self.about.setMenuRole(QAction.MenuRole.AboutRole)  # macOS puts it in the application menu

        self.language_note = QAction(RESTART_NOTE, window)  # said before the switch, not only after it
        self.language_note.setEnabled(False)
        self.language = QActionGroup(window)
        self.language.setExclusive(True)
        self.language_system = QAction(self.tr("System language"), window, checkable=True)
        self.language_system.setData("system")
        self.language.addAction(self.language_system)
        for code, name in LANGUAGES.items():
            action = QAction(name, window, checkable=True)
            action.setData(code)
            self.language.addAction(action)

    def set_busy(self, busy: bool) -> None:
        """One writer at a time: while an import or build runs, don't offer another."""
        for action in (self.import_file, self.import_folder, self.open_demo, self.build):
            action.setEnabled(not busy)

    def show_key_state(self, state: KeyState) -> None:
        """The toolbar's key action tells the truth: set, needed and missing, or not needed."""
        self.api_key.setIcon(key_icon(state.state))
        self.api_key.setToolTip(state.tooltip)

    def check_language(self, choice: str) -> None:
        for action in self.language.actions():
            action.setChecked(action.data() == choice)


def install_menus(window: QMainWindow, actions: WindowActions, docks: list[QDockWidget],
                  export_actions: list[QAction], demo_available: bool,
                  panel_actions: Sequence[QAction] = ()) -> QToolBar:
    bar = window.menuBar()
    file_menu = bar.addMenu(translate("WindowActions", "&File"))
    file_menu.addActions([actions.import_file, actions.import_folder])
    if demo_available:
        file_menu.addAction(actions.open_demo)
    if export_actions:
        file_menu.addSeparator()
        export_menu = file_menu.addMenu(translate("WindowActions", "&Export"))
        export_menu.addActions(export_actions)
    file_menu.addSeparator()
    file_menu.addAction(actions.quit)

    memory_menu = bar.addMenu(translate("WindowActions", "&Memory"))
    memory_menu.addAction(actions.build)

    view_menu = bar.addMenu(translate("WindowActions", "&View"))
    view_menu.addActions([dock.toggleViewAction() for dock in docks])
    view_menu.addActions(list(panel_actions))
    view_menu.addSeparator()
    view_menu.addAction(actions.reset_window)

    settings_menu = bar.addMenu(translate("WindowActions", "&Settings"))
    settings_menu.addAction(actions.api_key)
    language_menu = settings_menu.addMenu(translate("WindowActions", "&Language"))
    language_menu.addAction(actions.language_note)
    language_menu.addSeparator()
    language_menu.addActions(actions.language.actions())

    help_menu = bar.addMenu(translate("WindowActions", "&Help"))
    help_menu.addAction(actions.open_data_folder)
    help_menu.addSeparator()
    help_menu.addAction(actions.about)

    toolbar = window.addToolBar(translate("WindowActions", "Main"))
    toolbar.setObjectName("main_toolbar")  # saveState needs a name
    toolbar.setMovable(False)
    toolbar.setIconSize(QSize(18, 18))
    toolbar.setToolButtonStyle(toolbar.toolButtonStyle().ToolButtonTextBesideIcon)
    toolbar.addActions([actions.import_file, actions.import_folder, actions.build])
    toolbar.addSeparator()
    toolbar.addAction(actions.api_key)
    return toolbar


def export_actions_of(panel) -> list[QAction]:
    """The search panel's export actions (Markdown, JSON, clipboard) for File → Export, when
    it offers them as actions; today it exports from its own bar, so the menu has none."""
    actions = getattr(panel, "export_actions", None)
    if callable(actions):
        actions = actions()
    return list(actions or [])
