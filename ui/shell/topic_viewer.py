"""A topic in full: its summary on top, then every message (author, time, text, reactions).

Non-modal, one window per topic: reading a conversation next to the search results (or
next to another topic) is the point. The text is escaped before it becomes HTML, so a
message that contains markup shows as the person typed it. Messages an Ask answer cites
(issue 27) are highlighted and scrolled to (`highlight`).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout, QWidget

from engine.api import Flashback
from ui.shell.errors import plain_message
from ui.shell.formatting import minute, span
from ui.tasks import run_in_background

_BURST_SECONDS = 5 * 60
HIGHLIGHT = "#fff1b8"  # the cited messages' background: a marker pen, readable in light and dark text


class TopicViewer(QDialog):
    def __init__(self, service: Flashback, topic_id: int, parent: QWidget | None = None, *,
                 highlight: list[int] | tuple[int, ...] = ()) -> None:
        super().__init__(parent)
        self.topic_id = topic_id
        self.loaded = False
        self.highlighted: list[int] = list(highlight)  # message ids shown marked
        self._messages: list = []
        self.setWindowTitle(self.tr("Topic {id}").format(id=topic_id))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.resize(760, 640)
        self.summary = QLabel(self.tr("Loading…"))
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setStyleSheet("font-size: 12pt; font-weight: 600;")
        self.facts = QLabel()
        self.facts.setStyleSheet("color: palette(dark);")
        self.cited = QLabel()
        self.cited.setVisible(False)
        self.cited.setStyleSheet(f"background: {HIGHLIGHT}; color: #3d3000; padding: 2px 6px; border-radius: 4px;")
        self.conversation = QTextBrowser()
        self.conversation.setOpenExternalLinks(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.facts)
        layout.addWidget(self.cited)
        layout.addWidget(self.conversation, stretch=1)
        layout.addWidget(buttons)
        run_in_background(self, lambda: service.browse.topic_detail(topic_id), self._show, self._show_error)

    def _show(self, detail) -> None:
        info = detail.info
        self.setWindowTitle(self.tr("Topic {id} · {chat}").format(id=info.id, chat=info.chat))
        self.summary.setText(info.summary)
        self.facts.setText(self.tr("{chat} · {when} · messages: {messages} · characters: {chars}").format(
            chat=info.chat, when=span(info.first_at, info.last_at), messages=f"{info.messages:,}",
            chars=f"{info.chars:,}"))
        self._messages = list(detail.messages)
        self.loaded = True
        self.highlight(self.highlighted)

    def highlight(self, message_ids: list[int] | tuple[int, ...]) -> None:
        """Mark these messages and scroll to the first (an answer's [n] clicked); () marks none."""
        self.highlighted = list(message_ids)
        if not self.loaded:
            return  # shown when the topic arrives
        marked = set(self.highlighted) & {m.id for m in self._messages}
        self.conversation.setHtml(conversation_html(self._messages, marked))
        self.cited.setText(self.tr("Highlighted: the messages the answer cites ({0}).").format(len(marked)))
        self.cited.setVisible(bool(marked))
        first = next((m.id for m in self._messages if m.id in marked), None)
        if first is not None:
            self.conversation.scrollToAnchor(f"m{first}")

    def _show_error(self, error: Exception) -> None:
        self.summary.setText(plain_message(error))


def conversation_html(messages: list, highlighted: set[int] | frozenset[int] = frozenset()) -> str:
    """One block per message; a burst of messages by one author (minutes apart) shares a
    header, as chat apps show them, so a long monologue reads as one. Messages in
    `highlighted` get a marker background and an anchor ("m<id>") to scroll to."""
    parts, previous, previous_at = [], None, 0.0
    for message in messages:
        sent_at = float(message.sent_at or 0.0)
        if message.author != previous or sent_at - previous_at > _BURST_SECONDS:
            parts.append(
                f'<p style="margin-top:10px; margin-bottom:2px"><b>{html.escape(message.author or "—")}</b>'
                f' <span style="color:#808080">{minute(message.sent_at)}</span></p>')
            previous = message.author
        previous_at = sent_at
        text = html.escape(message.text or "").replace("\n", "<br>")
        if message.id in highlighted:
            parts.append(f'<p style="margin-top:0; margin-bottom:4px; margin-left:12px; background-color:{HIGHLIGHT}">'
                         f'<a name="m{message.id}"></a>{text}</p>')
        else:
            parts.append(f'<p style="margin-top:0; margin-bottom:4px; margin-left:12px">{text}</p>')
        reactions = getattr(message, "reactions", "")
        if reactions:  # kept beside the text (issue 34), shown under it as chat apps do
            parts.append(f'<p style="margin-top:0; margin-bottom:4px; margin-left:12px; color:#808080">'
                         f'{html.escape(reactions)}</p>')
    return "".join(parts)
