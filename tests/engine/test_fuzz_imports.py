"""Property: whatever bytes arrive, an import either succeeds or raises the importer's own
error type, and a failed import leaves the store's file exactly as it was."""

from __future__ import annotations

import hashlib
import json
import sqlite3

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError, ImportFormatError
from engine.importers.service import FORMATS, import_path
from engine.store.database import db_path
from tests.engine.importers.telegram_fixtures import account_export, chat, message

_TELEGRAM = json.dumps(account_export([chat("Группа", 7, [
    message(1, ["Привет ", {"type": "bold", "text": "всем"}]),
    message(2, "", photo="photos/a.jpg"),
    message(3, "ответ", reply_to_message_id=1),
])]), ensure_ascii=False, indent=1).encode()
_JSONL = b"\n".join(json.dumps({"chat": "c", "id": str(i), "author": "A", "date": "2024-01-01T10:00:00",
                                "text": f"t{i}"}).encode() for i in range(5))
_WHATSAPP = b"01/02/2024, 10:00 - Anna: hi\n01/02/2024, 10:01 - Bob: hello\nsecond line\n"
SEEDS = [_TELEGRAM, _JSONL, _WHATSAPP]


@st.composite
def mutated(draw) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["flip", "delete", "insert", "truncate"]))
        if action == "flip":
            data[at] = draw(st.integers(0, 255))
        elif action == "delete":
            del data[at:at + draw(st.integers(1, 20))]
        elif action == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:
            del data[at:]
    return bytes(data)


def _fingerprint(data_dir) -> str:
    conn = sqlite3.connect(db_path(data_dir))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return hashlib.sha256(db_path(data_dir).read_bytes()).hexdigest()


def _check(tmp_path_factory, payload: bytes, format_name: str) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    data_dir = folder / "store"
    import_path(data_dir, _seed_file(folder))
    before = _fingerprint(data_dir)
    target = folder / "export.bin"
    target.write_bytes(payload)
    try:
        import_path(data_dir, target, format_name)
    except ImportFormatError:
        assert _fingerprint(data_dir) == before
    except EngineError as exc:  # pragma: no cover - would be a wrong error type
        raise AssertionError(f"unexpected engine error {exc!r}") from exc


def _seed_file(folder):
    path = folder / "seed.jsonl"
    path.write_bytes(_JSONL)
    return path


_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(payload=mutated(), format_name=st.sampled_from(("auto", *FORMATS)))
def test_mutated_exports_raise_only_import_errors(tmp_path_factory, payload, format_name):
    _check(tmp_path_factory, payload, format_name)


@_SETTINGS
@given(payload=st.binary(max_size=400), format_name=st.sampled_from(("auto", *FORMATS)))
def test_random_bytes_raise_only_import_errors(tmp_path_factory, payload, format_name):
    _check(tmp_path_factory, payload, format_name)
