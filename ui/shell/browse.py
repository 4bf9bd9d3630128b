"""Browse what the store holds: chats, topics (filter by chat and text) and people, with counts.

Every list is read in a worker (`service.browse.chats()` etc. are blocking); the topic filter is
latest-wins: a reply for an older filter is dropped, so typing never shows stale rows.
Double-clicking a chat shows its topics; double-clicking a topic asks for the viewer.
Right-clicking a chat offers "Forget this chat…" (issue 23): what would go is read in a
worker and named in a confirmation, the forget runs in a worker, and what it changed goes
to the window as `changed`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.api import Changes, Flashback, ForgetReport, msg
from ui.i18n import engine_words
from ui.shell.errors import show_error, show_message
from ui.shell.formatting import day, fill, row, span
from ui.tasks import BackgroundTask, LatestWins, run_in_background

ID_ROLE = Qt.ItemDataRole.UserRole + 1
TOPIC_LIMIT = 500


def _tree(headers: list[str], stretch: int) -> QTreeWidget:
    tree = QTreeWidget()
    tree.setHeaderLabels(headers)
    tree.setRootIsDecorated(False)
    tree.setUniformRowHeights(True)
    tree.setAlternatingRowColors(True)
    tree.setSortingEnabled(True)
    header = tree.header()
    header.setStretchLastSection(False)
    for column in range(len(headers)):  # widths: formatting.fit_columns after every fill
        header.setSectionResizeMode(column, header.ResizeMode.Interactive)
    header.setSectionResizeMode(stretch, header.ResizeMode.Stretch)
    return tree


class BrowsePanel(QWidget):
    open_topic = Signal(int)
    failed = Signal(object)  # an exception from a read, for the window's error helper
    chats_loaded = Signal(list)  # [(chat id, title)] after each refresh, for the search's chat filter
    changed = Signal(object)  # Changes of a write made here (a chat forgotten), for the window's apply_changes

    def __init__(self, service: Flashback, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._topics_read = LatestWins(self)  # the filter typed last is the one shown
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)

        self.chats = _tree([self.tr("Chat"), self.tr("Messages"), self.tr("Topics"), self.tr("Last")], 0)
        self.chats.itemDoubleClicked.connect(self._on_chat_activated)
        self.chats.setToolTip(self.tr("Double-click a chat to see its topics."))
        self.chats.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.chats.customContextMenuRequested.connect(self._on_chat_menu)
        self.forgetting: BackgroundTask | None = None

        self.chat_filter = QComboBox()
        self.chat_filter.currentIndexChanged.connect(self._schedule_topics)
        self.text_filter = QLineEdit()
        self.text_filter.setPlaceholderText(self.tr("Filter topics…"))
        self.text_filter.setClearButtonEnabled(True)
        self.text_filter.textChanged.connect(self._schedule_topics)
        self._topics_timer = QTimer(self, singleShot=True, interval=200)  # debounce typing
        self._topics_timer.timeout.connect(self.refresh_topics)
        self.topics = _tree([self.tr("Date"), self.tr("Summary"), self.tr("Chat"), self.tr("Messages")], 1)
        self.topics.itemDoubleClicked.connect(self._on_topic_activated)
        self.topics.setToolTip(self.tr("Double-click a topic to read the conversation."))
        self.topics_note = QLabel()
        self.topics_note.setEnabled(False)
        self.topics_note.hide()
        filters = QHBoxLayout()
        filters.addWidget(self.chat_filter, stretch=2)
        filters.addWidget(self.text_filter, stretch=3)
        topic_page = QWidget()
        topic_layout = QVBoxLayout(topic_page)
        topic_layout.setContentsMargins(0, 6, 0, 0)
        topic_layout.addLayout(filters)
        topic_layout.addWidget(self.topics)
        topic_layout.addWidget(self.topics_note)

        self.people = _tree([self.tr("Person"), self.tr("Handle"), self.tr("Messages"), self.tr("Chats")], 0)

        self.tabs.addTab(self.chats, "")
        self.tabs.addTab(topic_page, "")
        self.tabs.addTab(self.people, "")
        self._counts: dict[str, int | None] = {"chats": 0, "topics": 0, "people": 0, "shown": None}
        self._update_titles()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tabs)

    # -- loading --------------------------------------------------------------------------
    def refresh(self) -> None:
        """Reload all three lists (after an import or a build)."""
        browse = self._service.browse
        run_in_background(self, browse.chats, self._show_chats, self.failed.emit)
        run_in_background(self, browse.people, self._show_people, self.failed.emit)
        self.refresh_topics()

    def apply_changes(self, changes: Changes) -> None:
        """Re-read the lists a write changed: messages or chats touch all three (counts, people),
        topics only the topic list and the chats' topic counts."""
        if changes.messages or changes.chats:
            self.refresh()
        elif changes.topics:
            run_in_background(self, self._service.browse.chats, self._show_chats, self.failed.emit)
            self.refresh_topics()

    def refresh_topics(self) -> None:
        chat_id, text, browse = self.chat_filter.currentData(), self.text_filter.text(), self._service.browse
        self._topics_read.call(lambda: browse.topics(chat_id=chat_id, text=text, limit=TOPIC_LIMIT),
                               self._show_topics, self.failed.emit)

    def _schedule_topics(self, *_args) -> None:
        self._topics_timer.start()

    # -- showing --------------------------------------------------------------------------
    def _show_chats(self, chats: list) -> None:
        self.chats_loaded.emit([(chat.id, chat.name) for chat in chats])
        items = []
        for chat in chats:
            item = row([chat.name or self.tr("(unnamed)"), chat.messages, chat.topics, day(chat.last_at)])
            item.setData(0, ID_ROLE, chat.id)
            item.setToolTip(0, f"{chat.name} · {chat.kind} · {span(chat.first_at, chat.last_at)}")
            items.append(item)
        fill(self.chats, items, 3, Qt.SortOrder.DescendingOrder)
        self._fill_chat_filter(chats)
        self._counts.update(chats=len(chats), topics=sum(chat.topics for chat in chats))
        self._update_titles()

    def _fill_chat_filter(self, chats: list) -> None:
        selected = self.chat_filter.currentData()
        self.chat_filter.blockSignals(True)  # refilling is not the user choosing a chat
        self.chat_filter.clear()
        self.chat_filter.addItem(self.tr("All chats"), None)
        for chat in sorted(chats, key=lambda c: (c.name or "").casefold()):
            self.chat_filter.addItem(chat.name or self.tr("(unnamed)"), chat.id)
        index = self.chat_filter.findData(selected)
        self.chat_filter.setCurrentIndex(max(index, 0))
        self.chat_filter.blockSignals(False)

    def _show_topics(self, topics: list) -> None:
        items = []
        for topic in topics:
            item = row([day(topic.first_at), topic.summary.replace("\n", " "), topic.chat, topic.messages])
            item.setData(0, ID_ROLE, topic.id)
            item.setToolTip(1, topic.summary)
            items.append(item)
        fill(self.topics, items, 0, Qt.SortOrder.DescendingOrder)
        self.topics_note.setText(self.tr("Showing the newest {limit}; narrow the filter to see others.").format(
            limit=TOPIC_LIMIT) if len(topics) >= TOPIC_LIMIT else "")
        self.topics_note.setVisible(len(topics) >= TOPIC_LIMIT)
        filtered = self.chat_filter.currentData() is not None or bool(self.text_filter.text().strip())
        self._counts["shown"] = len(topics) if filtered else None
        self._update_titles()

    def _show_people(self, people: list) -> None:
        items = []
        for person in people:
            item = row([person.name or "—", person.handle or "", person.messages, person.chats])
            item.setData(0, ID_ROLE, person.id)
            items.append(item)
        fill(self.people, items, 2, Qt.SortOrder.DescendingOrder)
        self._counts["people"] = len(people)
        self._update_titles()

    def _update_titles(self) -> None:
        counts = self._counts
        self.tabs.setTabText(0, self.tr("Chats ({count})").format(count=f"{counts['chats']:,}"))
        if counts["shown"] is None:
            topics = self.tr("Topics ({count})").format(count=f"{counts['topics']:,}")
        else:
            topics = self.tr("Topics ({shown} of {count})").format(shown=f"{counts['shown']:,}",
                                                                   count=f"{counts['topics']:,}")
        self.tabs.setTabText(1, topics)
        self.tabs.setTabText(2, self.tr("People ({count})").format(count=f"{counts['people']:,}"))

    # -- activation -----------------------------------------------------------------------
    def show_chat_topics(self, chat_id: int) -> None:
        self.chat_filter.setCurrentIndex(max(self.chat_filter.findData(chat_id), 0))
        self.tabs.setCurrentIndex(1)
        self.refresh_topics()

    def _on_chat_activated(self, item: QTreeWidgetItem, _column: int) -> None:
        self.show_chat_topics(item.data(0, ID_ROLE))

    def _on_topic_activated(self, item: QTreeWidgetItem, _column: int) -> None:
        self.open_topic.emit(item.data(0, ID_ROLE))

    # -- forgetting a chat (issue 23) -------------------------------------------------------
    def chat_menu(self, item: QTreeWidgetItem) -> QMenu:
        """The chat's context menu: "Forget this chat…" (off while a forget runs)."""
        menu = QMenu(self)
        forget = menu.addAction(engine_words(msg("forget.menu")))
        chat_id = item.data(0, ID_ROLE)
        forget.triggered.connect(lambda: self.ask_to_forget(chat_id))
        forget.setEnabled(self.forgetting is None)
        return menu

    def _on_chat_menu(self, position) -> None:
        item = self.chats.itemAt(position)
        if item is not None:
            self.chat_menu(item).exec(self.chats.viewport().mapToGlobal(position))

    def ask_to_forget(self, chat_id: int) -> None:
        """Read what forgetting the chat removes (a worker), then ask in a dialog that names it."""
        store = self._service.store
        run_in_background(self, lambda: store.forget_preview(chat_id=chat_id),
                          lambda plan: self._confirm_forget(chat_id, plan), self._forget_failed)

    def _confirm_forget(self, chat_id: int, plan: ForgetReport) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Warning, engine_words(msg("forget.title")),
                          engine_words(plan.preview_message()), QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("forget_confirmation")
        forget = box.addButton(engine_words(msg("forget.confirm")), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)  # Enter never forgets
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda button: self._forget(chat_id) if button is forget else None)
        box.open()
        return box

    def _forget(self, chat_id: int) -> None:
        """Forget in a worker (the vacuum takes seconds on a big store); the window applies the Changes."""
        if self.forgetting is not None:
            return
        store = self._service.store
        task = BackgroundTask(lambda _progress, _cancel: store.forget(chat_id=chat_id), self)
        task.signals.succeeded.connect(self._forgotten)
        task.signals.failed.connect(self._forget_failed)
        task.signals.finished.connect(self._forget_ended)
        self.forgetting = task.start()

    def _forget_ended(self) -> None:
        self.forgetting = None

    def _forgotten(self, result: tuple[ForgetReport, Changes]) -> None:
        report, changes = result
        self.changed.emit(changes)
        show_message(self, engine_words(msg("forget.title")), engine_words(report.done_message()))

    def _forget_failed(self, error: Exception) -> None:
        show_error(self, engine_words(msg("forget.failed")), error)
