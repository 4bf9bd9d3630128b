"""WhatsApp "Export chat" `.txt` importer (Android and iOS layouts, any locale date order).

The export is plain text: a message starts with a `date, time - ` (Android) or
`[date, time] ` (iOS) prefix, and lines without one continue the previous message. One
line cannot tell day-first from month-first dates, so the file is read twice: pass 1
infers the date order, the chat title and kind; pass 2 yields the records. Neither pass
holds more than one message in memory, so exports of any size stream.
"""

from __future__ import annotations

import hashlib
import mimetypes
import re
from collections.abc import Callable, Iterator
from datetime import datetime

from engine.errors import ImportFormatError
from engine.importers.base import Importer
from engine.importers.inputs import ExportInput
from engine.importers.records import (
    EARLIEST_TIME,
    KEEP_CHARS,
    LATEST_TIME,
    AttachmentRecord,
    ChatRecord,
    MessageRecord,
    checked_time,
)
from engine.importers.text_lines import read_lines
from engine.messages import msg

_MARKS = "\u200e\u200f"  # LRM/RLM bidi marks WhatsApp scatters at line starts
_SP = "[ \u00a0\u202f]"  # some locales put a (narrow) no-break space before AM/PM
# Groups: 1 "[", 2-5 year-first date (2 year, 4 month, 5 day), 6-9 D/M/Y or M/D/Y date
# (6 first, 8 second, 9 year), 10-12 h:m:s, 13 the a/p of an AM/PM marker.
_PREFIX = re.compile(
    rf"[{_MARKS}]*(\[)?[{_MARKS}]*"
    r"(?:(\d{4})([/.\-])(\d{1,2})\3(\d{1,2})|(\d{1,2})([/.\-])(\d{1,2})\7(\d{4}|\d{2}))\.?"
    rf",?{_SP}+(\d{{1,2}})[:.](\d{{2}})(?:[:.](\d{{2}}))?"
    rf"(?:{_SP}*([aApP])\.?{_SP}?[mM]\.?)?"
    rf"(?(1)\]{_SP}?|{_SP}+[-\u2013]{_SP})"
)
# Verbs of WhatsApp's own (English) system sentences; lowercase on purpose, since names are
# usually capitalised ("Left Hand" is a name, "Bob left" is not).
_SYSTEM = re.compile(
    r"\b(?:created group|added|removed|left|joined using|were added|was added|end-to-end encrypted"
    r"|security code|changed (?:the|this|their|his|her|your|its) (?:subject|group|description|icon|settings"
    r"|phone number))\b"
)
_CREATED = re.compile(r"^(.+?) created group [\"\u201c](.*)[\"\u201d]\s*$")
_OMITTED = re.compile(
    r"<(?:media omitted|medien ausgeschlossen|multimedia omitido|m\u00e9dias omis|media weggelaten)>",
    re.IGNORECASE,
)
# Only a whole line or an LRM-led tail: "the image omitted" typed by a person is no placeholder.
_IOS_OMITTED = re.compile(
    rf"(?:^|\s*[{_MARKS}])(image|video|audio|sticker|GIF|document|Contact card) omitted$"
)
_ATTACHED = re.compile(rf"[{_MARKS}]*<attached: ([^>]+)>")
_FILE_ATTACHED = re.compile(
    r"^(.+?) \((?:file attached|Datei angeh\u00e4ngt|fichier joint|archivo adjunto|arquivo anexado"
    r"|file allegato|bestand bijgevoegd)\)$"
)
_OMITTED_KINDS = {
    "image": "photo",
    "video": "video",
    "audio": "audio",
    "sticker": "sticker",
    "GIF": "animation",
    "document": "file",
    "Contact card": "file",
}
_EXT_KINDS = {
    **dict.fromkeys(("jpg", "jpeg", "png", "webp", "heic", "gif"), "photo"),
    **dict.fromkeys(("mp4", "3gp", "mov", "mkv", "webm", "avi"), "video"),
    **dict.fromkeys(("opus", "ogg", "m4a", "mp3", "aac", "amr", "wav"), "audio"),
}
_NAME_MAX = 60
_REPORT_EVERY = 1000


