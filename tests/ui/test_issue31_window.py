"""Issue 31's findings in the window: Ask against a chat server that is down, the first Ask's
time on the GUI thread, and the language menu saying when a switch takes effect."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

from tests.cli_run import ROOT
from tests.engine.ask.conftest import ScriptedModel
from tests.fake_openai import FakeOpenAI
from tests.ui.test_ask_mode import (  # noqa: F401 (fixtures)
    ANALYZE,
    CHAT,
    PLAN,
    VACUUM,
    answer_text,
    ask,
    data_dir,
    keys,
    server,
    use_server,
    window,
)


def closed_port_url() -> str:
    """A base URL nothing listens on: a port bound, then closed (the connection is refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# -- e. a server that is down is said to be unreachable, and nothing claims "not found" ----------

def test_ask_against_a_server_that_is_down_says_it_could_not_be_reached(qtbot, window):  # noqa: F811
    url = closed_port_url()
    settings = window.search_panel.settings_panel
    settings.set_value("preset", "custom")
    settings.set_value("base_url", url)
    settings.set_value("model", "test/ask")
    settings.set_value("threshold", 0.99)  # the threshold keeps nothing: only a model could have chosen
    ask(qtbot, window)
    view = window.search_panel.ask_view
    text = view.answer.toPlainText()
    assert "Not found in your chats" not in text and not (view.outcome.answer and view.outcome.answer.not_found)
    assert "Could not reach" in text and url in text, text
    assert view.outcome.sources, "the offline fallback shows the sources found"
    steps = view.steps.text()
    assert "✓ Answer" not in steps and "✓ Check" not in steps and "⚠ Answer" in steps, steps
    plan_tip = next(line for line in view.steps.toolTip().split("\nSearch:")[0].splitlines() if line)
    assert plan_tip.startswith("Plan:") and "could not be reached" in plan_tip, view.steps.toolTip()
    assert f"Could not reach the LLM server at {url}" in view.steps.toolTip()


# -- f. the first Ask after the window's warm-up keeps the GUI thread free ------------------------

def test_the_first_ask_after_warm_up_blocks_the_gui_thread_under_50_ms(data_dir, tmp_path):  # noqa: F811
    """In a fresh process (tests/ui/first_ask_probe.py), so nothing an earlier test loaded hides
    the first Ask's cost. The bound is on the GUI thread's own CPU time between two ticks of a
    5 ms timer, which two busy cores do not inflate (measured: 21-26 ms with the warm-up,
    287-306 ms without it, when the Ask flow, the HTTP stack, its TLS context, dateparser's
    data and the store's languages all loaded on the GUI thread)."""
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    with FakeOpenAI() as fake:
        fake.handle(CHAT, ScriptedModel(plan=PLAN, answer=answer_text(ANALYZE, VACUUM)))
        probe = subprocess.run([sys.executable, "-m", "tests.ui.first_ask_probe", str(data_dir), fake.base_url,
                                str(tmp_path / "qsettings")], cwd=ROOT, capture_output=True, text=True, timeout=300,
                               env={**environment, "QT_QPA_PLATFORM": "offscreen"})
    assert probe.returncode == 0, probe.stderr[-2000:]
    figures = json.loads(probe.stdout.strip().splitlines()[-1])
    assert figures["asked"] and figures["answered"] and figures["fallback"] is None, figures
    assert figures["max_cpu_ms"] < 50, f"the first Ask held the GUI thread for {figures}"


# -- g. the language menu says, before the switch, that it waits for a restart -----------------

def test_the_language_menu_says_a_switch_takes_effect_after_a_restart(qtbot, tmp_path):
    from engine.api import Flashback
    from tests.ui.conftest import FakeKeys
    from ui.main_window import MainWindow

    main = MainWindow(Flashback(tmp_path / "data"), FakeKeys())
    qtbot.addWidget(main)
    settings_menu = next(a.menu() for a in main.menuBar().actions() if a.menu() and "Settings" in a.text())
    language_menu = next(a.menu() for a in settings_menu.actions() if a.menu() and "Language" in a.text())
    items = [a for a in language_menu.actions() if not a.isSeparator()]
    note, choices = items[0], items[1:]
    assert "after a restart" in note.text() and "после перезапуска" in note.text()  # in both languages
    assert not note.isEnabled() and not note.isCheckable()  # a note, not a choice
    assert [a.data() for a in choices] == ["system", "en", "ru"]
