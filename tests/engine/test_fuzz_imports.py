"""Property: whatever bytes arrive, an import either succeeds or raises the importer's own
error type, and a failed import leaves the store's file exactly as it was. A parser bug
(`registry.ParserBug`, anything but a known parse failure) fails these tests."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError, ImportFormatError
from engine.importers.runner import FORMATS, import_path
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


# FUZZ_EXAMPLES=1500 for a longer hunt (passed on 2026-11-25: each property, every format).
_SETTINGS = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "150")), deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(payload=mutated(), format_name=st.sampled_from(("auto", *FORMATS)))
def test_mutated_exports_raise_only_import_errors(tmp_path_factory, payload, format_name):
    _check(tmp_path_factory, payload, format_name)


@_SETTINGS
@given(payload=st.binary(max_size=400), format_name=st.sampled_from(("auto", *FORMATS)))
def test_random_bytes_raise_only_import_errors(tmp_path_factory, payload, format_name):
    _check(tmp_path_factory, payload, format_name)


# Valid JSON with a value of the wrong type somewhere: what breaks a parser's assumptions
# (a KeyError, a TypeError) rather than its tokenizer. Those must be import errors too; a
# ParserBug from here is a reader that trusted a field's type.
_CHATGPT = json.dumps([{
    "title": "Edge", "create_time": 1690000000.0, "update_time": 1690000100.0, "id": "c1", "current_node": "m2",
    "mapping": {
        "root": {"id": "root", "message": None, "parent": None, "children": ["m1"]},
        "m1": {"id": "m1", "parent": "root", "children": ["m2"], "message": {
            "id": "m1", "author": {"role": "user", "name": None, "metadata": {}}, "create_time": 1700000000.0,
            "content": {"content_type": "text", "parts": ["hello"]}, "status": "finished_successfully",
            "metadata": {}}},
        "m2": {"id": "m2", "parent": "m1", "children": [], "message": {
            "id": "m2", "author": {"role": "assistant", "name": None, "metadata": {}}, "create_time": 1700000050.0,
            "content": {"content_type": "text", "parts": ["hi there"]}, "status": "finished_successfully",
            "metadata": {}}}}}]).encode()
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=5)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


@st.composite
def retyped(draw) -> bytes:
    seed = draw(st.sampled_from([_TELEGRAM, _CHATGPT, *_JSONL.split(b"\n")[:1]]))
    document = json.loads(seed)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(document) if p]
        if not paths:
            break
        *parent, last = draw(st.sampled_from(paths))
        target = document
        for step in parent:
            target = target[step]
        target[last] = draw(_JSON_VALUES)
    return json.dumps(document).encode()


@_SETTINGS
@given(payload=retyped(), format_name=st.sampled_from(("auto", "telegram", "chatgpt", "jsonl")))
def test_fields_of_the_wrong_type_raise_only_import_errors(tmp_path_factory, payload, format_name):
    _check(tmp_path_factory, payload, format_name)