class WhatsAppImporter(Importer):
    format_name = "whatsapp"

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        lines = [line for line in head.decode("utf-8", errors="replace").split("\n") if line.strip()][:20]
        if not lines or not _PREFIX.match(lines[0].lstrip("\ufeff")):
            return False
        hits = sum(1 for line in lines if _PREFIX.match(line))
        # A short file that opens with a message is a one-message chat; otherwise want several.
        return hits >= 2 or len(lines) < 20

    def parse(
        self, source: ExportInput, report: Callable[[int], None]
    ) -> Iterator[ChatRecord | MessageRecord]:
        name = source.display_name
        size = 0  # taken from pass 1, so a vanished file fails as ImportFormatError, not OSError
        dates, messages, title, group = DateOrder(), 0, None, False
        authors: set[str] = set()
        first: str | None = None  # the first message a person wrote: what makes this chat itself
        known: tuple[str, ...] = ()  # "Name:" of the authors met so far
        for n, size, line in read_lines(source):
            match = _PREFIX.match(line)
            if n % _REPORT_EVERY == 0:
                report(size // 2)  # pass 1 is the first half of the work
            if match is None:
                if not messages and line.strip(_MARKS + " \t\ufeff"):
                    raise ImportFormatError(name, msg("import.problem.whatsapp_no_start"),
                                            where=msg("import.where.line", line=n))
                continue
            messages += 1
            if not dates.day_first_seen:  # once a date proves day-first, no later one can change the order
                dates.observe(match)
            rest = line[match.end() :]
            # Pass 1 wants the first author's message, up to 3 authors and a "created group" line: a
            # known author's line without those words tells it nothing (the split is its slowest step).
            if first is not None and rest.lstrip(_MARKS).startswith(known) and (
                    title is not None or " created group " not in rest):
                continue
            author, text, _ = _split(rest)
            if author is None:
                created = _CREATED.match(text)
                if created and title is None:
                    title, group = created[2].strip() or None, True
            else:
                if first is None:
                    first = "\x1f".join((re.sub(r"\D", "", match[0]), author, text))
                if len(authors) < 3 and author not in authors:
                    authors.add(author)
                    known = tuple(f"{name}:" for name in authors)
        if not messages:
            raise ImportFormatError(name, msg("import.problem.whatsapp_nothing"),
                                    where=msg("import.where.line", line=1))
        day_first = dates.day_first
        named, exported = chat_title(source)
        # Named as its export is named ("WhatsApp Chat - Lorem Friends.zip" is "Lorem Friends",
        # whatever its "created group" line says); a name without WhatsApp's words yields to that line.
        title = (named if exported else None) or title or named or ", ".join(sorted(authors)) or "WhatsApp chat"
        key = chat_key(title, first)
        yield ChatRecord(key=key, title=title, kind="group" if group or len(authors) > 2 else "personal")

        pending: tuple[int, float, str | None, bool, list[str]] | None = None
        pending_chars = 0
        last_stamp, last_sent_at = "", 0.0
        for n, done, line in read_lines(source):
            if n % _REPORT_EVERY == 0:
                report((size + done) // 2)
            match = _PREFIX.match(line)
            if match is None:
                # A continuation line; past the cap nothing more is kept (cap_text marks the cut).
                if pending is not None and pending_chars <= KEEP_CHARS:
                    pending[4].append(line.lstrip(_MARKS))
                    pending_chars += len(line) + 1
                continue
            if pending is not None:
                yield _message(key, *pending)
            try:
                # Messages come minutes apart at most: the same stamp is read once (the local
                # time's conversion is the pass's costliest call).
                stamp = match[0]
                if stamp != last_stamp:
                    last_sent_at = _timestamp(match, day_first)
                    last_stamp = stamp
                sent_at = last_sent_at
            except (ValueError, OverflowError, OSError) as exc:
                stamp = match[0].strip(_MARKS + "[] -\u2013\u00a0\u202f")
                order = "ymd" if match[2] else "dmy" if day_first else "mdy"
                problem = msg("import.problem.not_a_real_date", stamp=stamp, order=msg(f"import.date_order.{order}"))
                raise ImportFormatError(name, problem, where=msg("import.where.line", line=n)) from exc
            if not EARLIEST_TIME <= sent_at < LATEST_TIME:  # 31/12/9999 23:59 in New York is in year 10000 in UTC
                checked_time(sent_at, match[0].strip(_MARKS + "[] -\u2013\u00a0\u202f"), name,
                             msg("import.where.line", line=n))
            author, text, service = _split(line[match.end() :])
            pending = (n, sent_at, author, service, [text])
            pending_chars = len(text)
        if pending is not None:
            yield _message(key, *pending)
        report(size)


class DateOrder:
    """Day-first or month-first, from the dates themselves (the file never says).

    A numeric date whose first part is above 12 proves day-first ("25/03/2024"); one whose
    second part is, month-first. Year-first dates say nothing. Without such proof, the
    order under which the chat's dates run forward (a chat is written in time order: read
    the wrong way, "01/02" then "02/01" go back a month); when both run as well, day-first:
    WhatsApp's most common locales write dates that way (issue 34).
    """

    def __init__(self) -> None:
        self.day_first_seen = self.month_first_seen = False
        self._previous: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        self._backwards = [0, 0]  # steps back in time read day-first, read month-first

    def observe(self, match: re.Match[str]) -> None:
        if match[2] is not None:  # year-first
            return
        first, second = int(match[6]), int(match[8])
        self.day_first_seen |= first > 12
        self.month_first_seen |= second > 12
        clock = (int(match[10]) % 12 + (12 if match[13] in ("p", "P") else 0) if match[13] else int(match[10]),
                 int(match[11]), int(match[12] or 0))
        year = int(match[9])
        read = ((year, second, first, *clock), (year, first, second, *clock))
        if self._previous is not None:
            for order in (0, 1):
                self._backwards[order] += read[order] < self._previous[order]
        self._previous = read

    @property
    def day_first(self) -> bool:
        if self.day_first_seen or self.month_first_seen:
            return self.day_first_seen or not self.month_first_seen
        return self._backwards[0] <= self._backwards[1]


def _split(rest: str) -> tuple[str | None, str, bool]:
    """(author, text, is_service) for what follows the prefix; author None for system lines."""
    rest = rest.lstrip(_MARKS)
    cut = rest.find(":")
    # The first colon ends the name: "Name: text", and chat-miner's "John Doe:." is
    # author "John Doe" with text ".". A name that itself holds ": " is cut short there.
    if cut > 0:
        author, text = rest[:cut].strip(), rest[cut + 1 :]
        text = text[1:] if text[:1] == " " else text
        if (
            0 < len(author) <= _NAME_MAX
            and author.count('"') % 2 == 0  # an odd quote means we cut inside a quoted subject
            and not text.startswith("//")  # a URL, not a name
            and not _SYSTEM.search(author)
        ):
            # iOS writes group events as messages "from" the chat, text led by an LRM.
            if text and text[0] in _MARKS and _SYSTEM.search(text):
                return None, text.lstrip(_MARKS), True
            return author, text.lstrip(_MARKS), False
    return None, rest, True


def _timestamp(match: re.Match[str], day_first: bool) -> float:
    if match[2] is not None:
        year, month, day = int(match[2]), int(match[4]), int(match[5])
    else:
        first, second, year_text = int(match[6]), int(match[8]), match[9]
        year = int(year_text) + (2000 if len(year_text) == 2 else 0)  # WhatsApp dates from 2009
        day, month = (first, second) if day_first else (second, first)
    hour, minute, second_ = int(match[10]), int(match[11]), int(match[12] or 0)
    if match[13]:
        if hour > 12:
            raise ValueError("hour past 12 on a 12-hour clock")
        hour = hour % 12 + (12 if match[13] in "pP" else 0)
    return datetime(year, month, day, hour, minute, second_).timestamp()  # naive: local time


def _message(
    key: str, n: int, sent_at: float, author: str | None, service: bool, lines: list[str]
) -> MessageRecord:
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()  # blank lines before the next message belong to no one
    text, attachments = _attachments("\n".join(lines)) if not service else ("\n".join(lines), [])
    return MessageRecord(
        chat_key=key,
        external_id=None,
        author=author,
        author_key=None,
        role="other",
        sent_at=sent_at,
        text=text,
        where=f"line {n}",
        is_service=service,
        attachments=attachments,
    )


def _attachments(text: str) -> tuple[str, list[AttachmentRecord]]:
    """Lift media placeholders out of the text into attachment records."""
    found: list[AttachmentRecord] = []
    if "<" in text:
        if _OMITTED.fullmatch(text.strip(_MARKS + " ")):
            return "", [AttachmentRecord(kind="other", missing="media omitted")]
        for file_name in _ATTACHED.findall(text):
            found.append(_file(file_name.strip()))
        text = _ATTACHED.sub("", text).strip(_MARKS + " ")
    first, newline, more = text.partition("\n")
    if "(" in first and (attached := _FILE_ATTACHED.match(first.strip(_MARKS + " "))):
        found.append(_file(attached[1].strip(_MARKS + " ")))
        text = more
    elif first.endswith(" omitted") and (omitted := _IOS_OMITTED.search(first)):
        found.append(AttachmentRecord(kind=_OMITTED_KINDS[omitted[1]], missing="media omitted"))
        caption = first[: omitted.start()].strip(_MARKS + " ")  # iOS documents: "name.pdf • 3 pages"
        text = caption + newline + more if caption else more
    return text, found


def _file(file_name: str) -> AttachmentRecord:
    upper = file_name.upper()
    ext = file_name.rpartition(".")[2].lower() if "." in file_name else ""
    if upper.startswith("STK-") or "-STICKER-" in upper:
        kind = "sticker"
    elif "-GIF-" in upper:
        kind = "animation"
    elif ext == "opus" and (upper.startswith("PTT-") or "-AUDIO-" in upper):
        kind = "voice"  # push-to-talk voice notes
    else:
        kind = _EXT_KINDS.get(ext, "file")
    return AttachmentRecord(
        kind=kind, file_name=file_name, mime=mimetypes.guess_type(file_name)[0], rel_path=file_name
    )


# What WhatsApp calls an exported chat, per platform and language: Android names the .txt (and
# its zip) "WhatsApp Chat with NAME", iOS names the zip "WhatsApp Chat - NAME" around a bare
# `_chat.txt`; the words around NAME follow the phone's language.
_EXPORT_PREFIXES = (
    "WhatsApp Chat with ", "WhatsApp Chat - ", "WhatsApp Chat \u2013 ", "WhatsApp Chat mit ", "WhatsApp-Chat mit ",
    "Chat de WhatsApp con ", "Chat de WhatsApp com ", "Conversa do WhatsApp com ", "Discussion WhatsApp avec ",
    "Chat WhatsApp con ", "WhatsApp-chat met ", "WhatsApp Chat met ", "Czat WhatsApp z ", "WhatsApp-chatt med ",
    "\u0427\u0430\u0442 WhatsApp \u0441 ", "WhatsApp-\u0447\u0430\u0442 \u0441 ",
)
# Names that say nothing about the chat: iOS's file, and what is left of a bare prefix.
_GENERIC = {"_chat", "chat", "whatsapp chat", "whatsapp", "whatsapp-chat"}
_COPY_MARK = re.compile(r"\s*\(\d{1,3}\)$")  # a browser's second download: "… (1).zip"


def _export_name(name: str) -> tuple[str, bool]:
    """('Bob', True) for 'WhatsApp Chat with Bob (1).txt'; (stem, False) for a name without WhatsApp's words."""
    stem = name.strip()
    for extension in (".txt", ".zip"):
        if stem.lower().endswith(extension):
            stem = stem[: -len(extension)]
    stem = _COPY_MARK.sub("", stem).strip()
    folded = stem.casefold()
    for prefix in _EXPORT_PREFIXES:
        if folded.startswith(prefix.casefold()):
            return _COPY_MARK.sub("", stem[len(prefix):]).strip(), True
    return stem, False


def chat_key(title: str, first: str | None) -> str:
    """The chat's key: its name, and a digest of its first message (date, author, text as
    written) so that two groups of one name ("Family" in 2023 and another "Family" in 2024)
    stay two chats (issue 34). A re-export starts with the same message, so it has the same
    key; a longer or renamed one whose start differs is still found by its messages
    (`chat_identity`)."""
    name = "whatsapp:" + " ".join(title.casefold().split())
    if first is None:  # only system lines: nothing but the name to go by
        return name
    return f"{name}#{hashlib.blake2b(first.encode('utf-8', 'surrogatepass'), digest_size=6).hexdigest()}"


def chat_title(source: ExportInput) -> tuple[str | None, bool]:
    """The chat's name from the names around its text, and whether WhatsApp's own words
    said it ("WhatsApp Chat with …"); None when they are all generic (a `_chat.txt` on its
    own: the caller names the chat after its people).

    WhatsApp's own words win wherever they are: the file, then the folders and zip it came in
    (the nearest first), then, for a file imported on its own, its folder (iOS unzipped). Else
    the file's own name, else the nearest folder or zip the person picked."""
    file_name = source.display_name.rpartition("\u203a")[2].replace("\\", "/").rpartition("/")[2]
    picked = [_export_name(name) for name in reversed(source.around) if name]
    beside = [] if source.around else [_export_name(source.path.parent.name)]
    own = _export_name(file_name)
    for stem, exported in [own, *picked, *beside]:
        if exported and stem.casefold() not in _GENERIC:
            return stem, True
    for stem, _ in [own, *picked]:
        if stem and stem.casefold() not in _GENERIC:
            return stem, False
    return None, False
