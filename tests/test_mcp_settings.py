"""The MCP server reads the engine's one record of saved settings (issue 31), again whenever the
file changes; where the file is, and the older config-folder file copied in once."""

from __future__ import annotations

import os
from pathlib import Path

from app.mcp_settings import SavedSettings, SettingsWatcher, load
from app.mcp_words import from_accept_language
from app.saved_settings import legacy_file, settings_file
from engine.api import UserSettings, settings_path, write_settings


def test_the_server_reads_the_engine_record_with_its_source(tmp_path):
    path = tmp_path / "Flashback.ini"
    assert load(path) == SavedSettings() and load(None) == SavedSettings()
    write_settings(path, {"gap": 0.2, "preset": "ollama", "rerank_preset": "tei"})
    read = load(path)
    assert isinstance(read, UserSettings) and read.source == str(path)
    assert (read.gap, read.preset, read.rerank_preset) == (0.2, "ollama", "tei")
    assert read.retrieval((3,), 1.0, 2.0).chat_ids == (3,)


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
    assert settings_file(data, True) == settings_path(data) == data / "Flashback" / "Flashback.ini"
    assert legacy_file({"XDG_CONFIG_HOME": "/x"}, "linux") == Path("/x/Flashback/Flashback.conf")
    assert legacy_file({}, "darwin") is None and legacy_file({}, "win32") is None


def test_the_default_data_folder_copies_the_older_file_once(tmp_path):
    config, data = tmp_path / "config", tmp_path / "data"
    older = config / "Flashback" / "Flashback.conf"
    older.parent.mkdir(parents=True)
    older.write_text("[search]\ngap=0.2\n", encoding="utf-8")
    environ = {"XDG_CONFIG_HOME": str(config)}
    assert settings_file(data, True, environ, "linux").exists() is False  # a named folder takes nothing
    path = settings_file(data, False, environ, "linux")
    assert load(path).gap == 0.2
    older.write_text("[search]\ngap=0.9\n", encoding="utf-8")
    assert load(settings_file(data, False, environ, "linux")).gap == 0.2


def test_accept_language():
    assert from_accept_language("ru-RU,ru;q=0.9,en;q=0.8") == "ru"
    assert from_accept_language("de, en;q=0.5, ru;q=0.7") == "ru"
    assert from_accept_language("de") is None and from_accept_language("ru;q=0") is None
