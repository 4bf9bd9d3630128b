"""The People view (issue 33): everyone in the history, the owner first, and one card at a time.

The list is read in a worker after every write that moves messages or topics; choosing a
person shows their card (`PersonCard`). Offline it shows what the store holds without a
model: people, their activity and their topics, and says on each card what a model would add.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QScrollArea, QSplitter, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from engine.api import Changes, Flashback, PersonSummary
from ui.people.card import PersonCard
from ui.people.fact_row import say
from ui.shell.formatting import day
from ui.tasks import LatestWins

PERSON_ROLE = Qt.ItemDataRole.UserRole + 1
SIDE_BY_SIDE_WIDTH = 560  # below it (the window's 300 px dock) the list stands above the card


class PeopleView(QWidget):
    open_topic = Signal(int, list)  # (topic id, message ids to mark)
    failed = Signal(object)
    changed = Signal(object)  # engine.api Changes of a write made here (a merge): the window's other views

    def __init__(self, service: Flashback, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._reads = LatestWins(self)
        self.people: list[PersonSummary] = []
        self.setObjectName("people_view")
        self.list = QTreeWidget()  # one column, no header: a list the window's Russian check reads like the rest
        self.list.setObjectName("people_list")
        self.list.setHeaderHidden(True)
        self.list.setRootIsDecorated(False)
        self.list.currentItemChanged.connect(self._on_current_changed)
        self.empty = QLabel(say("people.view.loading"))
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.card = PersonCard(service)
        self.card.open_topic.connect(self.open_topic)
        self.card.failed.connect(self.failed)
        self.card.merged.connect(self._on_merged)
        self._choose_next: int | None = None  # after a merge: the kept person, once the list is read again
        self.card_area = QScrollArea()
        self.card_area.setWidgetResizable(True)
        self.card_area.setWidget(self.card)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.empty)
        right_layout.addWidget(self.card_area)
        self.card_area.hide()
        self.splitter = QSplitter()
        self.splitter.addWidget(self.list)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([220, 640])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """Side by side when there is room; in a narrow dock the list goes above the card."""
        wide = event.size().width() >= SIDE_BY_SIDE_WIDTH
        wanted = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self.splitter.orientation() != wanted:
            self.splitter.setOrientation(wanted)
            self.splitter.setSizes([220, 640] if wide else [160, max(300, event.size().height() - 160)])
        super().resizeEvent(event)

    def refresh(self) -> None:
        """Read the people again (in a worker), keeping the chosen one chosen."""
        self._reads.call(self._service.people.everyone, self._show_people, self.failed.emit)

    def apply_changes(self, changes: Changes) -> None:
        """Messages, chats or topics moved: people, their activity and topics may have changed."""
        if changes.messages or changes.chats or changes.topics:
            self.refresh()

    def _on_merged(self, kept_id: int, changes: Changes) -> None:
        self._choose_next = kept_id
        self.refresh()
        self.changed.emit(changes)

    def _show_people(self, people: list[PersonSummary]) -> None:
        chosen = self.card.person.id if self.card.person is not None else None
        if self._choose_next is not None:
            chosen, self._choose_next = self._choose_next, None
        self.people = people
        self.list.blockSignals(True)
        self.list.clear()
        for person in people:
            item = QTreeWidgetItem([say("people.list.you", name=person.name) if person.is_self else person.name])
            item.setData(0, PERSON_ROLE, person.id)
            item.setToolTip(0, say("people.list.tooltip", messages=person.messages, last=day(person.last_at)))
            if person.is_self:
                font = item.font(0)
                font.setBold(True)
                item.setFont(0, font)
            self.list.addTopLevelItem(item)
        self.list.blockSignals(False)
        if not people:
            self.empty.setText(say("people.view.empty"))
            self.empty.show()
            self.card_area.hide()
            return
        ids = [p.id for p in people]
        first = self.list.topLevelItem(ids.index(chosen) if chosen in ids else 0)
        if first is not None:
            self.list.setCurrentItem(first)

    def choose(self, person_id: int) -> None:
        for row in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(row)
            if item is not None and item.data(0, PERSON_ROLE) == person_id:
                self.list.setCurrentItem(item)
                return

    def _on_current_changed(self, item: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        if item is None:
            return
        person = next((p for p in self.people if p.id == item.data(0, PERSON_ROLE)), None)
        if person is None:
            return
        self.empty.hide()
        self.card_area.show()
        self.card.show_person(person)
