"""The guard between a parser and the person: a malformed file is an import error in plain
words; a parser bug is reported as a bug, never as "your file is damaged"."""

from __future__ import annotations

import pytest

from engine.errors import EngineError, ImportFormatError
from engine.importers.base import Importer
from engine.importers.inputs import ExportInput
from engine.importers.records import ChatRecord, MessageRecord
from engine.importers.registry import ParserBug, guarded


class FailsAfterOneMessage(Importer):
    """A parser that reads one message and then raises what it is given."""

    format_name = "test"

    def __init__(self, error: BaseException) -> None:
        self.error = error

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        return True

    def parse(self, source, report):
        yield ChatRecord("c", "Chat", "private")
        yield MessageRecord(chat_key="c", external_id="1", author="A", author_key=None, role="other", sent_at=0.0,
                            text="hi", where="message 1")
        raise self.error


def drain(error: BaseException, tmp_path) -> None:
    path = tmp_path / "export.json"
    path.write_text("{}")
    list(guarded(FailsAfterOneMessage(error), ExportInput(path, "export.json"), lambda _done: None))


@pytest.mark.parametrize("error", [ValueError("Expecting ',' delimiter"),
                                   UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
                                   RecursionError("maximum recursion depth exceeded")])
def test_a_malformed_file_is_an_import_error_with_the_place(error, tmp_path):
    with pytest.raises(ImportFormatError) as caught:
        drain(error, tmp_path)
    assert "did not expect" in str(caught.value) and caught.value.where == "message 1"


@pytest.mark.parametrize("error", [KeyError("from_id"), TypeError("'int' object is not subscriptable"),
                                   AttributeError("'list' object has no attribute 'get'")])
def test_a_parser_bug_is_a_bug_not_a_damaged_file(error, tmp_path):
    with pytest.raises(ParserBug) as caught:
        drain(error, tmp_path)
    assert not isinstance(caught.value, EngineError)  # the CLI and window say "please report", with the log
    assert type(error).__name__ in str(caught.value) and "message 1" in str(caught.value)
    assert caught.value.__cause__ is error
