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
from engine.messages import Message, msg

SNIFF_BYTES = 64 * 1024
# Files inside a folder or zip worth sniffing; anything else (media) is never read.
_CANDIDATE_SUFFIXES = {".json", ".txt", ".jsonl", ".ndjson"}
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

    @property
    def size(self) -> int:
        return self.path.stat().st_size

    def head(self) -> bytes:
        with open(self.path, "rb") as handle:
            data = handle.read(SNIFF_BYTES)
        return data.removeprefix(b"\xef\xbb\xbf")

    def sha256(self) -> str:
        digest = hashlib.sha256()
        with open(self.path, "rb") as handle:
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
    yield [ExportInput(path=path, display_name=path.name)]


def _refuse_empty_or_broken_zip(path: Path) -> None:
    """An empty file and a zip whose table of contents is gone (a download cut short) each
    get their own sentence, not "not a chat export"."""
    with open(path, "rb") as handle:
        head = handle.read(4)
    if not head:
        raise ImportFormatError(path.name, msg("import.problem.file_empty"))
    if head in _ZIP_MAGIC:
        raise ImportFormatError(path.name, msg("import.problem.zip_unreadable"))


def _folder_inputs(folder: Path) -> list[ExportInput]:
    """Export files at the top of the folder or one level down (media folders are skipped)."""
    found = [item for item in folder.iterdir() if item.is_file()]
    for sub in folder.iterdir():
        if sub.is_dir():
            found.extend(item for item in sub.iterdir() if item.is_file())
    candidates = sorted(item for item in found if item.suffix.lower() in _CANDIDATE_SUFFIXES)
    if not candidates:
        raise ImportFormatError(folder.name, msg("import.problem.folder_without_export"))
    return [
        ExportInput(path=item, display_name=f"{folder.name}/{item.relative_to(folder).as_posix()}",
                    around=(folder.name, *item.relative_to(folder).parent.parts))
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
                with bundle.open(info) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                inner = tuple(part for part in info.filename.replace("\\", "/").split("/")[:-1] if part)
                inputs.append(ExportInput(target, f"{archive.name} › {info.filename}", (archive.name, *inner)))
    except (zipfile.BadZipFile, OSError, RuntimeError, EOFError) as exc:
        raise ImportFormatError(archive.name, msg("import.problem.zip_damaged", error=str(exc))) from exc
    if not inputs:
        raise ImportFormatError(archive.name, msg("import.problem.zip_without_export"))
    return inputs


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
