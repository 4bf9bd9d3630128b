"""One fact on a person's card: its text, what kind of fact it is, and what the person can do.

"Sources (n)" shows the messages that state it under the fact (one click; read in a worker by
the card), with a link that opens their conversation with them marked. Edit, pin, mark wrong
and delete are asked of the card (`requested`), which runs them through the facts service.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from engine.api import FactInfo, SourceMessage, msg
from ui.i18n import engine_words
from ui.search.flow_layout import FlowLayout
from ui.shell.formatting import day, minute

QUOTE_STYLE = "margin-left: 6px; padding-left: 8px; border-left: 3px solid #c8d3e0;"


def say(code: str, **params: object) -> str:
    return engine_words(msg(code, **params))


class FactRow(QFrame):
    requested = Signal(str, int)  # ("edit" | "pin" | "unpin" | "wrong" | "delete" | "sources", fact id)
    open_topic = Signal(int, list)  # (topic id, the fact's message ids to mark)
    grown = Signal()  # its sources were shown or hidden: the card's height changes

    def __init__(self, fact: FactInfo, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fact = fact
        self.setObjectName(f"fact_{fact.id}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.text = QLabel(html.escape(fact.text))
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setStyleSheet("font-weight: 600;" if fact.pinned else "")
        self.meta = QLabel(self._meta())
        self.meta.setStyleSheet("color: palette(dark); font-size: 9pt;")
        self.meta.setWordWrap(True)
        self.sources_button = self._button(
            say("facts.view.sources", count=len(fact.message_ids)) if fact.message_ids else
            say("facts.view.no_sources"), "sources")
        self.sources_button.setEnabled(bool(fact.message_ids))
        self.edit_button = self._button(say("facts.view.edit"), "edit")
        self.pin_button = self._button(say("facts.view.unpin" if fact.pinned else "facts.view.pin"),
                                       "unpin" if fact.pinned else "pin")
        self.wrong_button = self._button(say("facts.view.wrong"), "wrong")
        self.delete_button = self._button(say("facts.view.delete"), "delete")
        self.sources = QLabel()
        self.sources.setWordWrap(True)
        self.sources.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.sources.linkActivated.connect(self._on_link)
        self.sources.hide()
        self.buttons = (self.sources_button, self.edit_button, self.pin_button, self.wrong_button,
                        self.delete_button)
        self.button_flow = FlowLayout(spacing=2)
        for button in self.buttons:
            self.button_flow.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(3)
        layout.addWidget(self.text)
        layout.addWidget(self.meta)
        layout.addLayout(self.button_flow)
        layout.addWidget(self.sources)

    def _button(self, text: str, action: str) -> QPushButton:
        button = QPushButton(text)
        button.setFlat(True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setObjectName(f"fact_{action}")
        button.clicked.connect(lambda: self._on_clicked(action))
        return button

    def _meta(self) -> str:
        fact = self.fact
        parts = [fact.category] if fact.category and fact.category != "other" else []
        parts.append(say("facts.view.importance", value=fact.importance))
        if fact.valid_until is not None:
            parts.append(say("facts.view.until", date=day(fact.valid_until)))
        if fact.pinned:
            parts.append(say("facts.view.pinned"))
        if fact.origin == "person":
            parts.append(say("facts.view.yours"))
        return " · ".join(parts)

    def _on_clicked(self, action: str) -> None:
        if action == "sources" and self.sources.isVisible():
            self.sources.hide()
            self.sources_button.setText(say("facts.view.sources", count=len(self.fact.message_ids)))
            self.grown.emit()
            return
        self.requested.emit(action, self.fact.id)

    def show_sources(self, messages: list[SourceMessage]) -> None:
        """The fact's messages, quoted under it (escaped: a message shows as it was typed)."""
        if not messages:
            self.sources.setText(html.escape(say("facts.view.source_gone")))
        else:
            quotes = "".join(
                f"<div style='{QUOTE_STYLE}'><span style='color: gray;'>{html.escape(m.author)} · "
                f"{html.escape(minute(m.sent_at))} · {html.escape(m.chat)}</span><br>"
                f"{html.escape(m.text).replace(chr(10), '<br>')}</div>" for m in messages)
            topic = next((m.topic_id for m in messages if m.topic_id is not None), None)
            link = f"<p><a href='topic:{topic}'>{html.escape(say('facts.view.open_topic'))}</a></p>" \
                if topic is not None else ""
            self.sources.setText(quotes + link)
        self.sources.show()
        self.sources_button.setText(say("facts.view.hide_sources"))
        self.grown.emit()

    def _on_link(self, link: str) -> None:
        if link.startswith("topic:"):
            self.open_topic.emit(int(link.removeprefix("topic:")), list(self.fact.message_ids))
