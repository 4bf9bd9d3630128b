"""Issue 22: every message the engine can send has a rendering in English and Russian, with the
same parameters, and the engine's errors speak through codes."""

from __future__ import annotations

import ast
import re
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


# -- no English sentence raised as an engine error ---------------------------------------------
_CODE_LIKE = re.compile(r"^[A-Za-z0-9_.:\-]*$")  # a reason's name ("parse_error"), a code: not a sentence


def _is_text(node: ast.AST) -> bool:
    """A sentence written in place: an f-string, a string with anything but a name's characters,
    a `+` of such, or such a string's `.format(…)`."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return not _CODE_LIKE.match(node.value)
    if isinstance(node, ast.BinOp):
        return _is_text(node.left) or _is_text(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _is_text(node.func.value)
    return False


def _engine_error_classes(trees: dict[Path, ast.Module]) -> set[str]:
    """EngineError and every class in engine/ that derives from it, by name (transitively)."""
    bases: dict[str, set[str]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(ast.unparse(b).split(".")[-1] for b in node.bases)
    errors = {"EngineError"}
    while grown := {name for name, parents in bases.items() if name not in errors and parents & errors}:
        errors |= grown
    return errors


def _sentences_raised(folder: Path) -> list[str]:
    """`file:line: call` for every engine error given a sentence in the .py files under `folder`."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(folder.rglob("*.py"))}
    errors = _engine_error_classes(trees)
    found = []
    for path, tree in trees.items():
        calls = [node for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in errors]
        for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and node.name in errors):
            calls += [node for node in ast.walk(cls) if isinstance(node, ast.Call)
                      and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"
                      and ast.unparse(node.func.value) == "super()"]
        for call in calls:
            if any(_is_text(arg) for arg in [*call.args, *(keyword.value for keyword in call.keywords)]):
                found.append(f"{path.relative_to(folder)}:{call.lineno}: {ast.unparse(call)[:100]}")
    return sorted(set(found), key=lambda line: (line.split(":")[0], int(line.split(":")[1])))


def test_the_engine_raises_no_sentence_only_codes():
    """Issue 22: an engine error (`raise X(…)`, `X(…)` built to raise later, `super().__init__(…)`
    inside one) carries a code with parameters, never an English sentence written in place: the
    Russian window could not say it. Text that must stay text (a server's words, a bug's
    traceback) goes in as a parameter of a code. Nothing is allowed here by name."""
    assert _sentences_raised(ROOT / "engine") == []


def test_the_scan_sees_each_way_of_writing_a_sentence(tmp_path):
    """The scan, on code that breaks the rule each way it can (so it cannot pass by seeing nothing)."""
    (tmp_path / "bad.py").write_text('''
class MineError(EngineError):
    def __init__(self, detail):
        super().__init__(f"it failed: {detail}")
def go(n):
    raise EngineError("Something broke.")
def go2(n):
    raise MineError(where="line " + str(n))
def go3(n):
    return MineError("{} broke".format(n))
def fine(n):
    raise MineError("parse_error", msg("some.code", n=n))
''', encoding="utf-8")
    assert [int(line.split(":")[1]) for line in _sentences_raised(tmp_path)] == [4, 6, 8, 10]


def test_no_code_is_written_twice_in_a_catalogue():
    """A dict literal keeps the last of two equal keys without a word: a merge once left an older
    'cli.interrupted' below the new one, and the old, untrue sentence won (issue 31)."""
    import ast
    from pathlib import Path

    import engine.messages

    for language in ("en", "ru"):
        source = Path(engine.messages.__file__).with_name(f"{language}.py").read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Dict):
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                twice = sorted({k for k in keys if keys.count(k) > 1})
                assert not twice, f"{language}.py writes these codes twice: {twice}"
