"""Ask mode in the window (issue 27), against the scripted OpenAI-compatible server (real HTTP on
127.0.0.1) over the demo store: Ctrl+Enter asks; the answer's [n] links open the cited messages
highlighted; an unsupported claim is marked; the plan's chips are edited and asked again; cancel
keeps what was found; no model gives the sources and one sentence; the cloud notice comes once;
a recorded Ask run is asked again from the run history and compared."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QMessageBox, QToolButton

import resources
from engine.api import Flashback
from tests.engine.ask.conftest import ScriptedModel, source_number
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest, chat_reply
from tests.ui.conftest import FakeKeys, deliver_posted_events
from tests.ui.test_main_window import isolate_qsettings
from ui.main_window import MainWindow
from ui.search.ask_mode import NOTICE_KEY

CHAT = "/v1/chat/completions"
QUESTION = "What went wrong after the Postgres upgrade?"
PLAN = {"queries": {"en": ["Postgres upgrade problems", "what broke after pg_upgrade"],
                    "ru": ["обновление Postgres"]}, "dates": "", "chats": [], "people": []}
ANALYZE = ("Nobody ran ANALYZE after pg_upgrade, which caused 38 minutes of degraded latency on orders, "
           "with no data loss.", "Root cause: no ANALYZE")
VACUUM = ("The fix is to run vacuumdb --all --analyze-in-stages after pg_upgrade.", "vacuumdb --all")
ROLLBACK = ("The team rolled back to Postgres 9.6 on May 30.", "Root cause: no ANALYZE")


def answer_text(*claims: tuple[str, str]):
    """A free-text answer (the tools protocol asks for one): each claim ends with the [n] of the
    source that holds its needle."""
    def reply(request: RecordedRequest) -> FakeResponse:
        text = " ".join(f"{claim} [{source_number(request.body, needle) or 1}]" for claim, needle in claims)
        return FakeResponse(json=chat_reply(text))
    return reply


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    """The demo store, built once for the module (each test records its runs in it)."""
    data = tmp_path_factory.mktemp("ask-window") / "data"
    service = Flashback(data)
    service.imports.import_path(resources.demo_export())
    service.memory.build()
    return data


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def keys() -> FakeKeys:
    return FakeKeys()


@pytest.fixture
def window(qtbot, qasync_loop, tmp_path, data_dir, keys) -> MainWindow:
    isolate_qsettings(tmp_path / "qsettings")
    window = MainWindow(Flashback(data_dir, origin="window"), keys)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.stats is not None and window.stats.topics > 0)
    qtbot.waitUntil(lambda: window.search_panel.settings_panel.combo("chat_id").count() > 1, timeout=10_000)
    return window


def use_server(window: MainWindow, server: FakeOpenAI, preset: str = "custom") -> None:
    settings = window.search_panel.settings_panel
    settings.set_value("preset", preset)
    settings.set_value("base_url", server.base_url)
    settings.set_value("model", "test/ask")


def ask(qtbot, window: MainWindow, question: str = QUESTION) -> None:
    panel = window.search_panel
    panel.query.setText(question)
    qtbot.keyClick(panel.query, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # Ctrl+Enter asks
    wait_answered(qtbot, window)


def wait_answered(qtbot, window: MainWindow) -> None:
    view = window.search_panel.ask_view
    qtbot.waitUntil(lambda: not window.search_panel.asking.running() and view.outcome is not None
                    and not view.running, timeout=30_000)


def anchors(view) -> dict[int, int]:
    """Source number → the document position of its first [n] link."""
    found: dict[int, int] = {}
    block = view.answer.document().begin()
    while block.isValid():
        for item in block:
            fragment = item.fragment()
            href = fragment.charFormat().anchorHref()
            if href.startswith("cite:"):
                found.setdefault(int(href[5:]), fragment.position())
        block = block.next()
    return found


def fragments(view) -> list:
    found = []
    block = view.answer.document().begin()
    while block.isValid():
        found.extend(item.fragment() for item in block)
        block = block.next()
    return found


def click_link(qtbot, view, position: int) -> None:
    cursor = QTextCursor(view.answer.document())
    cursor.setPosition(position + 1)
    view.answer.setTextCursor(cursor)
    view.answer.ensureCursorVisible()
    qtbot.mouseClick(view.answer.viewport(), Qt.MouseButton.LeftButton, pos=view.answer.cursorRect(cursor).center())


def test_an_answer_with_links_to_highlighted_messages_and_a_marked_claim(qtbot, window, server, screenshots_dir):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=answer_text(ANALYZE, VACUUM, ROLLBACK)))
    use_server(window, server)
    panel, view = window.search_panel, window.search_panel.ask_view
    recorded: list[int] = []
    panel.run_recorded.connect(recorded.append)
    ask(qtbot, window)

    outcome = view.outcome
    assert panel.mode() == "ask" and view.isVisible() and outcome.fallback is None
    assert [s.name for s in outcome.steps][:6] == ["plan", "search", "rerank", "compose", "answer", "verify"]
    assert all("✓" in part for part in view.steps.text().split("›")[:5])  # progress: every step done
    # The plan as chips: the question, then the model's sub-queries.
    assert [c.text() for c in view.plan_chips.chips] == outcome.plan.subqueries
    # Every citation is a link; the answer reads as the model wrote it.
    claims = outcome.answer.claims
    cited = sorted({n for claim in claims for n in claim.citations})
    assert sorted(anchors(view)) == sorted({*cited, *(s.number for s in outcome.sources)})
    shown = view.answer.toPlainText()
    assert ANALYZE[0] in shown and VACUUM[0] in shown and "Sources" in shown
    # The made-up claim is marked: a ⚠, a red wave, and the verifier's reason on hover.
    rollback = next(c for c in claims if c.text == ROLLBACK[0])
    assert rollback.supported is False and [c.supported for c in claims[:2]] == [True, True]
    wave = QTextCharFormat.UnderlineStyle.WaveUnderline
    waved = [f for f in fragments(view) if f.charFormat().underlineStyle() == wave]
    assert [f.text() for f in waved] == [ROLLBACK[0]]
    assert "Not supported by the messages it cites" in waved[0].charFormat().toolTip()
    assert rollback.note in waved[0].charFormat().toolTip()
    assert "⚠ " + ROLLBACK[0] in shown
    # The candidates and cards are the Ask run's, and the run is in the history as "ask".
    assert panel.outcome() is not None and panel.outcome().result is outcome.selection
    assert {c.data.id for c in panel.cards.cards} == {s.id for s in outcome.selection.selected}
    assert recorded == [outcome.run_id] and "Asked in" in panel.status.text()
    qtbot.wait(100)
    window.grab().save(str(screenshots_dir / "ask.png"))  # docs/screenshots/ask.png is a copy

    # Clicking [n] opens that topic with the cited messages highlighted and in view.
    number = claims[0].citations[0]
    source = next(s for s in outcome.sources if s.number == number)
    click_link(qtbot, view, anchors(view)[number])
    qtbot.waitUntil(lambda: source.topic_id in window._viewers and window._viewers[source.topic_id].loaded,
                    timeout=10_000)
    viewer = window._viewers[source.topic_id]
    assert viewer.highlighted == source.message_ids and viewer.cited.isVisible()
    marked = []
    block = viewer.conversation.document().begin()
    while block.isValid():
        if block.blockFormat().background().color().name() == "#fff1b8":
            marked.append(block.text())
        block = block.next()
    assert len(marked) == len(source.message_ids)
    assert any("ANALYZE" in text for text in marked)
    assert viewer.conversation.verticalScrollBar().value() > 0 or viewer.conversation.verticalScrollBar().maximum() == 0
    viewer.close()



def test_the_plan_chips_are_edited_and_asked_again_as_edited(qtbot, window, server):
    model = ScriptedModel(plan=PLAN, answer=answer_text(ANALYZE))
    server.handle(CHAT, model)
    use_server(window, server)
    ask(qtbot, window)
    view = window.search_panel.ask_view
    chips = view.plan_chips
    assert not chips.rerun_button.isEnabled()
    first = chips.chips[0]  # the question: typed over
    first.edit.selectAll()
    qtbot.keyClicks(first.edit, "Postgres 16.4 upgrade")
    gone = next(c for c in chips.chips if c.text() == "what broke after pg_upgrade")
    gone.findChild(QToolButton).click()  # its ×
    chips.add_chip("chat", "Backend team")
    qtbot.keyClicks(chips.add_chip("dates").edit, "2025-04-01..2025-04-30")
    assert chips.rerun_button.isEnabled()
    before = len(server.requests_to(CHAT))

    chips.rerun_button.click()
    wait_answered(qtbot, window)
    outcome = view.outcome
    assert model.seen[-1] == "answer" and "plan" not in model.seen[before:]  # no plan call: the person's plan
    assert outcome.plan.source == "user"
    assert outcome.plan.subqueries == ["Postgres 16.4 upgrade", "обновление Postgres", "Postgres upgrade problems"]
    assert outcome.plan.chats == ["Backend team"] and outcome.plan.date_range.label() == "2025-04-01 … 2025-04-30"
    assert outcome.steps[1].detail["queries"] == outcome.plan.subqueries
    assert outcome.steps[1].detail["filters"]["chats"] == ["Backend team"]
    assert {s.chat for s in outcome.sources} == {"Backend team"}
    assert outcome.question == QUESTION

    # An unreadable date chip says so and sends nothing.
    dates = next(c for c in chips.chips if c.kind == "dates")
    dates.edit.selectAll()
    qtbot.keyClicks(dates.edit, "some time")
    count = len(server.requests_to(CHAT))
    chips.rerun_button.click()
    assert chips.error.isVisible() and "some time" in chips.error.text()
    deliver_posted_events(qtbot)  # an Ask the click had started would be running now
    assert len(server.requests_to(CHAT)) == count and not window.search_panel.asking.running()


def test_cancel_keeps_the_sources_found_and_the_gui_ticks(qtbot, window, server):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=FakeResponse(json=chat_reply("late [1]"), delay=3.0)))
    use_server(window, server)
    panel, view = window.search_panel, window.search_panel.ask_view
    ticks: list[float] = []
    heartbeat = QTimer()
    heartbeat.setInterval(10)
    heartbeat.timeout.connect(lambda: ticks.append(time.perf_counter()))
    heartbeat.start()
    try:
        panel.query.setText(QUESTION)
        assert panel.ask()
        qtbot.waitUntil(lambda: len(server.requests_to(CHAT)) == 2, timeout=15_000)  # the plan, then the answer
        qtbot.wait(300)
        assert view.running and view.cancel_button.isVisible() and view.busy.isVisible()
        assert "Answer…" in view.steps.text()
        started = time.perf_counter()
        view.cancel_button.click()
        qtbot.waitUntil(lambda: not panel.asking.running(), timeout=2_000)
        stopped_in = time.perf_counter() - started
    finally:
        heartbeat.stop()
    assert stopped_in < 1.0  # not the server's 3 s
    assert "Cancelled" in panel.status.text() and not view.cancel_button.isVisible()
    assert view.outcome is not None and view.outcome.sources and view.outcome.answer is None
    assert "Cancelled" in view.answer.toPlainText() and "Sources" in view.answer.toPlainText()
    gaps = [later - earlier for earlier, later in zip(ticks, ticks[1:], strict=False)]
    assert len(ticks) > 30 and max(gaps) < 1.0, f"GUI thread stalled for {max(gaps) * 1000:.0f} ms during Ask"


def test_the_answer_streams_into_the_view_with_live_links(qtbot, window, server):
    """While the model writes, the answer grows above the sources, its [n] already links; the
    final answer (claims marked by verify) replaces it."""
    def slow_answer(request: RecordedRequest) -> FakeResponse:
        text = " ".join(f"{claim} [{source_number(request.body, needle) or 1}]" for claim, needle in (ANALYZE, VACUUM))
        return FakeResponse(json=chat_reply(text), piece_chars=8, event_delay=0.1)
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=slow_answer))
    use_server(window, server)
    panel, view = window.search_panel, window.search_panel.ask_view
    panel.query.setText(QUESTION)
    assert panel.ask()
    seen: list[str] = []
    heartbeat = QTimer()
    heartbeat.setInterval(20)
    heartbeat.timeout.connect(lambda: view.running and seen.append(view.answer.toPlainText()))
    heartbeat.start()
    try:
        qtbot.waitUntil(lambda: view.running and ANALYZE[0][:30] in view.answer.toPlainText(), timeout=15_000)
        partial = view.answer.toPlainText()
        assert VACUUM[0] not in partial and view.cancel_button.isVisible()  # mid-answer, still running
        wait_answered(qtbot, window)
    finally:
        heartbeat.stop()
    growing = [text for text in dict.fromkeys(seen) if ANALYZE[0][:12] in text]
    assert len(growing) >= 4, growing  # it grew in steps, not all at once
    assert any(anchors(view)) and VACUUM[0] in view.answer.toPlainText()


def test_ask_uses_the_cross_encoder_chosen_in_settings_alone_or_before_flash(qtbot, window, server):
    from tests.fake_rerank import FakeRerank

    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=answer_text(ANALYZE)))
    use_server(window, server)
    settings = window.search_panel.settings_panel
    with FakeRerank() as rerank:
        path = rerank.serve("llamacpp", logits=True)
        settings.set_value("rerank_preset", "custom")
        settings.set_value("rerank_url", "")
        settings.set_value("mode", "cross-encoder")
        window.search_panel.query.setText(QUESTION)
        assert not window.search_panel.ask()  # no rerank URL: said, nothing sent
        assert "URL" in window.search_panel.status.text() and not server.requests_to(CHAT)

        for name, value in {"rerank_preset": "llamacpp", "rerank_url": rerank.root, "ce_skip_small": False,
                            "ce_skip_flat": False}.items():
            settings.set_value(name, value)
        ask(qtbot, window)
        outcome = window.search_panel.ask_view.outcome
        rerank_step = next(s for s in outcome.steps if s.name == "rerank")
        assert rerank_step.detail["reranker"] == "cross-encoder" and rerank_step.ok
        assert rerank.requests_to(path) and outcome.answer is not None

        settings.set_value("mode", "flash")
        settings.set_value("chain_cross_encoder", True)
        qtbot.wait(200)
        before = len(rerank.requests_to(path))
        ask(qtbot, window)
        outcome = window.search_panel.ask_view.outcome
        assert len(rerank.requests_to(path)) > before  # the cross-encoder scored first, then Flash read its best
        rerank_step = next(s for s in outcome.steps if s.name == "rerank")
        assert rerank_step.detail["reranker"] == "flash" and "cross" in json.dumps(rerank_step.detail["report"])


def test_no_model_gives_the_sources_and_one_sentence(qtbot, window, server):
    window.search_panel.settings_panel.set_value("preset", "openrouter")  # no key for it
    window.search_panel.settings_panel.set_value("threshold", 0.3)  # the question alone scores lower than a plan
    ask(qtbot, window)
    view = window.search_panel.ask_view
    assert view.outcome.fallback == "no_model" and view.outcome.answer is None and view.outcome.sources
    text = view.answer.toPlainText()
    assert text.startswith("No API key for OpenRouter, so there is no written answer, only what the sources say")
    assert text.count("No API key") == 1 and "Sources" in text
    assert server.requests == [] and window.search_panel.cards.cards
    assert "○ Answer" in view.steps.text() and "○ Plan" in view.steps.text()  # no model: not called


def test_no_model_quotes_the_sentences_that_answer_with_the_answer_words_bold(qtbot, window, server,
                                                                               screenshots_dir):
    """Issue 32: without a model the window shows the one to three sentences that answer, each
    with its [n] link, author and time, the words that answer in bold."""
    window.search_panel.settings_panel.set_value("preset", "openrouter")  # no key for it
    window.search_panel.settings_panel.set_value("threshold", 0.3)
    ask(qtbot, window, "Когда мама записалась к терапевту?")
    view = window.search_panel.ask_view
    quotes = view.outcome.quotes
    assert quotes and view.outcome.answer is None
    assert "записалась к терапевту" in quotes[0].text and "14 марта" in quotes[0].text
    text = view.answer.toPlainText()
    assert "The sentences that answer, quoted from your chats:" in text
    assert quotes[0].text in text and text.index(quotes[0].text) < text.index("Sources")
    bold = [f.text() for f in fragments(view) if f.charFormat().fontWeight() >= 700]
    assert any(quotes[0].text[a:b] in bold for a, b in quotes[0].highlights), bold
    assert quotes[0].source in anchors(view)
    window.grab().save(str(screenshots_dir / "ask_quotes_no_model.png"))


def test_the_cloud_notice_comes_once_per_host(qtbot, window, server, keys):
    keys.keys["openrouter"] = "sk-or-test"
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=answer_text(ANALYZE)))
    use_server(window, server, preset="openrouter")  # a cloud preset, through a local proxy: still cloud
    panel = window.search_panel
    panel.query.setText(QUESTION)
    assert panel.ask()
    box = panel.asking.notice
    assert isinstance(box, QMessageBox) and box.isVisible() and panel.is_busy()
    assert "127.0.0.1" in box.windowTitle() and "127.0.0.1 (test/ask)" in box.text()
    assert "6,000 tokens" in box.informativeText() and "names of your chats" in box.informativeText()
    assert server.requests == []  # nothing leaves before the person agrees
    next(b for b in box.buttons() if b.text() == "Send and ask").click()
    wait_answered(qtbot, window)
    assert server.requests and QSettings().value(NOTICE_KEY) == "127.0.0.1"

    assert panel.ask() and panel.asking.notice is None  # said once for this host
    wait_answered(qtbot, window)

    panel.settings_panel.set_value("base_url", server.base_url.replace("127.0.0.1", "localhost"))
    count = len(server.requests)
    assert panel.ask()
    box = panel.asking.notice
    assert box is not None and "localhost" in box.windowTitle()  # another host: said again
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: panel.asking.notice is None)
    assert len(server.requests) == count and "nothing was sent to localhost" in panel.status.text()
    assert not panel.is_busy()


def test_an_ask_run_is_asked_again_from_the_run_history_and_compared(qtbot, window, server):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=answer_text(ANALYZE, ROLLBACK)))
    use_server(window, server)
    ask(qtbot, window)
    first = window.search_panel.ask_view.outcome
    history = window.history
    window.history_dock.show()
    history.refresh()
    qtbot.waitUntil(lambda: any(history.runs.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole + 1) == first.run_id
                                for i in range(history.runs.topLevelItemCount())), timeout=10_000)
    item = next(history.runs.topLevelItem(i) for i in range(history.runs.topLevelItemCount())
                if history.runs.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole + 1) == first.run_id)
    assert item.text(2) == "Ask"  # the reranker in words (issue 31)
    history.runs.setCurrentItem(item)
    qtbot.waitUntil(lambda: history.rerun_button.isEnabled(), timeout=10_000)
    detail = history.detail.toPlainText()
    assert "✓ " + ANALYZE[0] in detail and "⚠ " + ROLLBACK[0] in detail and "Plan" in detail
    assert "compare the answers" in history.rerun_button.toolTip()

    history.rerun_button.click()
    wait_answered(qtbot, window)
    view = window.search_panel.ask_view
    assert view.outcome.run_id != first.run_id
    note = view.note.text()
    assert view.note.isVisible() and note.startswith(f"Compared with run {first.run_id}:")
    assert "supported claims 1/2 → 1/2" in note and "the same answer" in note
    assert re.search(r"(\d+) of \1 sources the same", note)
