"""What an index file was built from, and the checks that decide whether it can still be used.

Every hnswlib file has a JSON sidecar next to it (`topics.hnsw` → `topics.hnsw.json`) holding
the embedding model, dimension, live count, build parameters and the store checksum it was
built against, plus the size and CRC-32 of the binary. The CRC pairs the two files: a save is
two renames, and a crash between them leaves a binary and a sidecar from different saves,
which must read as corrupt rather than be trusted. It also keeps truncated or damaged bytes
away from hnswlib's loader, which cannot tell a wrong dimension from a right one.

Reading the CRC means reading the whole binary once more before hnswlib reads it: 0.3-0.7 s
of a first search on a 300k-message store (issue 26). The sidecar therefore also records the
binary's identity as saved (inode, modification time in ns, size: a rename keeps all three),
and a binary that still has it is the one the sidecar describes without being read twice.
A binary replaced by a crash between the renames, or copied, or written to in place, has
another identity and has its CRC checked as before; `flashback check` always checks it.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from engine.errors import EngineError
from engine.messages import Message, msg

FORMAT_VERSION = 1
_CRC_CHUNK = 1 << 20


@dataclass(frozen=True)
class IndexMeta:
    """What an index holds and was built from; `count` is the number of live (searchable) items."""

    model_id: str
    dim: int
    count: int
    params: dict = field(default_factory=dict)
    store_checksum: str = ""


class IndexUnusable(EngineError):
    """A saved index cannot be used as it is; the caller rebuilds it from the store.

    `reason` is "missing", "corrupt: …" or "stale: …" (model, store, dimension, count or
    format changed since it was saved), in English for logs and notes; `reason_message` is the
    same as a code (`index.*`), for a face to say in the person's language.
    """

    code = "index.unusable"

    def __init__(self, path: Path, reason: Message) -> None:
        self.path = Path(path)
        self.reason_message = reason
        self.reason = str(reason)
        super().__init__(name=self.path.name, reason=reason)


class _BadSidecar(ValueError):
    """A sidecar field of the wrong type; `reason` says which (read_sidecar turns it into IndexUnusable)."""

    def __init__(self, reason: Message) -> None:
        super().__init__(str(reason))
        self.reason = reason


@dataclass(frozen=True)
class Sidecar:
    """The parsed sidecar: the meta plus what only the index package needs."""

    meta: IndexMeta
    elements: int  # stored items including deleted ones (hnswlib's element_count)
    deleted: frozenset[int]
    binary_bytes: int
    binary_crc32: int
    saved_at: float
    binary_identity: tuple[int, int] | None = None  # (st_ino, st_mtime_ns) of the binary as saved


def file_identity(path: Path) -> tuple[int, int]:
    """What changes when a file is replaced or written to (not when it is renamed)."""
    stat = Path(path).stat()
    return stat.st_ino, stat.st_mtime_ns


def sidecar_path(index_path: Path) -> Path:
    index_path = Path(index_path)
    return index_path.with_name(index_path.name + ".json")


def file_crc32(path: Path) -> int:
    with open(path, "rb") as handle:
        return _crc32_of(handle)


def sidecar_json(sidecar: Sidecar) -> str:
    meta = sidecar.meta
    return json.dumps({
        "format": FORMAT_VERSION,
        "model_id": meta.model_id,
        "dim": meta.dim,
        "count": meta.count,
        "params": meta.params,
        "store_checksum": meta.store_checksum,
        "elements": sidecar.elements,
        "deleted": sorted(sidecar.deleted),
        "binary": {"bytes": sidecar.binary_bytes, "crc32": sidecar.binary_crc32,
                   **({"identity": list(sidecar.binary_identity)} if sidecar.binary_identity else {})},
        "saved_at": sidecar.saved_at,
    }, indent=1, ensure_ascii=False)


def read_sidecar(index_path: Path) -> Sidecar:
    """Parse and type-check the sidecar of `index_path`; raises IndexUnusable ("missing"/"corrupt")."""
    path = sidecar_path(index_path)
    if not path.is_file() or not Path(index_path).is_file():
        raise IndexUnusable(index_path, msg("index.missing"))
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IndexUnusable(index_path, msg("index.corrupt.sidecar_unreadable", error=str(exc))) from exc
    if not isinstance(raw, dict):
        raise IndexUnusable(index_path, msg("index.corrupt.sidecar_not_object"))
    version = raw.get("format")
    if not isinstance(version, int) or isinstance(version, bool):
        raise IndexUnusable(index_path, msg("index.corrupt.no_format"))
    if version != FORMAT_VERSION:
        # Checked first: another version's fields may legitimately differ from ours.
        raise IndexUnusable(index_path, msg("index.stale.format", found=repr(version), expected=FORMAT_VERSION))
    try:
        binary = _field(raw, "binary", dict)
        meta = IndexMeta(
            model_id=_field(raw, "model_id", str),
            dim=_field(raw, "dim", int),
            count=_field(raw, "count", int),
            params=_field(raw, "params", dict),
            store_checksum=_field(raw, "store_checksum", str),
        )
        deleted = _field(raw, "deleted", list)
        if not all(isinstance(label, int) and not isinstance(label, bool) for label in deleted):
            raise _BadSidecar(msg("index.corrupt.sidecar_deleted"))
        return Sidecar(
            meta=meta,
            elements=_field(raw, "elements", int),
            deleted=frozenset(deleted),
            binary_bytes=_field(binary, "bytes", int),
            binary_crc32=_field(binary, "crc32", int),
            saved_at=float(_field(raw, "saved_at", (int, float))),
            binary_identity=_identity(binary.get("identity")),
        )
    except _BadSidecar as exc:
        raise IndexUnusable(index_path, exc.reason) from exc


def check_against(index_path: Path, saved: IndexMeta, expected: IndexMeta, *, store: bool = True) -> None:
    """Raise IndexUnusable("stale: …") when what the index was built from is not what the store has now.
    With `store=False` only the model and dimension must match: an older index of the same
    model, searched while a build elsewhere makes the new one."""
    if saved.model_id != expected.model_id:
        raise IndexUnusable(index_path, msg("index.stale.model", saved=saved.model_id, expected=expected.model_id))
    if saved.dim != expected.dim:
        raise IndexUnusable(index_path, msg("index.stale.dimension", saved=saved.dim, expected=expected.dim))
    if not store:
        return
    if saved.store_checksum != expected.store_checksum:
        raise IndexUnusable(index_path, msg("index.stale.store"))
    if saved.count != expected.count:
        raise IndexUnusable(index_path, msg("index.stale.count", saved=saved.count, expected=expected.count))


def _identity(value: object) -> tuple[int, int] | None:
    """An optional field (sidecars written before issue 26 have none): two integers, or None."""
    if (isinstance(value, list) and len(value) == 2
            and all(isinstance(part, int) and not isinstance(part, bool) for part in value)):
        return value[0], value[1]
    return None


def check_binary(index_path: Path, sidecar: Sidecar, handle: BinaryIO, *, full: bool = False) -> None:
    """Raise IndexUnusable("corrupt: …") unless the binary `handle` has open (the caller's, so
    what is checked is what is read, whatever another process renames onto `index_path`) is
    exactly the one the sidecar describes: its size, then its identity as saved, else (or with
    `full`) its CRC (the module docstring)."""
    stat = os.fstat(handle.fileno())
    if stat.st_size != sidecar.binary_bytes:
        raise IndexUnusable(index_path, msg("index.corrupt.size", size=stat.st_size, expected=sidecar.binary_bytes))
    if not full and sidecar.binary_identity is not None and (stat.st_ino, stat.st_mtime_ns) == sidecar.binary_identity:
        return
    if _crc32_of(handle) != sidecar.binary_crc32:
        raise IndexUnusable(index_path, msg("index.corrupt.checksum"))


def _crc32_of(handle: BinaryIO) -> int:
    handle.seek(0)
    crc = 0
    while chunk := handle.read(_CRC_CHUNK):
        crc = zlib.crc32(chunk, crc)
    handle.seek(0)
    return crc


def _field(raw: dict, name: str, kind: type | tuple[type, ...]) -> Any:
    value = raw.get(name)
    # bool is an int subclass: a `true` count is as wrong as a missing one.
    if not isinstance(value, kind) or isinstance(value, bool):
        raise _BadSidecar(msg("index.corrupt.sidecar_field", field=repr(name), kind=_kind_name(kind)))
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str | Message:
    if not isinstance(kind, tuple):
        return kind.__name__
    if len(kind) == 1:
        return kind[0].__name__
    return msg("index.either_kind", first=kind[0].__name__, second=_kind_name(kind[1:]))
