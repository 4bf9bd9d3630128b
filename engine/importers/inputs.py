"""Turn what the user pointed at (a file, a folder, a .zip) into concrete export files.

Zip members are extracted to a temporary file so every importer can read a real,
seekable file (the Telegram importer seeks in it, and a parse child opens it by path);
the temporary copy is removed when the import ends.
"""

from __future__ import annotations

import hashlib
import shutil
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
_CANDIDATE_SUFFIXES = {".json", ".txt", ".jsonl", ".ndjson"}
_MAX_CANDIDATES = 200
# How deep a folder is walked for export files: a Messenger export keeps its threads at
# `your_activity_across_facebook/messages/inbox/<thread>/message_1.json` (4 folders down);
# a bound keeps a pointed-at home folder from being walked whole.
_MAX_DEPTH = 6
# A zip member that would unpack to more than `_BOMB_RATIO` times its packed size (and to
# more than `_BOMB_FLOOR`) is refused: chat exports pack 3-15x (JSON, text), a zip bomb
# thousands of times (2 GiB of one message in a 2 MB zip).
_BOMB_RATIO = 100
_BOMB_FLOOR = 64 * 1024 * 1024


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
    if not path.exists():
        raise ImportFormatError(str(path), msg("import.problem.no_such_path"))
    if path.is_dir():
        yield _folder_inputs(path)
    elif zipfile.is_zipfile(path):
        with tempfile.TemporaryDirectory(prefix="flashback-zip-") as scratch:
            yield _zip_inputs(path, Path(scratch))
    else:
        yield [ExportInput(path=path, display_name=path.name, relative=path.name)]


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
        for item in candidates[:_MAX_CANDIDATES]
    ]


def _zip_inputs(archive: Path, scratch: Path) -> list[ExportInput]:
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = [info for info in bundle.infolist() if not info.is_dir()]
            inputs: list[ExportInput] = []
            for info in members:
                if Path(info.filename).suffix.lower() not in _CANDIDATE_SUFFIXES:
                    continue
                if len(inputs) >= _MAX_CANDIDATES:
                    break
                _check_member(archive, info, scratch)
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


def _check_member(archive: Path, info: zipfile.ZipInfo, scratch: Path) -> None:
    """Refuse a member that is a zip bomb or that the disk has no room for, before unpacking."""
    where = f"{archive.name} › {info.filename}"
    packed, size = max(info.compress_size, 1), info.file_size
    if size > _BOMB_FLOOR and size > _BOMB_RATIO * packed:
        raise ImportFormatError(where, msg("import.problem.zip_bomb", packed=_size(packed), size=_size(size),
                                           ratio=size // packed))
    free = shutil.disk_usage(scratch).free
    if size > free:
        raise ImportFormatError(where, msg("import.problem.zip_no_room", size=_size(size), folder=str(scratch.parent),
                                           free=_size(free)))


def _size(count: float) -> Message:
    if count < 1024 ** 2:
        return msg("import.size.kb", value=count / 1024)
    if count < 1024 ** 3:
        return msg("import.size.mb", value=count / 1024 ** 2)
    return msg("import.size.gb", value=count / 1024 ** 3)
