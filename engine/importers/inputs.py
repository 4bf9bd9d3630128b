"""Turn what the user pointed at (a file, a folder, a .zip) into concrete export files.

Zip members are extracted to a temporary file so every importer can read a real,
seekable file (the Telegram importer seeks in it, and a parse child opens it by path);
the temporary copy is removed when the import ends.
"""

from __future__ import annotations

import hashlib
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ImportFormatError
from engine.files import create_private
from engine.messages import Message, msg

SNIFF_BYTES = 64 * 1024
# Files inside a folder or zip worth sniffing; anything else (media) is never read.
_CANDIDATE_SUFFIXES = {".json", ".txt", ".jsonl", ".ndjson", ".md", ".html"}  # .md, .html: Signal, iMessage
# How deep a folder is walked for export files: a Messenger export keeps its threads at
# `your_activity_across_facebook/messages/inbox/<thread>/message_1.json` (4 folders down);
# a bound keeps a pointed-at home folder from being walked whole.
_MAX_DEPTH = 6
# A zip member that would unpack to more than `_BOMB_RATIO` times its packed size (and to
# more than `_BOMB_FLOOR`) is refused: chat exports pack 3-15x (JSON, text), a zip bomb
# thousands of times (2 GiB of one message in a 2 MB zip). The same holds for the exports of
# a zip together (issue 34: 30 members of 60 MB of zeros, each under the floor, packed in
# 1.8 MB), and together they are bounded and must fit the disk before one is unpacked.
_BOMB_RATIO = 100
_BOMB_FLOOR = 64 * 1024 * 1024
_MAX_UNPACKED = 8 * 1024 ** 3  # the exports of one zip, unpacked: far above any chat export's text
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")


