"""Issue 22: the context pack's errors are codes the window says in Russian (the exported document
itself stays English)."""

from __future__ import annotations

import sqlite3

import pytest

from engine.export import ContextError, assemble_context
from engine.rerank.base import Selection
from tests.engine.russian_text import assert_russian


def test_a_bad_budget_is_said_in_russian(memory):
    with pytest.raises(ContextError) as caught:
        assemble_context(memory.connection, "q", [], [], 0)
    assert str(caught.value) == "The context budget must be a positive number of tokens, not 0."
    assert caught.value.render("ru") == "Бюджет контекста должен быть положительным числом токенов, а не 0."


def test_an_unreadable_store_is_said_in_russian(tmp_path):
    empty = sqlite3.connect(tmp_path / "empty.sqlite")  # no tables: the read fails
    with pytest.raises(ContextError) as caught:
        assemble_context(empty, "q", [Selection("topic", 7, "why")], [], 100)
    assert str(caught.value).startswith("Could not read topic 7 from the store: no such table")
    text = caught.value.render("ru")
    assert text.startswith("Не удалось прочитать из хранилища тему 7: ")
    assert_russian(text.split(": ")[0])
