"""Line reading and media kinds shared by the line-based importers (Signal, iMessage, LINE).

The same bounded reading as the WhatsApp importer's: one line is read at most `LINE_LIMIT`
bytes at a time, so a pasted 2 GiB line costs no more memory than an ordinary chat, and a
line that is not UTF-8 is an import error naming its line. CRLF and CR-less files read the same.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterator

from engine.errors import ImportFormatError
from engine.importers.base import skip_rest_of_line
from engine.importers.inputs import ExportInput
from engine.importers.records import KEEP_CHARS, AttachmentRecord
from engine.messages import msg

# Room for KEEP_CHARS characters of any script: an over-long message keeps its head whole.
# Bytes of one line read at most: room for KEEP_CHARS characters of any script, so the
# head of an over-long message survives whole for `cap_text` to cut and mark.
LINE_LIMIT = 4 * KEEP_CHARS + 1024
_KEEP_LINE_CHARS = KEEP_CHARS + 200
REPORT_EVERY = 1000

_EXT_KINDS = {
    **dict.fromkeys(("jpg", "jpeg", "png", "webp", "heic", "heif", "gif", "tif", "tiff", "bmp"), "photo"),
    **dict.fromkeys(("mp4", "3gp", "mov", "mkv", "webm", "avi", "m4v", "qt", "mpeg"), "video"),
    **dict.fromkeys(("ogg", "m4a", "mp3", "aac", "amr", "wav", "flac"), "audio"),
    **dict.fromkeys(("opus", "caf"), "voice"),  # Signal's and iMessage's voice notes
}


def read_lines(source: ExportInput) -> Iterator[tuple[int, int, str]]:
    """(line number, bytes read so far, the line without its ending), read lazily: the line
    reader of every text format (WhatsApp, Signal, iMessage, LINE).

    A line longer than `LINE_LIMIT` bytes comes back as its head (whole characters) and the
    rest is read past a chunk at a time: one pasted 2 GiB line costs no more memory than an
    ordinary chat. Reading splits on b"\n" only, so U+2028 inside a message stays in it."""
    n = 0
    try:
        with open(source.path, "rb") as handle:
            done = 0
            for n, raw in enumerate(iter(lambda: handle.readline(LINE_LIMIT), b""), 1):
                done += len(raw)
                over_long = len(raw) == LINE_LIMIT and not raw.endswith(b"\n")
                if over_long:
                    done += skip_rest_of_line(handle, LINE_LIMIT)
                    raw = raw[:whole_characters(raw)]
                if n == 1:
                    raw = raw.removeprefix(b"\xef\xbb\xbf")
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise ImportFormatError(source.display_name, msg("import.problem.line_unreadable"),
                                            where=msg("import.where.line", line=n)) from exc
                yield n, done, line[:_KEEP_LINE_CHARS] if over_long else line.rstrip("\r\n")
    except OSError as exc:
        problem = msg("import.problem.unreadable", reason=exc.strerror or str(exc))
        raise ImportFormatError(source.display_name, problem, where=msg("import.where.line", line=n + 1)) from exc


def whole_characters(raw: bytes) -> int:
    """Length of `raw` without a UTF-8 character cut at its end."""
    end = len(raw)
    for back in range(1, min(4, end) + 1):
        byte = raw[end - back]
        if byte & 0xC0 != 0x80:  # the lead byte of the last character (or an ASCII one)
            need = 1 if byte < 0x80 else 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return end if back >= need else end - back
    return end


def head_lines(head: bytes, count: int = 20) -> list[str]:
    """The first `count` non-blank lines of a sniffed head, CR-less."""
    text = head.decode("utf-8", errors="replace")
    return [line.rstrip("\r") for line in text.split("\n") if line.strip()][:count]


def media_kind(file_name: str) -> str:
    """An attachment's kind from its extension ("file" when the extension says nothing)."""
    ext = file_name.rpartition(".")[2].lower() if "." in file_name else ""
    return _EXT_KINDS.get(ext, "file")


def file_attachment(path: str, kind: str | None = None) -> AttachmentRecord:
    """An exported file, named by its path inside the export."""
    name = path.replace("\\", "/").rpartition("/")[2] or path
    return AttachmentRecord(kind=kind or media_kind(name), file_name=name, mime=mimetypes.guess_type(name)[0],
                            rel_path=path)


def chat_folder_name(source: ExportInput) -> str:
    """The folder the export file sits in (the nearest folder or zip it came in, or its own folder)."""
    if source.around:
        return source.around[-1].removesuffix(".zip")
    return source.path.parent.name
