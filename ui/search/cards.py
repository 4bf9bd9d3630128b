"""The reranker's selections as cards, in selection order: what was kept and why."""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from ui.search.glyphs import kind_icon

SUMMARY_CHARS = 260
EXCERPT_CHARS = 420


@dataclass(frozen=True)
class CardData:
    kind: str
    id: int
    summary: str
    reason: str
    excerpt: str | None = None
    date: str | None = None
    chat: str | None = None


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class SelectionCard(QFrame):
    activated = Signal(str, int)

    def __init__(self, position: int, data: CardData, kind_label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data = data
        self.setObjectName("selectionCard")
        self.setStyleSheet("#selectionCard { border: 1px solid #cfd6de; border-radius: 6px;"
                           " background: palette(base); } #selectionCard:hover { border-color: #3b78c4; }")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        header = QHBoxLayout()
        icon = QLabel()
        icon.setPixmap(kind_icon(data.kind).pixmap(16, 16))
        header.addWidget(icon)
        title = QLabel(f"<b>{position}. {html.escape(kind_label)} {data.id}</b>")
        header.addWidget(title)
        header.addStretch(1)
        layout.addLayout(header)
        where = " · ".join(part for part in (data.date, data.chat) if part)
        if where:
            meta = self._label(f"<small>{html.escape(where)}</small>")
            meta.setStyleSheet("color: palette(placeholder-text);")
            layout.addWidget(meta)
        self.summary = self._label(html.escape(_clip(data.summary, SUMMARY_CHARS)))
        self.summary.setToolTip(data.summary)
        layout.addWidget(self.summary)
        self.reason = self._label(f"<i>{html.escape(data.reason)}</i>")
        self.reason.setStyleSheet("color: #1f6f3f;")
        layout.addWidget(self.reason)
        self.excerpt = None
        if data.excerpt:
            self.excerpt = self._label(html.escape(_clip(data.excerpt, EXCERPT_CHARS)))
            self.excerpt.setStyleSheet("color: #555; border-left: 3px solid #cfd6de; padding-left: 6px;")
            self.excerpt.setToolTip(data.excerpt[:4000])
            layout.addWidget(self.excerpt)

    @staticmethod
    def _label(text: str) -> QLabel:
        label = QLabel(text)
        label.setWordWrap(True)
        # A long URL cannot wrap; let it clip rather than widen the card past the column.
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        label.setMinimumWidth(40)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 (Qt's naming)
        self.activated.emit(self.data.kind, self.data.id)
        super().mouseDoubleClickEvent(event)


class SelectionCards(QScrollArea):
    """A vertical list of cards; `activated(kind, id)` on a double-click."""

    activated = Signal(str, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._kind_labels = {"topic": self.tr("Topic"), "person": self.tr("Person"), "artifact": self.tr("Attachment")}
        self._body = QWidget()
        self._layout = QVBoxLayout(self._body)
        self._layout.setContentsMargins(2, 2, 6, 2)
        self._layout.setSpacing(8)
        self.setWidget(self._body)
        self.cards: list[SelectionCard] = []
        self._empty = QLabel()
        self._empty.setWordWrap(True)
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setStyleSheet("color: palette(placeholder-text); padding: 24px;")
        self.show_cards([], self.tr("Selections appear here after a search."))

    def show_cards(self, items: list[CardData], empty_text: str = "") -> None:
        for card in self.cards:
            card.hide()  # gone from the screen now, not at the next event-loop turn
            card.deleteLater()
        self.cards = []
        while self._layout.count():
            self._layout.takeAt(0)
        for position, data in enumerate(items, 1):
            card = SelectionCard(position, data, self._kind_labels.get(data.kind, data.kind))
            card.activated.connect(self.activated)
            self.cards.append(card)
            self._layout.addWidget(card)
            card.show()
        self._empty.setText(empty_text)
        self._empty.setVisible(not items and bool(empty_text))
        self._layout.addWidget(self._empty)
        self._layout.addStretch(1)
