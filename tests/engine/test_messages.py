"""Issue 22: every message the engine can send has a rendering in English and Russian, with the
same parameters, and the engine's errors speak through codes."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from engine.errors import EngineError, ImportCancelled, ImportFormatError
from engine.messages import LANGUAGES, Message, catalogue, msg, plural_form, render

ROOT = Path(__file__).resolve().parents[2]


def _fields(template: str) -> set[str]:
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_code_has_an_english_and_a_russian_rendering_with_the_same_parameters():
    english, russian = catalogue("en"), catalogue("ru")
    assert sorted(set(english) - set(russian)) == [], "codes without a Russian rendering"
    assert sorted(set(russian) - set(english)) == [], "Russian renderings of codes English does not have"
    mismatched = [code for code in english if _fields(english[code]) != _fields(russian[code])]
    assert mismatched == []


def _codes_used_in_engine() -> dict[str, str]:
    """Every code written in engine/: `code = "…"` class attributes, `msg("…")`, `Message("…")`."""
    used: dict[str, str] = {}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            literal = None
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "code" for t in node.targets):
                literal = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "code":
                literal = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("msg", "Message") \
                    and node.args:
                literal = node.args[0]
            if isinstance(literal, ast.Constant) and isinstance(literal.value, str) and "." in literal.value:
                used[literal.value] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return used


def test_every_code_the_engine_uses_is_in_the_catalogue():
    english = catalogue("en")
    missing = [f"{code} ({where})" for code, where in _codes_used_in_engine().items() if code not in english]
    assert missing == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_template_renders_with_its_own_parameters(language):
    for code, template in catalogue(language).items():
        params = {name: 2 for name in _fields(template)}
        text = render(Message(code, params), language)
        assert text and "{" not in text.replace("{{", ""), (code, text)


def test_errors_render_in_the_persons_language():
    error = ImportFormatError("chat.json", msg("import.cancelled"))
    assert str(error) == "Could not import chat.json: Import cancelled; nothing was changed."
    assert error.render("ru") == "Не удалось импортировать chat.json: Импорт отменён; ничего не изменено."
    assert ImportCancelled().render("ru_RU.UTF-8").startswith("Импорт отменён")
    assert isinstance(ImportCancelled().message, Message)


def test_plural_forms():
    assert [plural_form(n, ["тема", "темы", "тем"], "ru") for n in (1, 2, 5, 11, 21, 22, 25, 111)] == \
        ["тема", "темы", "тем", "тем", "тема", "темы", "тем", "тем"]
    assert render(Message("error.text", {"text": "x"}), "ru") == "x"
    assert [plural_form(n, ["topic", "topics"], "en") for n in (0, 1, 2)] == ["topics", "topic", "topics"]


def test_an_unknown_code_still_renders_something():
    assert "nope.code" in render(Message("nope.code", {"a": 1}), "ru")
    assert str(EngineError("plain")) == "plain"
