"""imessage-exporter's HTML (`-f html`): the same conversations as its TXT, as markup.

Read as a stream of tags (a small scanner, fed a chunk at a time; `html.parser` read a
tenth as fast), never as a tree: the exporter's markup is not well-formed (an
`<audio … </audio>` left open, a reactions `</div>` without its opening), so only the
classes it writes are followed:

    <div class="message"> <div class="sent iMessage">|<div class="received">
      <span class="timestamp">…</span> <span class="sender">…</span>
      <span class="bubble">text</span> | <div class="attachment"><img src=…> | <div class="sticker">
      <div class="reactions"><div class="reaction"><span class="reaction"><b>Loved</b> by X</span>
      <div class="replies"> … the replies again, skipped (each is also in place) … </div>
    <div class ="announcement"><p><span class="timestamp">…</span> X named the conversation <b>Y</b></p>

Each message becomes what `engine.importers.imessage` makes of its TXT block, so the TXT and
the HTML of one export are the same messages.
"""

from __future__ import annotations

import codecs
import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from engine.importers.inputs import ExportInput
from engine.importers.records import KEEP_CHARS, AttachmentRecord
from engine.importers.text_lines import file_attachment

_CHUNK = 1 << 20
# A tag (group 1: "/" for an end tag, 2: its name, 3: its attributes), a comment or doctype, or text (4).
# Possessive: a "<" that never closes costs one pass, not one per character.
_TOKEN = re.compile(r"<(/?)([A-Za-z][\w-]*+)([^>]*+)>|<!--.*?-->|<![^>]*+>|([^<]++)", re.DOTALL)
_ATTRIBUTES_READ = 8192  # of a tag's attributes: a class and a path fit; a hostile megabyte is not scanned
# A name only where a name can start, so a long run of letters is passed once, not once per letter.
_ATTRIBUTE = re.compile(r"""(?<![\w-])([\w-]++)\s*+=\s*+(?:"([^"]*+)"|'([^']*+)'|([^\s>"']++))""")
_SEEN_ATTRIBUTES: dict[str, list[tuple[str, str]]] = {}
_SEEN_ATTRIBUTES_MAX = 1024
_SEEN_ATTRIBUTES_CHARS = 64
# Spans whose text is kept (the others: deleted notes, effects, reply anchors, are dropped).
_KEPT_SPANS = {"timestamp", "sender", "bubble", "shareplay", "attachment_error", "subject"}


@dataclass
class HtmlBlock:
    """One message or group event as the markup gives it, before `imessage` reads it."""

    offset: int  # bytes read when it ended, for progress and error places
    stamp: str = ""
    sender: str = ""
    event: str = ""  # the text of an announcement (a rename, a group photo, an unsent message)
    lines: list[str] = field(default_factory=list)
    attachments: list[AttachmentRecord] = field(default_factory=list)
    reactions: list[str] = field(default_factory=list)  # "Loved by X"; "from X" for a sticker
    shareplay: bool = False


def _attributes(written: str) -> list[tuple[str, str]]:
    """A start tag's (name, value) pairs, names lower-cased, values unescaped. The exporter
    writes the same few (` class="message"`) hundreds of thousands of times: each is read once."""
    found = _SEEN_ATTRIBUTES.get(written)
    if found is None:
        found = _read_attributes(written)
        if len(written) <= _SEEN_ATTRIBUTES_CHARS:  # a path or a hostile megabyte is read, not kept
            if len(_SEEN_ATTRIBUTES) >= _SEEN_ATTRIBUTES_MAX:
                _SEEN_ATTRIBUTES.clear()
            _SEEN_ATTRIBUTES[written] = found
    return found


def _read_attributes(written: str) -> list[tuple[str, str]]:
    found = []
    for match in _ATTRIBUTE.finditer(written, 0, _ATTRIBUTES_READ):
        value = match[2] if match[2] is not None else match[3] if match[3] is not None else match[4]
        found.append((match[1].lower(), html.unescape(value) if "&" in value else value))
    return found


