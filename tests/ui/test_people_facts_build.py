"""Issue 33, item 1: the window's build reads facts, but only after the person saw the estimate
and said yes. A real import and build (the child process), then the scripted Archivist over
real HTTP on 127.0.0.1 (tests/engine/facts/scripted.py); the People view shows what was read."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring
from PySide6.QtCore import Qt

from app.keys import KeyStore
from engine.api import Flashback
from engine.store.database import DB_FILE_NAME
from tests.engine.facts.scripted import DAY, FIRST, SECOND, answer
from tests.engine.topics.conftest import BASE, conversation, write_jsonl
from tests.fake_openai import FakeOpenAI
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


def _export(tmp_path):
    rows = conversation("Bob", BASE, FIRST, role_of={"Alice": "user"})
    rows += conversation("Bob", BASE + 5 * DAY, SECOND, first_id=100, role_of={"Alice": "user"})
    return write_jsonl(tmp_path / "alice_and_bob.jsonl", rows)


def _facts(data_dir) -> list[tuple[str, int]]:
    with closing(sqlite3.connect(data_dir / DB_FILE_NAME)) as connection:
        return connection.execute("SELECT f.text, count(fm.message_id) FROM fact f JOIN fact_message fm "
                                  "ON fm.fact_id = f.id WHERE f.state = 'active' GROUP BY f.id "
                                  "ORDER BY f.id").fetchall()


def _build_with_a_model(qtbot, window, tmp_path, server) -> None:
    qtbot.waitUntil(lambda: window.stats is not None)
    settings = window.search_panel.settings_panel
    settings.set_value("preset", "custom")
    settings.set_value("base_url", server.base_url)
    settings.set_value("model", "test/model")
    assert window.imports.import_paths([_export(tmp_path)])
    wait_idle(qtbot, window)
    panel = window.progress_panel
    qtbot.waitUntil(lambda: panel.read_facts_button.isVisible(), timeout=30_000)


def test_the_window_build_reads_facts_after_the_estimate_is_confirmed(qtbot, window, tmp_path):
    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", answer)
        _build_with_a_model(qtbot, window, tmp_path, server)
        panel = window.progress_panel
        # The estimate comes first, and nothing is sent before the person says yes.
        assert panel.title.text() == "Read facts from your topics?"
        assert "not read yet: about" in panel.stage.text() and "tokens in" in panel.stage.text()
        assert "test/model, free on your own server" in panel.stage.text()
        assert panel.skip_facts_button.isVisible()
        assert server.requests_to("/v1/chat/completions") == []

        qtbot.mouseClick(panel.read_facts_button, Qt.MouseButton.LeftButton)
        assert window.imports.busy and panel.cancel_button.isVisible()  # cancellable while it runs
        qtbot.waitUntil(lambda: not window.imports.busy, timeout=60_000)
        calls = server.requests_to("/v1/chat/completions")
    assert calls and all(r.body["model"] == "test/model" for r in calls)
    kept = _facts(tmp_path / "data")
    assert ("Lena moved to Berlin in March", 1) in kept and all(messages >= 1 for _text, messages in kept)
    assert not any("hunter2" in text or "Paris" in text for text, _messages in kept)
    assert panel.title.text() == "Facts read" and "added" in panel.stage.text()
    # The People view reads them again: the owner's card lists what was kept.
    people = window.people
    qtbot.waitUntil(lambda: people.card.data is not None and people.card.data.activity.person.is_self
                    and bool(people.card.rows), timeout=20_000)
    assert any("yoga" in row.fact.text or "nurse" in row.fact.text for row in people.card.rows.values())


def test_skipping_the_offer_reads_nothing(qtbot, window, tmp_path):
    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", answer)
        _build_with_a_model(qtbot, window, tmp_path, server)
        panel = window.progress_panel
        qtbot.mouseClick(panel.skip_facts_button, Qt.MouseButton.LeftButton)
        assert not window.imports.busy and not panel.read_facts_button.isVisible()
        assert "wait for the next build" in panel.stage.text() or "waits for the next build" in panel.stage.text()
        assert server.requests_to("/v1/chat/completions") == []
    assert _facts(tmp_path / "data") == []


def test_without_a_model_nothing_is_offered(qtbot, window, tmp_path):
    qtbot.waitUntil(lambda: window.stats is not None)
    window.search_panel.settings_panel.set_value("preset", "openrouter")  # needs a key, and none is set
    assert window.imports.import_paths([_export(tmp_path)])
    wait_idle(qtbot, window)
    assert window.progress_panel.title.text() == "Done" and not window.progress_panel.read_facts_button.isVisible()
    assert window.imports.offered is None


def test_cancel_stops_between_topics_and_the_next_build_resumes(qtbot, window, tmp_path):
    """The first topic's answer waits until the person has pressed Cancel: that topic is kept,
    the other stays unread, and the next offer counts only it."""
    first_asked, release = threading.Event(), threading.Event()

    def slow_answer(request):
        first_asked.set()
        release.wait(60)
        return answer(request)

    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", slow_answer)
        _build_with_a_model(qtbot, window, tmp_path, server)
        panel = window.progress_panel
        unread = window.imports.offered[0].topics
        assert unread >= 2
        qtbot.mouseClick(panel.read_facts_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(first_asked.is_set, timeout=30_000)
        assert panel.cancel_button.isEnabled()
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
        release.set()
        qtbot.waitUntil(lambda: not window.imports.busy, timeout=60_000)
        assert len(server.requests_to("/v1/chat/completions")) == 1
    assert panel.title.text() == "Facts read"
    assert "1 topic read" in panel.stage.text() and "the rest is read at the next build" in panel.stage.text()
    assert Flashback(tmp_path / "data").facts.estimate().topics == unread - 1
