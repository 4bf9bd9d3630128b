"""The one settings model (issue 31): every setting's default is within its own range and has help
in both languages; the engine's record holds exactly the saved settings; its reader and writer
round-trip every value; a value the schema does not allow is read as the default and named in
the log. Qt-free (the Qt side of the format: tests/ui/test_settings_file_qt.py)."""

from __future__ import annotations

import logging
import tempfile
import typing
from dataclasses import fields, replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.api import SETTINGS, SettingError, UserSettings, read_settings, render, write_settings
from engine.api.settings import SAVED
from engine.api.settings_file import escape, format_value, unescape
from engine.messages import en, ru

# A value other than the default for every saved setting, of the schema's type.
TUNED = {"mode": "flash", "candidates": 17, "hybrid": False, "threshold": 0.37, "gap": 0.08, "top_k": 2,
         "preset": "custom", "base_url": "http://127.0.0.1:8080/v1", "model": 'qwen, "the big one" — ё; a=b',
         "timeout": 240, "max_tool_calls": 4, "max_topics": 7, "max_people": 3, "max_artifacts": 0,
         "reasoning_effort": "high", "rewrite_query": False, "budget_tokens": 12345, "rerank_preset": "tei",
         "rerank_url": "http://127.0.0.1:8081", "rerank_model": " bge\treranker\\v2 ", "ce_threshold": 0.25,
         "ce_top_k": 4, "ce_top_n": 30, "ce_passage_tokens": 200, "ce_batch": 12, "ce_skip_small": False,
         "ce_skip_flat": False, "ce_timeout": 20, "chain_cross_encoder": True, "ce_chain_keep": 3,
         "topics_llm": True, "embedder": "local", "language": "ru"}


@pytest.mark.parametrize("spec", SETTINGS.values(), ids=list(SETTINGS))
def test_every_setting_has_a_default_it_allows_and_help_in_both_languages(spec):
    assert spec.check(spec.default) == spec.default
    assert type(spec.default) is spec.kind
    if spec.choices:
        assert spec.kind is str and spec.default in spec.choices
    if spec.kind in (int, float):
        assert spec.minimum is not None and spec.maximum is not None and spec.minimum < spec.maximum
    assert spec.help.code in en.CATALOGUE and spec.help.code in ru.CATALOGUE
    assert render(spec.help, "en") and render(spec.help, "ru") != render(spec.help, "en")


def test_the_record_holds_exactly_the_saved_settings_with_their_types_and_defaults():
    hints = typing.get_type_hints(UserSettings)
    assert sorted(f.name for f in fields(UserSettings)) == sorted(spec.key for spec in SAVED)
    for spec in SAVED:
        hint = hints[spec.key]
        assert (typing.get_origin(hint) is typing.Literal and spec.kind is str) or hint is spec.kind, spec.key
        assert getattr(UserSettings(), spec.key) == spec.default, spec.key
    assert set(TUNED) == {spec.key for spec in SAVED}
    assert all(TUNED[key] != SETTINGS[key].default for key in TUNED)


def test_what_the_engine_writes_it_reads_back(tmp_path):
    path = tmp_path / "Flashback" / "Flashback.ini"
    path.parent.mkdir()
    path.write_text("[General]\nfirst=1\n\n[window]\ngeometry=@ByteArray(\\x1\\0,=)\n\n[search]\ngap=0.5\n",
                    encoding="utf-8")
    write_settings(path, TUNED)
    assert read_settings(path) == UserSettings(**TUNED)
    text = path.read_text(encoding="utf-8")
    assert "geometry=@ByteArray(\\x1\\0,=)" in text and "first=1" in text  # other lines stay as they were
    assert text.count("gap=") == 1 and "[ui]\nlanguage=ru" in text
    write_settings(path, {"gap": 0.3})  # only the keys given change
    assert read_settings(path) == replace(UserSettings(**TUNED), gap=0.3)


def test_the_writer_refuses_what_the_schema_does_not_allow(tmp_path):
    path = tmp_path / "settings.ini"
    with pytest.raises(SettingError):
        write_settings(path, {"gap": 0.1, "top_k": 0})
    with pytest.raises(SettingError):
        write_settings(path, {"mode": "telepathy"})
    assert not path.exists()  # nothing half-written


def test_a_value_not_allowed_is_the_default_and_named_in_the_log(tmp_path, caplog):
    path = tmp_path / "settings.ini"
    path.write_text("[search]\ntop_k=999\nthreshold=-3\ncandidates=many\npreset=nowhere\nhybrid=maybe\n"
                    "model=@Variant(\\0\\0)\nmax_people=2.5\ngap=nan\nce_top_n=7\ntimeout=90\n"
                    "[other]\ntop_k=1\n[ui]\nlanguage=fr\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="engine.api.saved_settings"):
        read = read_settings(path)
    defaults = UserSettings()
    assert read == replace(defaults, ce_top_n=7, timeout=90)
    named = {record.getMessage().split("=")[0].removeprefix("settings: ") for record in caplog.records}
    assert named == {"search/top_k", "search/threshold", "search/candidates", "search/preset", "search/hybrid",
                     "search/model", "search/max_people", "search/gap", "ui/language"}


def test_a_missing_or_empty_file_is_every_default(tmp_path):
    assert read_settings(tmp_path / "none.ini") == UserSettings()
    (tmp_path / "empty.ini").write_text("", encoding="utf-8")
    assert read_settings(tmp_path / "empty.ini") == UserSettings()


def test_qt_ini_values_unescape():
    assert unescape('"a, b \\"c\\""') == 'a, b "c"'
    assert unescape("plain") == "plain" and unescape("a, b") is None and unescape("@ByteArray(x)") is None
    assert unescape("\\x414\\x66\\x451") == "Дfё"  # Qt 5 escaped non-ASCII, and a hex digit after an escape
    assert unescape("@String(x)") == "x" and unescape("a\\\\b\\tc") == "a\\b\tc" and unescape("@@x") == "@x"
    assert unescape("\\xd83d\\xde00") == "😀"  # a surrogate pair


@given(st.text())
def test_every_string_is_written_so_it_reads_back(text):
    assert unescape(escape(text)) == text
    with tempfile.TemporaryDirectory() as folder:  # hypothesis runs the test many times: no tmp_path
        path = Path(folder) / "settings.ini"
        write_settings(path, {"model": text, "rerank_model": "after"})
        write_settings(path, {"base_url": text})  # a second write finds the first's lines again
        assert (read_settings(path).model, read_settings(path).base_url) == (text, text)
        assert read_settings(path).rerank_model == "after"


@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers(-10**9, 10**9) | st.booleans())
def test_numbers_are_written_as_qt_writes_them(value):
    text = format_value(value)
    if isinstance(value, bool):
        assert text == ("true" if value else "false")
    else:
        assert float(text) == value and "," not in text
