"""iMessage chats as imessage-exporter (ReagentX/imessage-exporter) writes them with `-f txt`.

One `.txt` per conversation, named after it (a contact, a group's name, the numbers). A
message is a block:

    May 17, 2022  5:29:42 PM (Read by them after 1 hour, 49 seconds)
    Me
    Hello world
    Reactions:
    Loved by Sample Contact

and a group event is one line, `May 17, 2022  5:31:00 PM You renamed the conversation to X`.
"Me" is the account owner. What is read and what is skipped:

- the read receipt after the time: skipped (it is about the reading, not the message);
- `Reactions:` (older: `Tapbacks:`) and its `Loved by X` lines: kept beside the message (its
  `reactions`: "Loved" by X), never in its text;
- replies shown again, indented, under the message they answer: skipped (imessage-exporter
  writes each reply in place as well; that copy is read), and the "This message responded
  to an earlier message." note is dropped;
- "This message was deleted from the conversation!": the note is dropped, the recovered text
  kept; "You deleted a message." (an unsent message), SharePlay, renames and group-photo
  changes: service lines;
- attachment paths, "Attachment missing!" and stickers: attachments; "Sent with Confetti"
  and the other effect notes: dropped.

Messages have no ids in the text: they are keyed by content, as WhatsApp's are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime

from engine.errors import ImportFormatError
from engine.importers.base import Importer
from engine.importers.imessage_html import HtmlBlock, html_blocks
from engine.importers.inputs import ExportInput
from engine.importers.records import AttachmentRecord, ChatRecord, MessageRecord, reactions_by_emoji
from engine.importers.text_lines import REPORT_EVERY, file_attachment, head_lines, read_lines
from engine.messages import Message, msg

OWNER = "Me"
_MONTHS = {name: number for number, name in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
_STAMP = r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{1,2}), (\d{4}) {1,2}(\d{1,2}):(\d{2}):(\d{2}) ([AP]M)"
_HEADER = re.compile(_STAMP + r"(?: \(Read by .{1,80} after [^)]{1,80}\))?")
_EVENT = re.compile(_STAMP + r" (.+)")
_NESTED = re.compile(r" {4,}" + _STAMP + r".*")
# The HTML says "named the conversation X" where the TXT says "renamed the conversation to X".
_EVENT_VERB = re.compile(r"(.+?) (?:renamed the conversation to .*|named the conversation .*|changed the group photo\.?"
                         r"|performed unknown action .*|deleted a message\.)")
_REACTION = re.compile(r"(Loved|Liked|Disliked|Laughed|Emphasized|Questioned|Emoji\(.*\)|Sticker|\w+) by (.+)")
_STICKER = re.compile(r"(?:\w+ )?Sticker from (.+?): (.+)")
_PATH = re.compile(r"(?:/|~/|[A-Za-z]:\\|\.{0,2}/?[Aa]ttachments/).*\.[A-Za-z0-9]{2,5}")
_BARE_MEDIA = re.compile(r"[\w\-.() ]{1,120}\.(?:heic|jpe?g|png|gif|mov|mp4|m4v|caf|m4a|mp3|pdf|webp|aac|amr)",
                         re.IGNORECASE)
_UNSENT = re.compile(r".{1,60} deleted a message\.")
_EFFECTS = {f"Sent with {name}" for name in (
    "Confetti", "Echo", "Fireworks", "Balloons", "Heart", "Lasers", "Shooting Star", "Sparkles", "Spotlight",
    "Slam", "Loud", "Gentle", "Invisible Ink")}
_DROPPED = {"This message was deleted from the conversation!", "This message responded to an earlier message."}
_SHAREPLAY = ["SharePlay Message", "Ended"]
_AUTHORS_SCANNED = 2000


class IMessageImporter(Importer):
    format_name = "imessage"

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        if head.lstrip()[:1] == b"<":
            # imessage-exporter's HTML; Telegram's HTML export names its parts otherwise ("from_name", "date").
            return b'<span class="timestamp">' in head and (b'<span class="sender">' in head
                                                            or b'"announcement"' in head)
        lines = head_lines(head, 3)
        if not lines:
            return False
        if _HEADER.fullmatch(lines[0]):
            return len(lines) > 1 and not _EVENT.match(lines[1])
        return bool((event := _EVENT.fullmatch(lines[0])) and _EVENT_VERB.fullmatch(event[8]))

    def parse(self, source: ExportInput, report: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
        if source.head().lstrip()[:1] == b"<":
            yield from _parse_html(source, report)
            return
        title = _title(source)
        key = "imessage:" + " ".join(title.casefold().split())
        authors, renamed = _authors(source)
        group = renamed or len(authors - {OWNER}) > 1
        yield ChatRecord(key=key, title=title, kind="group" if group else "personal")
        count = 0
        pending: tuple[int, float, list[str]] | None = None
        nested = False
        for n, done, line in read_lines(source):
            if n % REPORT_EVERY == 0:
                report(done)
            if nested and line.startswith("    "):
                continue
            nested = False
            if _NESTED.fullmatch(line):
                nested = True  # a reply repeated under the message it answers
                continue
            header = _HEADER.fullmatch(line)
            event = None if header else _EVENT.fullmatch(line)
            if header is None and event is None:
                if pending is not None:
                    pending[2].append(line)
                elif line.strip():
                    raise ImportFormatError(source.display_name, msg("import.problem.imessage_no_start"),
                                            where=msg("import.where.line", line=n))
                continue
            if pending is not None:
                count += 1
                yield from _block(key, *pending)
                pending = None
            matched = header or event
            assert matched is not None  # one of them matched, or the line was a continuation above
            sent_at = _timestamp(source, msg("import.where.line", line=n), matched)
            if event is not None:
                count += 1
                yield _event(key, n, sent_at, event[8])
            else:
                pending = (n, sent_at, [])
        if pending is not None:
            count += 1
            yield from _block(key, *pending)
        if not count:
            raise ImportFormatError(source.display_name, msg("import.problem.imessage_nothing"),
                                    where=msg("import.where.line", line=1))
        report(source.size)


def _parse_html(source: ExportInput, report: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
    """The HTML export: blocks from `imessage_html`, read as the TXT's blocks are."""
    title = _title(source)
    key = "imessage:" + " ".join(title.casefold().split())
    authors: set[str] = set()
    renamed = False
    for number, block in enumerate(html_blocks(source)):
        if number >= _AUTHORS_SCANNED:
            break
        renamed |= " named the conversation " in block.event
        if block.sender:
            authors.add(block.sender)
    yield ChatRecord(key=key, title=title, kind="group" if renamed or len(authors - {OWNER}) > 1 else "personal")
    count = 0
    for number, block in enumerate(html_blocks(source), 1):
        if number % REPORT_EVERY == 0:
            report(block.offset)
        where = f"message {number}"
        stamp = _HEADER.fullmatch(block.stamp)
        if stamp is None:
            raise ImportFormatError(source.display_name, msg("import.problem.imessage_html_no_time"),
                                    where=msg("import.where.message", number=number))
        sent_at = _timestamp(source, msg("import.where.message", number=number), stamp)
        count += 1
        if block.event:
            yield _event(key, number, sent_at, block.event.removeprefix(block.stamp).strip(), where)
        else:
            yield from _block(key, number, sent_at, _html_lines(block), block.attachments, where)
    if not count:
        raise ImportFormatError(source.display_name, msg("import.problem.imessage_nothing"),
                                where=msg("import.where.line", line=1))
    report(source.size)