class _Reader:
    def __init__(self) -> None:
        self.pending = ""  # the text after the last "<", kept for the next chunk (a tag may be cut there)
        self.divs: list[str] = []  # the classes of the open divs
        self.block: HtmlBlock | None = None
        self.done: list[HtmlBlock] = []
        self.span: str | None = None  # the kept span being read
        self.span_depth = 0
        self.text: list[str] = []
        self.text_chars = 0  # past KEEP_CHARS nothing more is kept: a pasted 2 GiB bubble costs no memory
        self.reaction: list[str] = []  # the text of the reaction div being read
        self.offset = 0

    def feed(self, text: str, final: bool = False) -> None:
        text = self.pending + text
        cut = len(text) if final else text.rfind("<")
        if cut < 0:  # no tag start: text only (a long bubble), read now rather than held
            cut = len(text)
        elif cut == 0:  # one tag start, in front: read to its end, or all of it when it never ends
            close = text.find(">")
            cut = close + 1 if close >= 0 else len(text) if len(text) > 4 * _CHUNK else 0
        self.pending = text[cut:]
        # findall: one tuple per token ("" for a group that did not take part), no match objects;
        # the tokens are most of an import's time (issue 34).
        span_data, start, end = self.handle_data, self.handle_starttag, self.handle_endtag
        for slash, name, attributes, data in _TOKEN.findall(text, 0, cut):
            if data:
                # Whitespace between tags means something only inside a kept span (most tokens are "\n").
                if self.span is not None or not data.isspace():
                    span_data(html.unescape(data) if "&" in data else data)
            elif not name:
                continue  # a comment or a doctype
            elif slash:
                end(name.lower())
            else:
                start(name.lower(), _attributes(attributes) if attributes else [])

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str]]) -> None:
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if "replies" in self.divs:
            if tag == "div":
                self.divs.append(classes[0] if classes else "")
            return
        if tag == "div":
            kind = classes[0] if classes else ""
            if kind in ("message", "announcement") and "message" not in self.divs:
                self._finish()
                self.block = HtmlBlock(self.offset)
            elif kind == "reaction":
                self.reaction = []
            self.divs.append(kind)
        elif tag == "span":
            if self.span is not None:
                self.span_depth += 1
            elif classes and classes[0] in _KEPT_SPANS and self.block is not None:
                self.span, self.span_depth, self.text, self.text_chars = classes[0], 0, [], 0
        elif tag == "br" and self.span is not None:
            self.text.append("\n")
        elif tag in ("img", "source", "audio", "a") and self.block is not None:
            self._file(values.get("src") or values.get("href"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self.span is not None and "replies" not in self.divs:
            if self.span_depth:
                self.span_depth -= 1
            else:
                self._span_done("".join(self.text).strip())
                self.span = None
        elif tag == "div" and self.divs:
            kind = self.divs.pop()
            if kind in ("message", "announcement") and "message" not in self.divs:
                self._finish()
            elif kind == "reaction" and self.block is not None and "replies" not in self.divs:
                text = " ".join("".join(self.reaction).split())
                if text:  # "Loved by X"; a sticker put on the message: "from X"
                    self.block.reactions.append(text)

    def handle_data(self, data: str) -> None:
        if "replies" in self.divs or self.block is None:
            return
        if self.span is not None:
            if self.text_chars <= KEEP_CHARS:
                self.text.append(data)
                self.text_chars += len(data)
        elif "reaction" in self.divs:
            self.reaction.append(data)
        elif "announcement" in self.divs:
            self.block.event += data
        elif "app" in self.divs and data.strip():
            self.block.lines.append(data.strip())

    def _span_done(self, text: str) -> None:
        block = self.block
        assert block is not None  # a kept span is only read inside a block
        if self.span == "timestamp":
            block.stamp = text
        elif self.span == "sender":
            block.sender = text
        elif self.span in ("bubble", "subject"):
            block.lines.append(text)
        elif self.span == "shareplay":
            block.shareplay = True
        elif self.span == "attachment_error":
            name = text.removeprefix("Unable to locate attachment:").strip()
            record = file_attachment(name) if name else AttachmentRecord(kind="other")
            record.rel_path, record.missing = None, "not copied by the exporter"
            block.attachments.append(record)

    def _file(self, path: str | None) -> None:
        block = self.block
        if not path or block is None or path.startswith(("http:", "https:", "#")):
            return
        if "sticker" in self.divs or "reaction" in self.divs:
            if "sticker" in self.divs:
                block.attachments.append(file_attachment(path, "sticker"))
            return
        if "attachment" in self.divs and not (block.attachments and block.attachments[-1].rel_path == path):
            block.attachments.append(file_attachment(path))  # a video names its file twice

    def _finish(self) -> None:
        if self.block is not None:
            self.block.offset = self.offset
            self.block.event = " ".join(self.block.event.split())
            self.done.append(self.block)
        self.block = None


def html_blocks(source: ExportInput) -> Iterator[HtmlBlock]:
    """The export's blocks in file order, read a chunk at a time."""
    reader = _Reader()
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    with open(source.path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            reader.offset += len(chunk)
            reader.feed(decoder.decode(chunk))
            yield from reader.done
            reader.done.clear()
        reader.feed(decoder.decode(b"", final=True), final=True)
        reader._finish()
        yield from reader.done
