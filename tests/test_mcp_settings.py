"""The MCP server reads the window's saved search settings without Qt: what QSettings writes (the
window's own `save`), the server reads back exactly as the window's `load` does."""

from __future__ import annotations

import os
from dataclasses import fields, replace
from pathlib import Path

import pytest

from app.mcp_settings import SavedSettings, SettingsWatcher, load, settings_file, unescape
from app.mcp_words import from_accept_language


def _window_round_trip(path: Path, values: dict):
    QSettings = pytest.importorskip("PySide6.QtCore").QSettings  # noqa: N806 (a class)
    from ui.search import settings_model

    written = replace(settings_model.SearchSettings(), **values)
    store = QSettings(str(path), QSettings.Format.IniFormat)
    settings_model.save(store, written)
    store.setValue("General/geometry", b"\x01\x02,\n=[search]")  # other groups hold anything
    store.sync()
    return settings_model.load(QSettings(str(path), QSettings.Format.IniFormat))


def test_what_the_window_saves_the_server_reads(tmp_path):
    tuned = {"candidates": 17, "hybrid": False, "threshold": 0.37, "gap": 0.08, "top_k": 2, "preset": "custom",
             "base_url": "http://127.0.0.1:8080/v1", "model": 'qwen, "the big one" — ё',
             "reasoning_effort": "high", "timeout": 240, "max_tool_calls": 4, "max_topics": 7, "max_people": 3,
             "max_artifacts": 0, "rewrite_query": False, "budget_tokens": 12345,
             "rerank_preset": "tei", "rerank_url": "http://127.0.0.1:8081", "rerank_model": "bge-reranker-v2-m3",
             "ce_threshold": 0.25, "ce_top_k": 4, "ce_top_n": 30, "ce_passage_tokens": 200, "ce_batch": 12,
             "ce_skip_small": False, "ce_skip_flat": False, "ce_timeout": 20, "ce_chain_keep": 3}
    path = tmp_path / "Flashback" / "Flashback.ini"
    window = _window_round_trip(path, tuned)
    server = load(path)
    for spec in fields(SavedSettings):
        if spec.name != "source":
            assert getattr(server, spec.name) == getattr(window, spec.name) == tuned[spec.name], spec.name
    assert server.source == str(path)
    assert server.flash_settings() == window.flash_settings()
    assert server.threshold_settings() == window.threshold_settings()
    assert server.endpoint("k") == window.endpoint("k")
    assert server.cross_encoder_settings() == window.cross_encoder_settings()
    assert server.rerank_endpoint("k") == window.rerank_endpoint("k")


def test_out_of_range_or_broken_values_are_clamped_or_defaulted_like_the_window(tmp_path):
    path = tmp_path / "Flashback.ini"
    path.write_text("[search]\ntop_k=999\nthreshold=-3\ncandidates=many\npreset=nowhere\nhybrid=false\n"
                    "model=@Variant(\\0\\0)\n[other]\ntop_k=1\n", encoding="utf-8")
    read = load(path)
    assert (read.top_k, read.threshold, read.candidates) == (50, 0.0, SavedSettings().candidates)
    assert read.preset == "openrouter" and read.hybrid is False and read.model == SavedSettings().model


def test_a_retuned_window_applies_to_the_next_call(tmp_path):
    path = tmp_path / "Flashback.ini"
    watcher = SettingsWatcher(path)
    assert watcher.current() == SavedSettings()  # no file yet: the defaults
    path.write_text("[search]\ntop_k=1\n", encoding="utf-8")
    assert watcher.current().top_k == 1
    path.write_text("[search]\ntop_k=4\nthreshold=0.6\n", encoding="utf-8")
    os.utime(path, (1, 1))  # a second write within the file system's time resolution
    assert (watcher.current().top_k, watcher.current().threshold) == (4, 0.6)


def test_where_the_settings_are(tmp_path):
    data = tmp_path / "data"
    assert settings_file(data, True) == data / "Flashback" / "Flashback.ini"
    assert settings_file(data, False, {"XDG_CONFIG_HOME": "/x"}, "linux") == Path("/x/Flashback/Flashback.conf")
    assert settings_file(data, False, {}, "darwin") is None and settings_file(data, False, {}, "win32") is None


def test_qt_ini_values_unescape():
    assert unescape('"a, b \\"c\\""') == 'a, b "c"'
    assert unescape("plain") == "plain" and unescape("a, b") is None and unescape("@ByteArray(x)") is None
    assert unescape("\\x414\\x66\\x451") == "Дfё"  # Qt escapes a hex digit after an escape too
    assert unescape("@String(x)") == "x" and unescape("a\\\\b\\tc") == "a\\b\tc"


def test_accept_language():
    assert from_accept_language("ru-RU,ru;q=0.9,en;q=0.8") == "ru"
    assert from_accept_language("de, en;q=0.5, ru;q=0.7") == "ru"
    assert from_accept_language("de") is None and from_accept_language("ru;q=0") is None
