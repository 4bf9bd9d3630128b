""""Same person?" on a card (issue 33, item 2): another row with the same name or alias, from
another chat or format, and the person's answer, Merge or Not the same.

Nothing is merged on a guess: the box only asks (`merge_requested`, `refuse_requested`); the
card runs the answer through `engine.api` PeopleService in a worker.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from engine.api import SamePerson
from ui.people.fact_row import say


class SamePersonBox(QFrame):
    merge_requested = Signal(int, int)  # (kept id, merged id)
    refuse_requested = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pair: SamePerson | None = None
        self.setObjectName("same_person")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#same_person { background: #fff7e0; border: 1px solid #e6c56b; border-radius: 4px; }")
        self.title = QLabel(say("people.same.title"))
        self.title.setStyleSheet("font-weight: 600;")
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.merge_button = QPushButton(say("people.same.merge"))
        self.merge_button.setObjectName("merge_person")
        self.merge_button.clicked.connect(self._on_merge)
        self.refuse_button = QPushButton(say("people.same.not_same"))
        self.refuse_button.setObjectName("not_same_person")
        self.refuse_button.clicked.connect(self._on_refuse)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.merge_button)
        buttons.addWidget(self.refuse_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.text)
        layout.addLayout(buttons)
        self.hide()

    def show_pair(self, pair: SamePerson | None, shown_id: int, shown_name: str) -> None:
        """Ask about `pair` from the card of `shown_id`: the text names the other row."""
        self.pair = pair
        if pair is None:
            self.hide()
            return
        other = pair.other if pair.kept.id == shown_id else pair.kept
        if other.chats:
            text = say("people.same.text", other=other.name, source=other.source or "?", chats=", ".join(other.chats),
                       messages=other.messages, facts=other.facts, kept=shown_name)
        else:
            text = say("people.same.text_heard", other=other.name, facts=other.facts, kept=shown_name)
        self.text.setText(text)
        self.merge_button.setToolTip(html.escape(say("people.same.merge_tooltip", kept=pair.kept.name)))
        self.merge_button.setEnabled(True)
        self.refuse_button.setEnabled(True)
        self.show()

    def _on_merge(self) -> None:
        if self.pair is not None:
            self._busy()
            self.merge_requested.emit(self.pair.kept.id, self.pair.other.id)

    def _on_refuse(self) -> None:
        if self.pair is not None:
            self._busy()
            self.refuse_requested.emit(self.pair.kept.id, self.pair.other.id)

    def _busy(self) -> None:  # one answer per question: a second click would ask the engine twice
        self.merge_button.setEnabled(False)
        self.refuse_button.setEnabled(False)
