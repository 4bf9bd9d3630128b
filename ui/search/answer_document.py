"""An Ask outcome written into a QTextDocument: the claims with their [n] links, the marked ones,
the caveat, and the numbered sources.

Built with a text cursor rather than HTML because Qt's HTML subset has no wavy underline:
a claim the verifier found unsupported gets a red wave (QTextCharFormat.WaveUnderline), a ⚠
before it, and a tooltip saying why (the char format's tooltip, which QTextBrowser shows on
hover). Every [n] is an anchor "cite:n"; the view opens the cited messages when one is clicked.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QFont, QTextBlockFormat, QTextCharFormat, QTextCursor, QTextDocument

from ui.search.ask_words import claim_tip
from ui.shell.formatting import minute

translate = QCoreApplication.translate
LINK = QColor("#1f5fae")
WARNING = QColor("#b42318")
MUTED = QColor("#6b7280")
UNCHECKED = QColor("#8a94a3")
_MARKER = re.compile(r"\[(\d+)\]")
FIRST_LINE_CHARS = 110


def cite_href(number: int) -> str:
    return f"cite:{number}"


def cited_number(href: str) -> int | None:
    """The source number of a "cite:n" link, else None."""
    if href.startswith("cite:") and href[5:].isdigit():
        return int(href[5:])
    return None


class _Writer:
    def __init__(self, document: QTextDocument) -> None:
        document.clear()
        self.cursor = QTextCursor(document)
        self.first = True

    def paragraph(self, top: float = 0.0) -> None:
        if not self.first:
            block = QTextBlockFormat()
            block.setTopMargin(top)
            self.cursor.insertBlock(block, QTextCharFormat())
        self.first = False

    def text(self, text: str, colour: QColor | None = None, *, bold: bool = False, italic: bool = False) -> None:
        fmt = QTextCharFormat()
        if colour is not None:
            fmt.setForeground(colour)
        if bold:
            fmt.setFontWeight(QFont.Weight.Bold)
        fmt.setFontItalic(italic)
        self.cursor.insertText(text, fmt)

    def link(self, number: int) -> None:
        fmt = QTextCharFormat()
        fmt.setAnchor(True)
        fmt.setAnchorHref(cite_href(number))
        fmt.setForeground(LINK)
        fmt.setFontWeight(QFont.Weight.DemiBold)
        fmt.setToolTip(translate("AskView", "Open source {0}: the cited messages, highlighted").format(number))
        self.cursor.insertText(f"[{number}]", fmt)
        self.cursor.setCharFormat(QTextCharFormat())

    def claim(self, claim) -> None:
        fmt = QTextCharFormat()
        if claim.supported is False:
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(WARNING)
            fmt.setToolTip(claim_tip(claim))
            marker = QTextCharFormat(fmt)
            marker.setForeground(WARNING)
            marker.setUnderlineStyle(QTextCharFormat.UnderlineStyle.NoUnderline)
            self.cursor.insertText("⚠ ", marker)
        elif claim.supported is None and claim.method != "none":
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
            fmt.setUnderlineColor(UNCHECKED)
            fmt.setToolTip(claim_tip(claim))
        self.cursor.insertText(claim.text.strip(), fmt)
        for number in claim.citations:
            self.cursor.insertText(" " if number == claim.citations[0] else "", QTextCharFormat())
            self.link(number)

    def quote(self, quote) -> None:
        """One quoted sentence: its [n], author and day, then the sentence with the words that
        answer in bold."""
        self.paragraph(4)
        self.link(quote.source)
        self.text(f" {quote.author} · {minute(quote.sent_at)}: ", MUTED)
        self.text("«")
        position = 0
        for start, end in quote.highlights:
            self.text(quote.text[position:start])
            self.text(quote.text[start:end], bold=True)
            position = end
        self.text(quote.text[position:] + "»")

    def text_with_links(self, text: str) -> None:
        """Plain answer text (while the outcome is not in yet): its [n] markers as links."""
        position = 0
        for match in _MARKER.finditer(text):
            self.text(text[position:match.start()])
            self.link(int(match.group(1)))
            position = match.end()
        self.text(text[position:])


def write_text(document: QTextDocument, text: str) -> None:
    """The answer's text as it arrived (`on_answer_text`), its markers already links."""
    writer = _Writer(document)
    writer.paragraph()
    writer.text_with_links(text)


def write_outcome(document: QTextDocument, outcome, missing_model: str | None, reason: str) -> None:
    """The whole outcome: the answer (or why there is none), the caveat, then the sources."""
    writer = _Writer(document)
    answer = outcome.answer
    if answer is not None and answer.claims:
        if answer.refusal:  # most claims unsupported: said first, before anything is believed
            writer.paragraph()
            writer.text(answer.refusal, WARNING, bold=True)
        writer.paragraph(6 if answer.refusal else 0)
        for index, claim in enumerate(answer.claims):
            if index:
                writer.text(" ")
            writer.claim(claim)
        if answer.caveat:
            writer.paragraph(8)
            writer.text(answer.caveat, MUTED, italic=True)
    elif answer is not None:  # "not found in your chats": a valid answer
        writer.paragraph()
        writer.text(answer.text.strip(), bold=True)
    for sentence in (missing_model, reason):
        if sentence:
            writer.paragraph(4 if answer is not None else 0)
            writer.text(sentence, WARNING if answer is None else MUTED)
    if outcome.quotes:
        writer.paragraph(8)
        writer.text(translate("AskView", "The sentences that answer, quoted from your chats:"), bold=True)
        for quote in outcome.quotes:
            writer.quote(quote)
    if not outcome.sources and answer is None:
        writer.paragraph(8)
        writer.text(translate("AskView", "Nothing in your chats matched the question."))
    if outcome.sources:
        writer.paragraph(12)
        writer.text(translate("AskView", "Sources"), bold=True)
        for source in outcome.sources:
            writer.paragraph(2)
            writer.link(source.number)
            first = next((" ".join(line.split()) for line in source.messages if line.strip()), "")
            if len(first) > FIRST_LINE_CHARS:
                first = first[:FIRST_LINE_CHARS - 1].rstrip() + "…"
            authors = ", ".join(source.authors[:3])
            writer.text(f" {source.chat} · {authors} · {minute(source.first_at)}", MUTED)
            writer.text(f" — {first}")
