"""A person's other names, circle and bio, edited in place on their card (issue 33, item 4).

Only what the person changed is saved (`saved` carries None for the rest), so opening the
editor and saving it untouched does not turn a bio made from facts into the person's own words.
The card saves through `engine.api` FactsService.set_person, in a worker.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.api import PersonSummary
from ui.people.fact_row import say

CIRCLES = ("family", "friends", "work", "other")


def split_aliases(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


class PersonEditor(QFrame):
    saved = Signal(object, object, object)  # (aliases list | None, circle | None, bio | None): only what changed
    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.person: PersonSummary | None = None
        self.setObjectName("person_editor")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.aliases = QLineEdit()
        self.aliases.setObjectName("edit_aliases")
        self.circle = QComboBox()
        self.circle.setObjectName("edit_circle")
        self.bio = QPlainTextEdit()
        self.bio.setObjectName("edit_bio")
        self.bio.setFixedHeight(64)
        self.bio_hint = QLabel(say("people.card.edit_bio_hint"))
        self.bio_hint.setWordWrap(True)
        self.bio_hint.setStyleSheet("color: palette(dark); font-size: 9pt;")
        self.save_button = QPushButton(say("people.card.save"))
        self.save_button.setObjectName("save_person")
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self._on_save)
        self.cancel_button = QPushButton(say("people.card.cancel"))
        self.cancel_button.clicked.connect(self.cancelled)
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)  # the window's dock is narrow
        form.addRow(say("people.card.edit_aliases"), self.aliases)
        form.addRow(say("people.card.edit_circle"), self.circle)
        form.addRow(say("people.card.edit_bio"), self.bio)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addLayout(form)
        layout.addWidget(self.bio_hint)
        layout.addLayout(buttons)
        self.hide()

    def edit(self, person: PersonSummary) -> None:
        """Fill the fields with what the card shows and open them."""
        self.person = person
        self.aliases.setText(", ".join(person.aliases))
        self.circle.clear()
        if person.circle is None:  # "not known" is a starting point, not a choice one saves
            self.circle.addItem(say("people.card.circle.unknown"), None)
        for circle in CIRCLES:
            self.circle.addItem(say(f"people.card.circle.{circle}"), circle)
        self.circle.setCurrentIndex(max(0, self.circle.findData(person.circle)) if person.circle else 0)
        self.bio.setPlainText(person.bio)
        self.show()
        self.aliases.setFocus()

    def _on_save(self) -> None:
        person = self.person
        if person is None:
            return
        aliases = split_aliases(self.aliases.text())
        circle = self.circle.currentData()
        bio = self.bio.toPlainText().strip()
        self.saved.emit(aliases if tuple(aliases) != person.aliases else None,
                        circle if circle != person.circle else None,
                        bio if bio != person.bio.strip() else None)