def _html_lines(block: HtmlBlock) -> list[str]:
    """The TXT lines the block stands for, so both exports read to the same messages."""
    lines = [block.sender, *block.lines, *(_SHAREPLAY if block.shareplay else [])]
    if block.reactions:
        lines.append("Reactions:")
        lines += [f"Sticker by {text[5:]}" if text.startswith("from ") else text for text in block.reactions]
    return lines


def _title(source: ExportInput) -> str:
    name = source.display_name.rpartition("\u203a")[2].replace("\\", "/").rpartition("/")[2].strip()
    return name.removesuffix(".txt").removesuffix(".html").strip() or "iMessage chat"


def _authors(source: ExportInput) -> tuple[set[str], bool]:
    found: set[str] = set()
    after_header = renamed = False
    for n, _, line in read_lines(source):
        if n > _AUTHORS_SCANNED:
            break
        if after_header and line.strip():
            found.add(line.strip())
            after_header = False
        elif _HEADER.fullmatch(line):
            after_header = True
        elif (event := _EVENT.fullmatch(line)) and " renamed the conversation to " in event[8]:
            renamed = True
    return found, renamed


def _timestamp(source: ExportInput, where: Message, match: re.Match[str]) -> float:
    month, day, year = _MONTHS[match[1]], int(match[2]), int(match[3])
    hour, minute, second = int(match[4]), int(match[5]), int(match[6])
    try:
        if not 1 <= hour <= 12:
            raise ValueError("hour outside a 12-hour clock")
        hour = hour % 12 + (12 if match[7] == "PM" else 0)
        return datetime(year, month, day, hour, minute, second).timestamp()  # the exporting Mac's local time
    except (ValueError, OverflowError, OSError) as exc:
        problem = msg("import.problem.not_a_real_date", stamp=match[0][:40], order=msg("import.date_order.mdy"))
        raise ImportFormatError(source.display_name, problem, where=where) from exc


