"""Settings → "Also make topics with this model": an import from the window builds its topics
with seed 004's splitter on the configured endpoint (the real child process, real HTTP to a
scripted server on 127.0.0.1), and the summary line says how many chunks the model split."""

from __future__ import annotations

import sqlite3

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring

from app.keys import KeyStore
from engine.api import Flashback
from tests.engine.topics.conftest import BASE, line, write_jsonl
from tests.fake_openai import FakeOpenAI
from tests.test_cli_build_llm import BROKEN, TRIP, scripted_agents
from tests.ui.test_main_window import isolate_qsettings, wait_idle
from ui.main_window import MainWindow


@pytest.fixture
def window(qtbot, qapp, tmp_path):
    isolate_qsettings(tmp_path / "qsettings")
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    window = MainWindow(Flashback(tmp_path / "data"), KeyStore())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window
    keyring.set_keyring(previous)


def export(tmp_path):
    rows = [line("Trip", n, author, BASE + 60 * n, text) for n, (author, text) in enumerate(TRIP)]
    rows += [line("Ledger", 100 + n, author, BASE + 60 * n, text) for n, (author, text) in enumerate(BROKEN)]
    return write_jsonl(tmp_path / "chats.jsonl", rows)


def topic_summaries(data_dir) -> dict[str, list[str]]:
    store = sqlite3.connect(data_dir / "flashback.sqlite3")
    try:
        rows = store.execute("SELECT c.title, t.summary FROM topic t JOIN chat c ON c.id = t.chat_id "
                             "ORDER BY c.title, t.first_at").fetchall()
    finally:
        store.close()
    found: dict[str, list[str]] = {}
    for title, summary in rows:
        found.setdefault(title, []).append(summary)
    return found


def test_import_builds_topics_with_the_model_when_asked(qtbot, window, tmp_path):
    qtbot.waitUntil(lambda: window.stats is not None)
    settings = window.search_panel.settings_panel
    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", scripted_agents)
        settings.set_value("preset", "custom")
        settings.set_value("base_url", server.base_url)
        settings.set_value("model", "test/model")
        settings.topics_llm.setChecked(True)  # as a click would
        assert settings.settings().topics_llm
        assert window.imports.import_paths([export(tmp_path)])
        wait_idle(qtbot, window)
        calls = server.requests_to("/v1/chat/completions")
    assert calls and all(r.body["model"] == "test/model" for r in calls)
    summaries = topic_summaries(tmp_path / "data")
    assert summaries["Trip"] == ["Model: Lisbon flights and the Alfama hotel", "Model: new bike brakes"]
    assert len(summaries["Ledger"]) == 1 and not summaries["Ledger"][0].startswith("Model:")
    assert "Split by the model: 1 chunks, 1 without it" in window.progress_panel.stage.text()


def test_without_the_setting_no_model_is_called(qtbot, window, tmp_path):
    qtbot.waitUntil(lambda: window.stats is not None)
    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", scripted_agents)
        settings = window.search_panel.settings_panel
        settings.set_value("preset", "custom")
        settings.set_value("base_url", server.base_url)
        assert not settings.settings().topics_llm
        assert window.imports.import_paths([export(tmp_path)])
        wait_idle(qtbot, window)
        assert server.requests_to("/v1/chat/completions") == []
    assert all(not s.startswith("Model:") for found in topic_summaries(tmp_path / "data").values() for s in found)
