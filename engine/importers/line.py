"""LINE's "Export chat history" `.txt` (phones, any language the app speaks), and the desktop
app's "Save chat" `.txt` (the same lines without the header; see below).

    [LINE] Chat history with Anna          ← or "…in Group", "Annaとのトーク履歴", "群組的聊天記錄"
    Saved on: 2024/01/15 10:30

    2024/01/15(Mon)                        ← or "2024.01.15 Monday", "2024/01/15（一）", "Mon, 01/15/2024"
    10:30	Anna	Hello                      ← time, tab, sender, tab, text
    10:31	Bob	"First line
    second line"                           ← a multi-line message is quoted ("" inside is one ")
    午後3:05	Anna	[Photo]                   ← 12-hour clocks: "3:05 PM", "3:05PM", 午前/午後, 上午/下午, 오전/오후
    10:33		Bob joined the group.          ← no sender: a system line

LINE for Windows and macOS ("Save chat") writes no header, dates as `2017.09.02 Saturday`, the
following lines of a message unquoted, system lines with one tab, and a time past midnight as
`24:10` (the next day's 00:10); all of it is read by the same rules. Its older versions put
spaces where the tabs are (`16:23 Bob Today I found…`): a sender's name cannot be told from the
text there, so that layout is not read (docs/formats.md).

The date is written once above its messages; `Weekday, a/b/yyyy` dates are read day-first
or month-first as the file's weekdays say (a date above 12 settles it too), so the file is
read twice (pass 1 decides, pass 2 yields; neither holds more than one message).

- The chat is named by the header (else the file name); the header says a two-person chat
  ("with", "との", "與…") or a group ("in", "の"); else more than two senders make a group.
- LINE does not say who exported: the owner is found as for WhatsApp (`flashback owner`).
- Media placeholders ([Photo], [スタンプ], [Voice message], [File] name.pdf, …) become
  attachments not in the export; system lines, calls (☎) and unsent-message notes are
  service lines. The header and blank lines are skipped; no message has an id, so messages
  are keyed by content (a longer export adds only what is new).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

from engine.errors import ImportFormatError
from engine.importers.base import Importer
from engine.importers.inputs import ExportInput
from engine.importers.records import AttachmentRecord, ChatRecord, MessageRecord
from engine.importers.text_lines import REPORT_EVERY, head_lines, read_lines
from engine.messages import msg

_TIME = r"(?:(上午|下午|午前|午後|오전|오후) ?)?(\d{1,2}):(\d{2})(?: ?([AaPp])\.?[Mm]\.?)?"
_MESSAGE = re.compile(_TIME + r"\t([^\t]*)\t(.*)")
_SYSTEM = re.compile(_TIME + r"\t(.*)")
_YMD = re.compile(r"(\d{4})[/.\-](\d{1,2})[/.\-](\d{1,2})"
                  r"(?:\s*[(（][^)）\s]{1,9}[)）]|\s*[A-Za-z]{2,9}\.?|\s*[^\x00-\x7f\s]{1,12})?")
_WEEKDAY_NUMERIC = re.compile(r"([A-Za-z]{2,9})\.?,? (\d{1,2})/(\d{1,2})/(\d{4})")
_WEEKDAYS = {name: day for day, name in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))}
_PM = {"下午", "午後", "오후", "p", "P"}
_AM = {"上午", "午前", "오전", "a", "A"}
# (title pattern, kind): personal patterns first, since "Xとのトーク履歴" also ends in "のトーク履歴".
_TITLES = [
    (re.compile(r"Chat history with (.+)"), "personal"),
    (re.compile(r"Chat history in (.+)"), "group"),
    (re.compile(r"(.+)とのトーク履歴"), "personal"),
    (re.compile(r"(.+)のトーク履歴"), "group"),
    (re.compile(r"[与與](.+)的聊天[记記][录錄]"), "personal"),
    (re.compile(r"(.+)的聊天[记記][录錄]"), "group"),
    (re.compile(r"ประวัติการ(?:แชท|สนทนา)(?:กับ|ใน) ?(.+)"), "other"),
]
_MEDIA = {
    **dict.fromkeys(("Photo", "Photos", "Album", "写真", "アルバム", "照片", "相簿", "相册", "사진"), "photo"),
    **dict.fromkeys(("Sticker", "Stickers", "スタンプ", "貼圖", "贴图", "스티커"), "sticker"),
    **dict.fromkeys(("Video", "Videos", "動画", "影片", "视频", "동영상"), "video"),
    **dict.fromkeys(("Voice message", "Audio", "ボイスメッセージ", "語音訊息", "语音信息", "음성메시지"), "voice"),
    **dict.fromkeys(("GIF",), "animation"),
    **dict.fromkeys(("Location", "Contact", "位置情報", "連絡先", "位置", "聯絡資訊", "联系人"), "other"),
}
_FILE_NAME = re.compile(r"Chat (?:history )?(?:with|in) (.+)")
_FILE = re.compile(r"\[(?:File|ファイル|檔案|文件|파일)\] ?(.*)")
_NOTICE = re.compile(
    r".* (?:joined the group|left the group|unsent a message|added .+ to the group|removed .+ from the group"
    r"|changed the group name to .*|made an announcement)\.?"
    r"|.*(?:がグループに参加しました|がグループを退会しました|が送信を取り消しました|がメッセージの送信を取り消しました"
    r"|已加入群組|已加入该群|已離開群組|已退群|已收回訊息|撤回了一条消息)"
    r"|Message unsent\.|メッセージの送信を取り消しました",
)
_NAME_MAX = 100
_NOTICE_CHARS = 300


class LineImporter(Importer):
    format_name = "line"

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        lines = head_lines(head)
        if not lines:
            return False
        if lines[0].startswith("[LINE] "):
            return True
        # Without its header (some versions, a cut file): a date line, then tab-separated messages.
        if not (_YMD.fullmatch(lines[0].strip()) or _WEEKDAY_NUMERIC.fullmatch(lines[0].strip())):
            return False
        return sum(1 for line in lines[1:] if _MESSAGE.fullmatch(line)) >= 1

    def parse(self, source: ExportInput, report: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
        name = source.display_name
        size, day_first, header_title, header_kind = 0, DayOrder(), None, "other"
        authors: set[str] = set()
        for n, size, line in read_lines(source):
            if n == 1 and line.startswith("[LINE] "):
                header_title, header_kind = _header(line[7:].strip())
            if n % REPORT_EVERY == 0:
                report(size // 2)
            if numeric := _WEEKDAY_NUMERIC.fullmatch(line.strip()):
                day_first.observe(numeric)
            elif len(authors) < 3 and (message := _MESSAGE.fullmatch(line)) and message[5].strip():
                authors.add(message[5].strip())
        title = header_title or _file_title(source) or ", ".join(sorted(authors)) or "LINE chat"
        kind = "group" if len(authors) > 2 else header_kind if header_kind != "other" else "personal"
        key = "line:" + " ".join(title.casefold().split())
        yield ChatRecord(key=key, title=title, kind=kind)

        reader = _Reader(source, key, day_first.day_first)
        for n, done, line in read_lines(source):
            if n % REPORT_EVERY == 0:
                report((size + done) // 2)
            yield from reader.feed(n, line)
        yield from reader.finish()
        if not reader.count:
            raise ImportFormatError(name, msg("import.problem.line_chat_nothing"),
                                    where=msg("import.where.line", line=1))
        report(size)


class DayOrder:
    """Whether `Weekday, a/b/yyyy` is day-first: the weekdays say, else a part above 12, else month-first
    (LINE's English date of that shape is the US one unless the phone's region says otherwise)."""

    def __init__(self) -> None:
        self.votes = {True: 0, False: 0}

    def observe(self, match: re.Match[str]) -> None:
        first, second, year = int(match[2]), int(match[3]), int(match[4])
        weekday = _WEEKDAYS.get(match[1][:3].casefold())
        for day_first, (day, month) in ((True, (first, second)), (False, (second, first))):
            try:
                date = datetime(year, month, day)
            except ValueError:
                self.votes[not day_first] += 2  # impossible this way round: strong evidence for the other
                continue
            if weekday is not None and date.weekday() == weekday:
                self.votes[day_first] += 1

    @property
    def day_first(self) -> bool:
        return self.votes[True] > self.votes[False]


class _Reader:
    """Pass 2: lines in, finished messages out, one pending message at a time."""

    def __init__(self, source: ExportInput, key: str, day_first: bool) -> None:
        self.source, self.key, self.day_first = source, key, day_first
        self.date: tuple[int, int, int] | None = None
        self.pending: tuple[int, float, str | None, bool, list[str]] | None = None
        self.quoted = False  # inside a quoted multi-line message
        self.in_header = False
        self.count = 0

    def feed(self, n: int, line: str) -> Iterator[MessageRecord]:
        if n == 1 and line.startswith("[LINE] "):
            self.in_header = True
            return
        message = _MESSAGE.fullmatch(line)
        system = None if message else _SYSTEM.fullmatch(line)
        if self.quoted and not message and not system:
            self._continue(line)
            return
        if message is None and system is None:
            stripped = line.strip()
            date = self._date_line(stripped, n)
            if date is not None:
                yield from self._flush()
                self.date, self.in_header = date, False
            elif self.in_header or not stripped and self.pending is None:
                return
            elif self.pending is not None:
                self._continue(line)
            elif stripped:
                raise ImportFormatError(self.source.display_name, msg("import.problem.line_chat_no_start"),
                                        where=msg("import.where.line", line=n))
            return
        yield from self._flush()
        matched = message or system
        assert matched is not None  # one of the two matched, else the line was handled above
        if self.date is None:
            raise ImportFormatError(self.source.display_name, msg("import.problem.line_chat_no_date"),
                                    where=msg("import.where.line", line=n))
        sent_at = self._timestamp(matched, n)
        author = message[5].strip() if message else ""
        text = message[6] if message else matched[5]
        self.quoted = text.startswith('"') and not _closes(text[1:])
        self.pending = (n, sent_at, author[:_NAME_MAX] or None, not author, [text])

    def finish(self) -> Iterator[MessageRecord]:
        yield from self._flush()

    def _continue(self, line: str) -> None:
        if self.pending is None:
            return
        self.pending[4].append(line)
        if self.quoted and _closes(line):
            self.quoted = False

    def _flush(self) -> Iterator[MessageRecord]:
        if self.pending is None:
            return
        n, sent_at, author, service, lines = self.pending
        self.pending, self.quoted = None, False
        while len(lines) > 1 and not lines[-1].strip():
            lines.pop()
        text = "\n".join(lines)
        if len(text) > 1 and text.startswith('"') and _closes(text[1:]):
            text = text[1:-1].replace('""', '"')
        text, attachments = _media(text.strip())
        # System sentences are short; a long text is never one (and is not scanned for one).
        notice = len(text) <= _NOTICE_CHARS and bool(_NOTICE.fullmatch(text))
        service = service or text.startswith("\u260e") or notice
        self.count += 1
        yield MessageRecord(chat_key=self.key, external_id=None, author=author, author_key=None, role="other",
                            sent_at=sent_at, text=text, where=f"line {n}", is_service=service,
                            attachments=attachments)

    def _date_line(self, stripped: str, n: int) -> tuple[int, int, int] | None:
        if ymd := _YMD.fullmatch(stripped):
            return self._checked(n, stripped, int(ymd[1]), int(ymd[2]), int(ymd[3]))
        if numeric := _WEEKDAY_NUMERIC.fullmatch(stripped):
            first, second, year = int(numeric[2]), int(numeric[3]), int(numeric[4])
            day, month = (first, second) if self.day_first else (second, first)
            return self._checked(n, stripped, year, month, day)
        return None

    def _checked(self, n: int, stamp: str, year: int, month: int, day: int) -> tuple[int, int, int]:
        try:
            datetime(year, month, day)
        except ValueError as exc:
            order = "ymd" if _YMD.fullmatch(stamp) else "dmy" if self.day_first else "mdy"
            problem = msg("import.problem.not_a_real_date", stamp=stamp[:40], order=msg(f"import.date_order.{order}"))
            raise ImportFormatError(self.source.display_name, problem, where=msg("import.where.line", line=n)) from exc
        return year, month, day

    def _timestamp(self, match: re.Match[str], n: int) -> float:
        assert self.date is not None
        hour, minute = int(match[2]), int(match[3])
        marker = match[1] or match[4]
        try:
            if marker:
                if not 0 <= hour <= 12:
                    raise ValueError("hour past 12 on a 12-hour clock")
                hour = hour % 12 + (12 if marker in _PM else 0)
            elif hour == 24:  # the desktop app's "24:10": past midnight, the next day's 00:10 (a Japanese clock)
                return (datetime(*self.date, 0, minute) + timedelta(days=1)).timestamp()
            return datetime(*self.date, hour, minute).timestamp()  # naive: the phone's local time
        except (ValueError, OverflowError, OSError) as exc:
            stamp = "{}-{:02d}-{:02d} {}".format(*self.date, match[0].split("\t")[0])
            problem = msg("import.problem.not_a_real_date", stamp=stamp, order=msg("import.date_order.ymd"))
            raise ImportFormatError(self.source.display_name, problem, where=msg("import.where.line", line=n)) from exc


def _closes(text: str) -> bool:
    """Whether a quoted message ends here: a closing quote not doubled into a literal one."""
    stripped = text.rstrip()
    trailing = len(stripped) - len(stripped.rstrip('"'))
    return trailing % 2 == 1


def _header(rest: str) -> tuple[str, str]:
    for pattern, kind in _TITLES:
        if found := pattern.fullmatch(rest):
            return found[1].strip(), kind
    return rest, "other"


def _file_title(source: ExportInput) -> str | None:
    name = source.display_name.rpartition("\u203a")[2].replace("\\", "/").rpartition("/")[2].strip()
    stem = name.removesuffix(".txt").removeprefix("[LINE]").strip()
    if found := _FILE_NAME.fullmatch(stem):  # Android names the file "[LINE] Chat with Bob.txt"
        return found[1].strip()
    for pattern, _ in _TITLES:
        if found := pattern.fullmatch(stem):
            return found[1].strip()
    return stem or None


def _media(text: str) -> tuple[str, list[AttachmentRecord]]:
    """A media placeholder becomes an attachment LINE did not export (LINE never exports files)."""
    if text.startswith("[") and text.endswith("]") and (kind := _MEDIA.get(text[1:-1])):
        return "", [AttachmentRecord(kind=kind, missing="not in the LINE export")]
    if text.startswith("[") and (named := _FILE.fullmatch(text)):
        return "", [AttachmentRecord(kind="file", file_name=named[1].strip() or None, missing="not in the LINE export")]
    return text, []
