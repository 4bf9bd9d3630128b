"""Issue 22: a bug planted in any importer is reported as a bug, never as a damaged file.

The fuzz tests (tests/engine/test_fuzz_imports.py) can only catch a parser bug if it reaches
the registry's guard (`registry.guarded`), which turns it into `ParserBug`. An importer that
catches TypeError, AttributeError or KeyError itself and calls the file damaged hides every
such bug from them (the Telegram and ChatGPT importers did). So each importer gets a bug
planted in the helper that turns one raw message into a record (the code a real bug would
sit in), and the fuzz tests' own check must then fail with `ParserBug`.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from engine.errors import ImportFormatError
from engine.importers import chatgpt, jsonl, telegram, whatsapp
from engine.importers.registry import ParserBug
from engine.importers.runner import import_path
from tests.engine import test_fuzz_imports as fuzz
from tests.engine.importers.telegram_fixtures import account_export, chat, message

# The helper each importer calls once per message, and a payload that reaches it twice.
_PLANTS = {
    "telegram": (telegram, "_message_record", fuzz._TELEGRAM),
    "chatgpt": (chatgpt, "_message_record", fuzz._CHATGPT),
    "jsonl": (jsonl, "_message", fuzz._JSONL),
    "whatsapp": (whatsapp, "_message", fuzz._WHATSAPP),
}
_BUGS = [TypeError("'NoneType' object is not subscriptable"), AttributeError("'list' object has no attribute 'get'"),
         KeyError("from_id")]


def plant(monkeypatch, format_name: str, bug: BaseException) -> None:
    """From the second message on, the helper fails as a bug in it would."""
    module, helper, _ = _PLANTS[format_name]
    original = getattr(module, helper)
    calls = []

    def buggy(*args, **kwargs):
        calls.append(1)
        if len(calls) >= 2:
            raise bug
        return original(*args, **kwargs)

    monkeypatch.setattr(module, helper, buggy)


@pytest.mark.parametrize("bug", _BUGS, ids=lambda bug: type(bug).__name__)
@pytest.mark.parametrize("format_name", sorted(_PLANTS))
def test_a_bug_planted_in_an_importer_fails_the_fuzz_check_as_a_parser_bug(
        tmp_path_factory, monkeypatch, format_name, bug):
    payload = _PLANTS[format_name][2]
    fuzz._check(tmp_path_factory, payload, format_name)  # unplanted: the payload imports
    plant(monkeypatch, format_name, bug)
    with pytest.raises(ParserBug) as caught:
        fuzz._check(tmp_path_factory, payload, format_name)
    assert caught.value.format_name == format_name and type(bug).__name__ in caught.value.detail
    assert caught.value.__cause__ is bug


@pytest.mark.parametrize("format_name", ["telegram", "chatgpt"])
def test_the_wrong_type_fuzz_property_finds_a_planted_bug(tmp_path_factory, monkeypatch, format_name):
    """The fuzz property itself (its body and its payloads, here for the one format and
    without shrinking, to keep it quick) fails on the planted bug: the shape the issue
    reported, a bug that had survived every fuzz test."""
    body = fuzz.test_fields_of_the_wrong_type_raise_only_import_errors.hypothesis.inner_test
    hunt = settings(max_examples=150, deadline=None, phases=[Phase.generate], database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])(
        given(payload=fuzz.retyped(), format_name=st.just(format_name))(body))
    plant(monkeypatch, format_name, TypeError("planted"))
    with pytest.raises(ParserBug):
        hunt(tmp_path_factory)


def _telegram_with(**fields) -> bytes:
    return json.dumps(account_export([chat("Group", 7, [message(1, "hi"), message(2, "there", **fields)])])).encode()


def _chatgpt_with_parent(parent) -> bytes:
    document = json.loads(fuzz._CHATGPT)
    document[0]["mapping"]["m1"]["parent"] = parent
    del document[0]["current_node"]  # found from the roots, which reads every node's parent
    return json.dumps(document).encode()


# Shapes the importers' blanket `except TypeError` used to call damaged: still an import
# error in plain words (or read), and the store is left as it was; never a ParserBug.
@pytest.mark.parametrize(("format_name", "payload", "words"), [
    ("telegram", _telegram_with(date_unixtime=[1]), "not a date"),
    ("telegram", _telegram_with(date_unixtime={"s": 1}), "not a date"),
    ("telegram", _telegram_with(date_unixtime="soon"), "not a date"),
    ("telegram", _telegram_with(date_unixtime=10**400), "not a date"),
    ("telegram", _telegram_with(date_unixtime=None, date="0000-13-45"), "not a date"),
    ("telegram", _telegram_with(poll={"question": "?", "answers": 5}), None),
    ("chatgpt", _chatgpt_with_parent(["root"]), None),
    ("chatgpt", _chatgpt_with_parent({"id": "root"}), None),
    ("jsonl", b'{"chat": "c", "id": "1", "author": "A", "date": "2024-01-01", "text": "t", "attachments": 5}',
     "attachments must be a list"),
])
def test_malformed_shapes_are_import_errors_not_bugs(tmp_path_factory, format_name, payload, words):
    for name in (format_name, "auto"):
        fuzz._check(tmp_path_factory, payload, name)  # read, or an import error that kept the store as it was
        if words is not None:
            with pytest.raises(ImportFormatError, match=words):
                import_path(tmp_path_factory.mktemp("store"), _written(tmp_path_factory, payload), name)


def _written(tmp_path_factory, payload: bytes):
    path = tmp_path_factory.mktemp("export") / "export.bin"
    path.write_bytes(payload)
    return path
