"""One person's card (issue 33): who they are, their activity, what is known of them, their topics.

Name, aliases, circle and bio (edited in place: `PersonEditor`); "Same person?" when another
row has their name (`SamePersonBox`: Merge or Not the same); first and last message with a messages-per-month chart; the
facts, each with its sources one click away and the person's edit, pin, mark wrong and
delete; the topics they wrote in (double-click reads one). Everything is read in a worker
(latest wins: choosing another person drops the older read) and every change runs in one
too; the card is then read again, so what it shows is what the store holds.

With no facts (no model, or none read yet) the card still shows the activity and the topics,
and says what a chat model would add; it never invents anything.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.api import EngineError, FactInfo, Flashback, PersonActivity, PersonSummary, SamePerson
from ui.i18n import engine_words
from ui.people.chart import MonthChart
from ui.people.fact_row import FactRow, say
from ui.people.person_editor import PersonEditor
from ui.people.same_person import SamePersonBox
from ui.shell.formatting import day
from ui.tasks import LatestWins, run_in_background

TOPIC_ROLE = Qt.ItemDataRole.UserRole + 1
SECTION_STYLE = "font-weight: 600; margin-top: 8px;"


@dataclass(frozen=True)
class CardData:
    activity: PersonActivity
    facts: list[FactInfo]
    same: tuple[SamePerson, ...] = ()  # rows that may be this person too (never the owner's card)


def read_card(service: Flashback, person_id: int) -> CardData | None:
    """Everything a card shows, in one worker call: the activity, then the facts (the owner's
    facts are those about "you", person None)."""
    activity = service.people.activity(person_id)
    if activity is None:
        return None
    if activity.person.is_self:
        return CardData(activity, service.facts.of(None))
    return CardData(activity, service.facts.of(person_id), tuple(service.people.same_person(person_id)))


class PersonCard(QWidget):
    open_topic = Signal(int, list)  # (topic id, message ids to mark: [] for none)
    failed = Signal(object)  # a read's exception, for the window's error helper
    merged = Signal(int, object)  # (the kept person's id, engine.api Changes): the list lost a row

    def __init__(self, service: Flashback, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._reads = LatestWins(self)
        self.person: PersonSummary | None = None
        self.data: CardData | None = None
        self.rows: dict[int, FactRow] = {}
        self.setObjectName("person_card")

        self.name = QLabel()
        self.name.setObjectName("person_name")
        self.name.setStyleSheet("font-size: 15pt; font-weight: 600;")
        self.name.setWordWrap(True)
        self.name.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.edit_button = QPushButton(say("people.card.edit"))
        self.edit_button.setObjectName("edit_person")
        self.edit_button.setToolTip(say("people.card.edit_tooltip"))
        self.edit_button.clicked.connect(self._on_edit_clicked)
        self.editor = PersonEditor()
        self.editor.saved.connect(self.save_person)
        self.editor.cancelled.connect(self._close_editor)
        self.same = SamePersonBox()
        self.same.merge_requested.connect(self.merge)
        self.same.refuse_requested.connect(self.refuse)
        self.who = QLabel()  # circle · aliases
        self.who.setStyleSheet("color: palette(dark);")
        self.who.setWordWrap(True)
        self.bio = QLabel()
        self.bio.setWordWrap(True)
        self.activity = QLabel()
        self.activity.setObjectName("person_activity")
        self.activity.setWordWrap(True)
        self.chats = QLabel()
        self.chats.setWordWrap(True)
        self.chart_title = self._section(say("people.card.per_month"))
        self.chart = MonthChart()
        self.facts_title = self._section(say("people.card.facts"))
        self.no_facts = QLabel()
        self.no_facts.setObjectName("no_facts")
        self.no_facts.setWordWrap(True)
        self.no_facts.setStyleSheet("color: palette(dark); padding: 6px; border: 1px dashed palette(mid);"
                                    "border-radius: 4px;")
        self.facts_box = QVBoxLayout()
        self.facts_box.setSpacing(4)
        self.status = QLabel()
        self.status.setObjectName("fact_status")
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #2f6f3e;")
        self.status.hide()
        self.topics_title = self._section("")
        self.topics = QTreeWidget()  # date, chat, summary: each cell one piece of the store's own text
        self.topics.setObjectName("person_topics")
        self.topics.setColumnCount(3)
        self.topics.setHeaderHidden(True)
        self.topics.setRootIsDecorated(False)
        self.topics.setUniformRowHeights(True)
        self.topics.setMinimumHeight(220)
        self.topics.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.topics.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.topics.itemDoubleClicked.connect(
            lambda item, _column: self.open_topic.emit(int(item.data(0, TOPIC_ROLE)), []))
        self.topics_note = QLabel()
        self.topics_note.setStyleSheet("color: palette(dark); font-size: 9pt;")
        self.topics_note.setWordWrap(True)  # every label wraps: the card must fit the window's narrow dock

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(4)
        header = QHBoxLayout()
        header.addWidget(self.name, stretch=1)
        header.addWidget(self.edit_button, alignment=Qt.AlignmentFlag.AlignTop)
        layout.addLayout(header)
        above: tuple[QWidget, ...] = (self.same, self.who, self.bio, self.editor, self.activity, self.chats,
                                      self.chart_title, self.chart, self.facts_title, self.no_facts)
        for widget in above:
            layout.addWidget(widget)
        layout.addLayout(self.facts_box)
        below: tuple[QWidget, ...] = (self.status, self.topics_title, self.topics, self.topics_note)
        for widget in below:
            layout.addWidget(widget)
        layout.addStretch(1)
        self._set_visible(False)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_height()

    def _fit_height(self) -> None:
        """As tall as the card's wrapped text needs at its width: the scroll area sizes its widget
        by a height-for-width only when the viewport resizes, not when the card's content
        changes, and it then cut off a fact's lines in the window's narrow dock."""
        layout = self.layout()
        needed = layout.totalHeightForWidth(self.width()) if layout is not None else -1
        if needed > 0 and needed != self.minimumHeight():
            self.setMinimumHeight(needed)

    @staticmethod
    def _section(text: str) -> QLabel:
        label = QLabel(text)
        label.setWordWrap(True)
        label.setStyleSheet(SECTION_STYLE)
        return label

    def _set_visible(self, shown: bool) -> None:
        if not shown:
            self.same.hide()
            self.editor.hide()
            self.edit_button.hide()
        for widget in (self.who, self.bio, self.activity, self.chats, self.chart_title, self.chart,
                       self.facts_title, self.no_facts, self.topics_title, self.topics, self.topics_note):
            widget.setVisible(shown)

    # -- reading ----------------------------------------------------------------------------
    def show_person(self, person: PersonSummary) -> None:
        """Read and show `person`'s card (in a worker; a newer choice wins)."""
        if self.person is None or self.person.id != person.id:
            self.status.hide()
            self.editor.hide()
        self.person = person
        self.name.setText(html.escape(person.name))
        self._reads.call(lambda: read_card(self._service, person.id), self._show, self.failed.emit)

    def reload(self) -> None:
        if self.person is not None:
            self.show_person(self.person)

    def _show(self, data: CardData | None) -> None:
        self.data = data
        if data is None:
            self._set_visible(False)
            return
        person = data.activity.person
        self.person = person
        self._set_visible(True)
        self.name.setText(html.escape(say("people.list.you", name=person.name) if person.is_self else person.name))
        who = []
        if person.circle:
            who.append(say(f"people.card.circle.{person.circle}"))
        if person.aliases:
            who.append(say("people.card.aliases", names=", ".join(person.aliases)))
        self.who.setText(" · ".join(who))
        self.bio.setText(person.bio)
        editing = not self.editor.isHidden()
        self.who.setVisible(bool(who) and not editing)
        self.bio.setVisible(bool(person.bio) and not editing)
        self.edit_button.setVisible(not person.is_self and not editing)  # "you" are named by your imports
        self.same.show_pair(data.same[0] if data.same else None, person.id, person.name)
        self.activity.setText(say("people.card.activity", messages=person.messages, first=day(person.first_at),
                                  last=day(person.last_at)))
        self.chats.setText(say("people.card.chats", chats=", ".join(data.activity.chats)))
        self.chart.set_months(data.activity.per_month)
        self._show_facts(data.facts, person)
        self._show_topics(data.activity)
        self._fit_height()

    def _show_facts(self, facts: list[FactInfo], person: PersonSummary) -> None:
        for row in self.rows.values():
            self.facts_box.removeWidget(row)
            row.deleteLater()
        self.rows = {}
        for fact in facts:
            row = FactRow(fact)
            row.requested.connect(self._on_requested)
            row.open_topic.connect(self.open_topic)
            row.grown.connect(self._fit_height, Qt.ConnectionType.QueuedConnection)  # after the row's own layout
            self.facts_box.addWidget(row)
            self.rows[fact.id] = row
        self.no_facts.setText(say("people.card.no_facts_owner") if person.is_self else
                              say("people.card.no_facts", name=person.name))
        self.no_facts.setVisible(not facts)

    def _show_topics(self, activity: PersonActivity) -> None:
        self.topics.clear()
        self.topics_title.setText(say("people.card.topics", count=activity.topic_count))
        for topic in activity.topics:
            item = QTreeWidgetItem([day(topic.first_at), topic.chat, " ".join(topic.summary.split())])
            item.setData(0, TOPIC_ROLE, topic.id)
            item.setToolTip(2, topic.summary)
            self.topics.addTopLevelItem(item)
        for column in (0, 1):
            self.topics.resizeColumnToContents(column)
        self.topics.setVisible(bool(activity.topics))
        if not activity.topic_count:
            self.topics_note.setText(say("people.card.no_topics"))
        elif activity.topic_count > len(activity.topics):
            self.topics_note.setText(say("people.card.topics_more", shown=len(activity.topics),
                                         count=activity.topic_count))
        else:
            self.topics_note.setText(say("people.card.topics_hint"))

    # -- who the person is: edited in place, merged on confirmation ----------------------------------
    def _on_edit_clicked(self) -> None:
        if self.data is None:
            return
        self.editor.edit(self.data.activity.person)
        for widget in (self.who, self.bio, self.edit_button):
            widget.hide()
        self._fit_height()

    def _close_editor(self) -> None:
        self.editor.hide()
        if self.data is not None:
            self._show(self.data)

    def save_person(self, aliases: list[str] | None, circle: str | None, bio: str | None) -> None:
        """Save what the person changed (None: unchanged) in a worker, then read the card again."""
        if self.person is None:
            return
        person_id, facts = self.person.id, self._service.facts
        if aliases is None and circle is None and bio is None:
            self._close_editor()
            return

        def saved(_result: object) -> None:
            self.editor.hide()
            self._say(say("people.card.saved"))
            self.reload()

        run_in_background(self, lambda: facts.set_person(person_id, aliases=aliases, circle=circle, bio=bio),
                          saved, lambda error: self._say(say("people.card.save_failed", error=self._words(error)),
                                                         failed=True))

    def merge(self, kept_id: int, merged_id: int) -> None:
        """The person confirmed: one person from now on (in a worker); the view re-reads the list."""
        people = self._service.people
        pair = self.same.pair
        names = (pair.kept.name, pair.other.name) if pair is not None else ("", "")

        def merged(result: tuple[object, object]) -> None:
            self._say(say("people.same.merged", kept=names[0], other=names[1]))
            self.merged.emit(kept_id, result[1])

        run_in_background(self, lambda: people.merge(kept_id, merged_id), merged,
                          lambda error: self._say(say("people.same.failed", error=self._words(error)), failed=True))

    def refuse(self, first_id: int, second_id: int) -> None:
        """Not the same: remembered, so the pair is never offered again."""
        people = self._service.people

        def refused(_result: object) -> None:
            self._say(say("people.same.refused"))
            self.reload()

        run_in_background(self, lambda: people.not_same(first_id, second_id), refused,
                          lambda error: self._say(say("people.same.failed", error=self._words(error)), failed=True))

    def _say(self, text: str, failed: bool = False) -> None:
        self.status.setStyleSheet("color: #a33;" if failed else "color: #2f6f3e;")
        self.status.setText(text)
        self.status.show()
        if failed:
            self.same.show_pair(self.same.pair, self.person.id if self.person else 0,
                                self.person.name if self.person else "")

    @staticmethod
    def _words(error: Exception) -> str:
        return engine_words(error) if isinstance(error, EngineError) else str(error)

    # -- the person's changes ------------------------------------------------------------------
    def _on_requested(self, action: str, fact_id: int) -> None:
        if action == "sources":
            row = self.rows.get(fact_id)
            if row is not None:
                ids = list(row.fact.message_ids)
                run_in_background(self, lambda: self._service.people.messages(ids), row.show_sources,
                                  self.failed.emit)
            return
        if action == "edit":
            self._ask_edit(fact_id)
            return
        self.change(action, fact_id)

    def _ask_edit(self, fact_id: int) -> QInputDialog:
        """The fact's text in a dialog that does not block the loop (`open`, not `exec`)."""
        row = self.rows[fact_id]
        dialog = QInputDialog(self)
        dialog.setObjectName("edit_fact")
        dialog.setWindowTitle(say("facts.view.edit_title"))
        dialog.setLabelText(say("facts.view.edit_label"))
        dialog.setTextValue(row.fact.text)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.textValueSelected.connect(lambda text: self.change("edit", fact_id, text))
        dialog.open()
        self.edit_dialog = dialog
        return dialog

    def change(self, action: str, fact_id: int, text: str = "") -> None:
        """Run one of the person's changes in a worker, then read the card again."""
        facts = self._service.facts
        work: dict[str, Any] = {
            "edit": lambda: facts.edit(fact_id, text),
            "pin": lambda: facts.pin(fact_id, True),
            "unpin": lambda: facts.pin(fact_id, False),
            "wrong": lambda: facts.mark_wrong(fact_id),
            "delete": lambda: facts.delete(fact_id),
        }
        if action not in work or (action == "edit" and not text.strip()):
            return
        run_in_background(self, work[action], lambda _fact: self._changed(action), self._change_failed)

    def _changed(self, action: str) -> None:
        self.status.setStyleSheet("color: #2f6f3e;")
        self.status.setText(say(f"facts.view.done.{action}"))
        self.status.show()
        self.reload()

    def _change_failed(self, error: Exception) -> None:
        self.status.setStyleSheet("color: #a33;")
        said = engine_words(error) if isinstance(error, EngineError) else str(error)
        self.status.setText(say("facts.view.failed", error=said))
        self.status.show()