@dataclass
class ExportInput:
    """One export file on disk: what an importer reads."""

    path: Path  # a real file (zip members are extracted first)
    display_name: str  # what the user recognises: "export.zip › result.json"
    # The zip and folders the file came in, outermost first ("WhatsApp Chat - Anna.zip",
    # "backup", "Anna"): an iOS WhatsApp chat is a `_chat.txt` named only by its zip or folder.
    around: tuple[str, ...] = ()
    # Its path inside the folder or zip pointed at ("general/2024-01-02.json"; the file's name
    # for a file pointed at): how multi-file exports are grouped (`engine.importers.groups`).
    relative: str = ""
    # A multi-file export (a Slack workspace, a Messenger thread's message_N.json, Discord's
    # [part N] files): every file in reading order; `path` is the one sniffed. Empty: one file.
    parts: tuple[ExportInput, ...] = ()

    def files(self) -> tuple[ExportInput, ...]:
        """The files to read, in order: its parts, or itself."""
        return self.parts or (self,)

    @property
    def size(self) -> int:
        return sum(part.path.stat().st_size for part in self.files())

    def head(self) -> bytes:
        with open(self.path, "rb") as handle:
            data = handle.read(SNIFF_BYTES)
        return data.removeprefix(b"\xef\xbb\xbf")

    def sha256(self) -> str:
        digest = hashlib.sha256()
        for part in self.files():
            if self.parts:  # a part's name counts: the same bytes under another name are another export
                digest.update(part.relative.encode("utf-8", "surrogatepass") + b"\0")
            with open(part.path, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
        return digest.hexdigest()


@contextmanager
def resolve_inputs(path: Path) -> Iterator[list[ExportInput]]:
    """Yield the candidate export files under `path`; clean up extracted copies after."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except OSError as exc:  # missing, or a link to nothing
        raise ImportFormatError(str(path), msg("import.problem.no_such_path")) from exc
    if stat.S_ISDIR(mode):
        yield _folder_inputs(path)
        return
    if not stat.S_ISREG(mode):  # /dev/zero never ends, a named pipe may never speak: never read one
        raise ImportFormatError(path.name or str(path), msg("import.problem.not_a_file"))
    if zipfile.is_zipfile(path):
        with tempfile.TemporaryDirectory(prefix="flashback-zip-") as scratch:
            yield _zip_inputs(path, Path(scratch))
        return
    _refuse_empty_or_broken_zip(path)
    yield [ExportInput(path=path, display_name=path.name, relative=path.name)]


def _refuse_empty_or_broken_zip(path: Path) -> None:
    """An empty file and a zip whose table of contents is gone (a download cut short) each
    get their own sentence, not "not a chat export"."""
    with open(path, "rb") as handle:
        head = handle.read(4)
    if not head:
        raise ImportFormatError(path.name, msg("import.problem.file_empty"))
    if head in _ZIP_MAGIC:
        raise ImportFormatError(path.name, msg("import.problem.zip_unreadable"))


def _walk(folder: Path, depth: int = 0) -> Iterator[Path]:
    """Candidate files under `folder`, `_MAX_DEPTH` folders down at most (symlinked folders
    are not followed: a link to `/` must not turn an import into a disk walk)."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return
    for item in entries:
        if item.is_dir() and (item.is_symlink() or item.name.startswith(".") or item.name == "__MACOSX"):
            continue  # hidden folders (.git) and macOS zip leftovers hold no exports
        if item.is_dir():
            if depth < _MAX_DEPTH:
                yield from _walk(item, depth + 1)
        elif item.suffix.lower() in _CANDIDATE_SUFFIXES and item.is_file():
            yield item


def _folder_inputs(folder: Path) -> list[ExportInput]:
    """Export files in the folder and its subfolders (media files are never listed)."""
    candidates = sorted(_walk(folder), key=lambda item: item.relative_to(folder).as_posix())
    if not candidates:
        raise ImportFormatError(folder.name, msg("import.problem.folder_without_export"))
    return [
        ExportInput(path=item, display_name=f"{folder.name}/{item.relative_to(folder).as_posix()}",
                    around=(folder.name, *item.relative_to(folder).parent.parts),
                    relative=item.relative_to(folder).as_posix())
        for item in candidates
    ]


def _zip_inputs(archive: Path, scratch: Path) -> list[ExportInput]:
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = [info for info in bundle.infolist() if not info.is_dir()
                       and Path(info.filename).suffix.lower() in _CANDIDATE_SUFFIXES]
            _check_members(archive, members, scratch)  # all of them, before the first is unpacked
            inputs: list[ExportInput] = []
            for info in members:
                target = scratch / f"{len(inputs)}{Path(info.filename).suffix.lower()}"
                # zipfile stops at the declared size: a member cannot unpack past what was checked.
                with bundle.open(info) as src, create_private(target) as dst:  # a chat: 0600 (engine/files.py)
                    shutil.copyfileobj(src, dst, 1 << 20)
                relative = member_path(info.filename)
                inner = tuple(relative.split("/")[:-1])
                inputs.append(ExportInput(target, f"{archive.name} › {info.filename}", (archive.name, *inner),
                                          relative))
    except (zipfile.BadZipFile, OSError, RuntimeError, EOFError) as exc:
        raise ImportFormatError(archive.name, msg("import.problem.zip_damaged", error=str(exc))) from exc
    if not inputs:
        raise ImportFormatError(archive.name, msg("import.problem.zip_without_export"))
    return inputs


def member_path(name: str) -> str:
    """A zip member's path as a safe relative path: `/` separators, no drive or root, no `.`
    or `..` parts (it names the file, it is never where it is written: members are unpacked
    to numbered scratch files)."""
    parts = [part for part in name.replace("\\", "/").split("/") if part not in ("", ".", "..")]
    if parts and parts[0].endswith(":"):  # a Windows drive, "C:"
        parts = parts[1:]
    return "/".join(parts)


def _check_members(archive: Path, members: list[zipfile.ZipInfo], scratch: Path) -> None:
    """Refuse, before unpacking anything, a member that is a zip bomb, members that are one
    together, more than `_MAX_UNPACKED` in all, or more than the disk has room for. The sizes
    are the zip's own word: zipfile stops reading a member at its declared size."""
    for info in members:
        _refuse_bomb(f"{archive.name} › {info.filename}", max(info.compress_size, 1), info.file_size)
    packed, size = max(sum(info.compress_size for info in members), 1), sum(info.file_size for info in members)
    _refuse_bomb(archive.name, packed, size)
    if size > _MAX_UNPACKED:
        raise ImportFormatError(archive.name, msg("import.problem.zip_too_big", size=_size(size),
                                                  limit=_size(_MAX_UNPACKED)))
    free = shutil.disk_usage(scratch).free
    if size > free:
        raise ImportFormatError(archive.name, msg("import.problem.zip_no_room", size=_size(size),
                                                  folder=str(scratch.parent), free=_size(free)))


def _refuse_bomb(where: str, packed: int, size: int) -> None:
    if size > _BOMB_FLOOR and size > _BOMB_RATIO * packed:
        raise ImportFormatError(where, msg("import.problem.zip_bomb", packed=_size(packed), size=_size(size),
                                           ratio=size // packed))


def _size(count: float) -> Message:
    if count < 1024 ** 2:
        return msg("import.size.kb", value=count / 1024)
    if count < 1024 ** 3:
        return msg("import.size.mb", value=count / 1024 ** 2)
    return msg("import.size.gb", value=count / 1024 ** 3)