def _event(key: str, n: int, sent_at: float, text: str, where: str | None = None) -> MessageRecord:
    verb = _EVENT_VERB.fullmatch(text)
    who = verb[1] if verb else None
    who = OWNER if who == "You" else who
    return MessageRecord(chat_key=key, external_id=None, author=who, author_key="me" if who == OWNER else None,
                         role="user" if who == OWNER else "other", sent_at=sent_at, text=text,
                         where=where or f"line {n}", is_service=True)


def _block(key: str, n: int, sent_at: float, lines: list[str], attachments: list[AttachmentRecord] | None = None,
           where: str | None = None) -> Iterator[MessageRecord]:
    while lines and not lines[-1].strip():
        lines.pop()
    sender = lines[0].strip() if lines else ""
    body: list[str] = []
    attachments = list(attachments or [])
    where = where or f"line {n}"
    reactions: list[tuple[str, str]] = []
    in_reactions = False
    for line in lines[1:]:
        if in_reactions:
            if sticker := _STICKER.fullmatch(line):
                reactions.append((sticker[1], "Sticker"))
                continue
            if reaction := _REACTION.fullmatch(line):
                reactions.append((reaction[2], _reaction_text(reaction[1])))
                continue
            in_reactions = False
        if line in ("Reactions:", "Tapbacks:"):
            in_reactions = True
        elif line in _DROPPED or line in _EFFECTS:
            continue
        elif line == "Attachment missing!":
            attachments.append(AttachmentRecord(kind="other", missing="attachment missing"))
        elif sticker := _STICKER.fullmatch(line):
            attachments.append(file_attachment(sticker[2].strip(), "sticker"))
        elif _PATH.fullmatch(line.strip()):
            attachments.append(file_attachment(line.strip()))
        elif _BARE_MEDIA.fullmatch(line.strip()):
            record = file_attachment(line.strip())
            record.rel_path, record.missing = None, "not copied by the exporter"
            attachments.append(record)
        else:
            body.append(line)
    text = "\n".join(body).strip("\n")
    service = body == _SHAREPLAY or bool(_UNSENT.fullmatch(text))
    owner = sender == OWNER
    yield MessageRecord(chat_key=key, external_id=None, author=sender or None, author_key="me" if owner else None,
                        role="user" if owner else "other", sent_at=sent_at, text=text, where=where,
                        is_service=service, attachments=attachments,
                        reactions=reactions_by_emoji(reactions))


def _reaction_text(kind: str) -> str:
    """`Emoji(Some("🥹"))` (imessage-exporter's debug print of an emoji reaction) → 🥹; words as written."""
    quoted = re.search(r'"(.+)"', kind)
    return quoted[1] if quoted else kind
