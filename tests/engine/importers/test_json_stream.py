"""json_stream.array_items: the streaming array reader behind the Telegram importer."""

from __future__ import annotations

import io
import json
import random

import ijson
import pytest

from engine.importers import json_stream
from engine.importers.json_stream import JsonCutOff, JsonDamaged, array_items
from tests.engine.importers.telegram_fixtures import message

ELEMENTS = [message(i, ["Привет ", {"type": "bold", "text": "всем 😀"}] if i % 2 else 'ёлка "q" \\ x\u2028',
                    reply_to_message_id=1, score=1.5, flag=None) for i in range(1, 6)]
ARRAY = json.dumps(ELEMENTS, ensure_ascii=False, indent=1).encode()


def items(data: bytes, chunk: int, monkeypatch) -> list:
    monkeypatch.setattr(json_stream, "_ARRAY_CHUNK", chunk)
    return list(array_items(io.BytesIO(data).read))


@pytest.mark.parametrize("chunk", [1, 3, 7, 64, 1 << 20])
def test_every_chunk_size_reads_the_same_elements(chunk, monkeypatch):
    assert items(ARRAY + b"\n, {garbage after the array", chunk, monkeypatch) == ELEMENTS
    assert items(b"  [ ]", chunk, monkeypatch) == []
    assert items(b"[1, \"a\", [2, {}], null]", chunk, monkeypatch) == [1, "a", [2, {}], None]


def test_an_element_longer_than_many_chunks(monkeypatch):
    long = [{"text": "ж" * 50_000}, {"text": "x"}]
    assert items(json.dumps(long, ensure_ascii=False).encode(), 100, monkeypatch) == long


@pytest.mark.parametrize("cut", [1, 10, 200, len(ARRAY) // 2, len(ARRAY) - 1])
def test_cut_off_input(cut, monkeypatch):
    with pytest.raises(JsonCutOff):
        items(ARRAY[:cut], 7, monkeypatch)


@pytest.mark.parametrize("bad", [b"[1 2]", b"[1,,2]", b"[{\"a\" 1}]", b"[NaN]", b"[{}x]", b"[tru]", b"[\"\x01\"]"])
def test_damaged_input(bad, monkeypatch):
    with pytest.raises(JsonDamaged):
        items(bad, 1 << 20, monkeypatch)


def test_bytes_that_are_not_utf8(monkeypatch):
    # after the array: not ours to judge (a later section of the file)
    assert items(b'[{"a": "\xc3\xa9"}] \xff\xfe trailing', 4, monkeypatch) == [{"a": "é"}]
    with pytest.raises(UnicodeDecodeError):
        items(b'[{"a": "x\xffy"}]', 1 << 20, monkeypatch)
    with pytest.raises(UnicodeDecodeError):
        items(b'[{"a": 1}, {"a": "x\xffy"}]', 3, monkeypatch)


def _ijson(data: bytes) -> tuple[list, bool]:
    found = []
    try:
        for value in ijson.items(io.BytesIO(data), "item", use_float=True):
            found.append(value)
    except ijson.JSONError as exc:
        return found, "trailing garbage" in str(exc)
    except UnicodeDecodeError:
        return found, False
    return found, True


def _ours(data: bytes) -> tuple[list, bool]:
    found = []
    try:
        for value in array_items(io.BytesIO(data).read):
            found.append(value)
    except (JsonCutOff, JsonDamaged, UnicodeDecodeError):
        return found, False
    return found, True


def test_damaged_arrays_never_read_more_than_ijson_did(monkeypatch):
    """Random damage: whatever ijson rejects is rejected too, and what both accept is equal.
    (The one known difference: ijson also takes form feed and vertical tab as spaces.)"""
    rng = random.Random(5)
    for _ in range(3000):
        monkeypatch.setattr(json_stream, "_ARRAY_CHUNK", rng.choice([5, 64, 1 << 20]))
        data = bytearray(ARRAY)
        for _ in range(rng.randint(1, 3)):
            if not data:
                break
            at = rng.randrange(len(data))
            action = rng.choice(["flip", "delete", "insert", "truncate"])
            if action == "flip":
                data[at] = rng.choice(b'{}[],:"\\ ax0\n\xff') if rng.random() < 0.8 else rng.randrange(256)
            elif action == "delete":
                del data[at:at + rng.randint(1, 5)]
            elif action == "insert":
                data[at:at] = bytes([rng.randrange(256)])
            else:
                del data[at:]
        if not data.lstrip().startswith(b"["):
            continue  # the importer only starts a reader at "messages": [
        theirs, their_ok = _ijson(bytes(data))
        ours, our_ok = _ours(bytes(data))
        if our_ok:
            assert their_ok and ours == theirs
        elif their_ok:
            assert b"\x0b" in data or b"\x0c" in data
