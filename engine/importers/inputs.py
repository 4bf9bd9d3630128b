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

SNIFF_BYTES = 64 * 1024
# Files inside a folder or zip worth sniffing; anything else (media) is never read.
_CANDIDATE_SUFFIXES = {".json", ".txt", ".jsonl", ".ndjson"}
_MAX_CANDIDATES = 200


@dataclass
class ExportInput:
    """One export file on disk: what an importer reads."""

    path: Path  # a real file (zip members are extracted first)
    display_name: str  # what the user recognises: "export.zip › result.json"

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
        raise ImportFormatError(str(path), "the file or folder does not exist")
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
        raise ImportFormatError(folder.name, "the folder holds no .json, .jsonl or .txt export file")
    return [
        ExportInput(path=item, display_name=f"{folder.name}/{item.relative_to(folder).as_posix()}")
        for item in candidates[:_MAX_CANDIDATES]
    ]


def _zip_inputs(archive: Path, scratch: Path) -> list[ExportInput]:
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = [info for info in bundle.infolist() if not info.is_dir()]
            inputs = []
            for info in members:
                if Path(info.filename).suffix.lower() not in _CANDIDATE_SUFFIXES:
                    continue
                if len(inputs) >= _MAX_CANDIDATES:
                    break
                target = scratch / f"{len(inputs)}{Path(info.filename).suffix.lower()}"
                with bundle.open(info) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                inputs.append(ExportInput(target, f"{archive.name} › {info.filename}"))
    except (zipfile.BadZipFile, OSError, RuntimeError, EOFError) as exc:
        raise ImportFormatError(archive.name, f"the zip archive is damaged or encrypted ({exc})") from exc
    if not inputs:
        raise ImportFormatError(archive.name, "the zip holds no .json, .jsonl or .txt export file")
    return inputs
