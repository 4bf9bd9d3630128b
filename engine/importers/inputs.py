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
    if not path.exists():
        raise ImportFormatError(str(path), msg("import.problem.no_such_path"))
    if path.is_dir():
        yield _folder_inputs(path)
    elif zipfile.is_zipfile(path):
        with tempfile.TemporaryDirectory(prefix="flashback-zip-") as scratch:
            yield _zip_inputs(path, Path(scratch))
    else:
        yield [ExportInput(path=path, display_name=path.name)]


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
                inner = tuple(part for part in info.filename.replace("\\", "/").split("/")[:-1] if part)
                inputs.append(ExportInput(target, f"{archive.name} › {info.filename}", (archive.name, *inner)))
    except (zipfile.BadZipFile, OSError, RuntimeError, EOFError) as exc:
        raise ImportFormatError(archive.name, msg("import.problem.zip_damaged", error=str(exc))) from exc
    if not inputs:
        raise ImportFormatError(archive.name, msg("import.problem.zip_without_export"))
    return inputs


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
