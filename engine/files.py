"""Every file Flashback writes is private: 0600, its folders 0700, whatever the umask (issue 35).

What it writes is a person's chat history or made from it: the store, the indexes, the
calibration, the exported context, the labels, the log, an archive's unpacked chats. The CLI
and the window set a private umask at start (`app.privacy`), but the engine is also run by
other callers, and an exported file used to follow the user's umask (0644, or 0666 under
umask 000: chat text anyone on the machine could read or change). So the modes are said
here, explicitly, rather than left to the umask: a new file is created 0600 (and `fchmod`ed
to exactly that, as the umask can only narrow), a new folder 0700.

`write_private` replaces a file atomically (a temporary file beside it, then a rename), so a
reader sees the old file or the new one, never half of one, and a file that was wider than
private is replaced by a private one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def private_folder(path: Path) -> Path:
    """Make `path` (and missing parents) as folders only their owner can enter; an existing
    folder is left as it is (it may not be ours: `app.privacy.tighten` narrows our own)."""
    path = Path(path)
    missing = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            continue  # made by another process in between
        os.chmod(folder, FOLDER_MODE)  # mkdir's mode is masked by the umask: say it exactly
    return path


@contextlib.contextmanager
def private_temporary(path: Path) -> Iterator[tuple[BinaryIO, Path]]:
    """A new 0600 file beside `path`, open for writing; renamed over `path` when the block ends
    without an error, removed otherwise."""
    path = Path(path)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # 0600 by itself
    temporary = Path(name)
    try:
        if hasattr(os, "fchmod"):  # POSIX: mkstemp's 0600 already; said again so no umask can matter
            os.fchmod(handle, FILE_MODE)
        with os.fdopen(handle, "wb") as stream:
            yield stream, temporary
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_private(path: Path, data: str | bytes, encoding: str = "utf-8") -> None:
    """Replace `path` with `data` (text is encoded with `encoding`), as a 0600 file, atomically."""
    with private_temporary(path) as (stream, _temporary):
        stream.write(data.encode(encoding) if isinstance(data, str) else data)


def create_private(path: Path) -> BinaryIO:
    """A new file at `path`, 0600, open for writing in binary (truncated if it exists)."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    if hasattr(os, "fchmod"):
        os.fchmod(handle, FILE_MODE)  # an existing file keeps its mode through O_CREAT: narrow it
    return os.fdopen(handle, "wb")
