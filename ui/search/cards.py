"""The reranker's selections as cards, in selection order: what was kept and why. A topic card
carries two toggle buttons, Relevant and Not relevant (mouse, or Tab and Space), that ask the
panel to label it (`label_requested`); the panel sets the stored label back (`set_labels`)."""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

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
    score_note: str | None = None  # chained Flash: "cross-encoder score 0.83" (the topics it left Flash)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class SelectionCard(QFrame):
    activated = Signal(str, int)
    label_requested = Signal(int, object)  # topic id, True / False / None (clear)

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
        self.relevant_button: QToolButton | None = None
        self.not_relevant_button: QToolButton | None = None
        if data.kind == "topic":
            self.relevant_button = self._toggle("✓", self.tr("Relevant to this query (label it)"), True)
            self.not_relevant_button = self._toggle("✗", self.tr("Not relevant to this query (label it)"), False)
            header.addWidget(self.relevant_button)
            header.addWidget(self.not_relevant_button)
        layout.addLayout(header)
        where = " · ".join(part for part in (data.date, data.chat, data.score_note) if part)
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

    def _toggle(self, glyph: str, tip: str, verdict: bool) -> QToolButton:
        button = QToolButton(autoRaise=True)
        button.setText(glyph)
        button.setCheckable(True)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # Tab reaches it, Space presses it
        button.clicked.connect(lambda checked: self.label_requested.emit(self.data.id, verdict if checked else None))
        return button

    def set_label(self, label: bool | None) -> None:
        if self.relevant_button is None or self.not_relevant_button is None:
            return
        self.relevant_button.setChecked(label is True)
        self.not_relevant_button.setChecked(label is False)
        colours: dict[bool | None, str] = {True: "#1f6f3f", False: "#b42318"}
        colour = colours.get(label, "#cfd6de")
        self.setStyleSheet(f"#selectionCard {{ border: 1px solid {colour}; border-radius: 6px;"
                           " background: palette(base); } #selectionCard:hover { border-color: #3b78c4; }")

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
    label_requested = Signal(int, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._labels: dict[int, bool] = {}
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

    def set_labels(self, labels: dict[int, bool]) -> None:
        """The user's labels for the shown query (topic id → relevant?), on the cards shown now and later."""
        self._labels = dict(labels)
        for card in self.cards:
            if card.data.kind == "topic":
                card.set_label(self._labels.get(card.data.id))

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
            card.label_requested.connect(self.label_requested)
            card.set_label(self._labels.get(data.id) if data.kind == "topic" else None)
            self.cards.append(card)
            self._layout.addWidget(card)
            card.show()
        self._empty.setText(empty_text)
        self._empty.setVisible(not items and bool(empty_text))
        self._layout.addWidget(self._empty)
        self._layout.addStretch(1)
