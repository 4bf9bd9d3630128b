"""A Russian window shows no English sentence (issue 22): one window, in Russian, driven through
the paths a person takes (the demo imported and built, a build, a search in each reranker, a
Flash run that falls back on a server answering with an error, the cross-encoder's scores and its
fallback (issue 25), an assistant's run in the history (issue 24), a question asked (issue 27: the
cloud notice, the answer with a marked claim, the cited messages, a date chip not understood,
no model), the run history, the topic viewer, About, the API key dialog, another process
writing the store, a damaged store). After
each step every string the window shows is collected (labels, buttons, group boxes, tabs,
docks, menus, window titles, the status bar, message boxes, table and tree cells and headers,
the chart's painted texts, text browsers) and checked for Latin-only prose: three Latin words
in a row. What is not the window's to translate is left out first: the demo data (chat names,
authors, messages, topic summaries, file names), the query typed, model names, paths, URLs,
code in backticks and code-ish tokens (key=value, snake_case, provider/model)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring
from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as QtGui
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

from app.gui import DEMO_EXPORT
from app.keys import KeyStore
from engine.api import Flashback, RetrievalSettings, SearchRequest, make_reranker
from tests.engine.ask.conftest import ScriptedModel
from tests.fake_openai import FakeOpenAI, FakeResponse
from tests.fake_rerank import FakeRerank
from tests.ui.conftest import write_jsonl
from tests.ui.test_ask_mode import anchors, answer_text, click_link, wait_answered
from tests.ui.test_damaged_store_window import damage_table
from tests.ui.test_main_window import isolate_qsettings, wait_idle
from tests.ui.test_other_processes import OtherWriter
from ui import i18n
from ui.main_window import MainWindow
from ui.search.score_chart import ScoreChart
from ui.shell.run_history import CLIENT_COLUMN

QUERY = "встреча бюджет"
QUESTION = "когда мама записалась к терапевту?"
PLAN = {"queries": {"ru": ["мама запись к терапевту"], "en": ["mom appointment with the therapist"]},
        "dates": "", "chats": [], "people": []}
RIGHT = ("Мама записалась к терапевту на 14 марта на 9:30.", "записалась к терапевту")
WRONG = ("Приём потом перенесли на 30 мая.", "записалась к терапевту")
MODEL = "test/flash"
CELLS = 60  # rows read from each table or tree: enough to see every kind of cell

WORD = r"[A-Za-z][A-Za-z'’]*"
# Three Latin words in a row, not across a comma: "Telegram Desktop, ChatGPT, WhatsApp" is a list of names.
ENGLISH_RUN = re.compile(rf"{WORD}(?:[ \t:()–—-]+{WORD}){{2,}}")
CODE = (re.compile(r"`[^`]*`"), re.compile(r"https?://\S+"), re.compile(r"(?<![\w.])(?:[A-Za-z]:)?[/\\]\S+"),
        re.compile(r"\S*[=_/@]\S*"))  # backticks, URLs, paths, key=value / snake_case / provider/model


# -- what the window shows ----------------------------------------------------------------------
def _plain(text: str) -> str:
    if QtGui.mightBeRichText(text):
        return QTextDocumentFragment.fromHtml(text).toPlainText()
    return text


def _model_texts(view: QAbstractItemView) -> Iterable[str]:
    model = view.model()
    if model is None:
        return
    for column in range(model.columnCount()):
        yield str(model.headerData(column, Qt.Orientation.Horizontal) or "")
    for row in range(min(model.rowCount(), CELLS)):  # the window's lists and tables are flat
        for column in range(model.columnCount()):
            yield str(model.data(model.index(row, column), Qt.ItemDataRole.DisplayRole) or "")


def widget_texts(widget: QWidget) -> Iterable[str]:
    if isinstance(widget, QMessageBox):
        yield from (widget.text(), widget.informativeText())
    elif isinstance(widget, QLabel):
        yield widget.text()
    elif isinstance(widget, QAbstractButton):
        yield widget.text()
    elif isinstance(widget, QGroupBox):
        yield widget.title()
    elif isinstance(widget, QDockWidget):
        yield widget.windowTitle()
    elif isinstance(widget, QTabBar):
        yield from (widget.tabText(i) for i in range(widget.count()))
    elif isinstance(widget, QComboBox):
        yield from (widget.itemText(i) for i in range(widget.count()))
    elif isinstance(widget, QLineEdit):
        yield widget.placeholderText()
    elif isinstance(widget, QPlainTextEdit):
        yield widget.placeholderText()
    elif isinstance(widget, QTextEdit):  # QTextBrowser too: a run's detail, a topic's messages
        yield from (widget.toPlainText(), widget.placeholderText())
    elif isinstance(widget, QAbstractSpinBox):
        yield from (widget.specialValueText(), getattr(widget, "suffix", lambda: "")())
    if isinstance(widget, QAbstractItemView):
        yield from _model_texts(widget)
    if isinstance(widget, ScoreChart):
        yield from (text for _rect, _flags, text in widget.text_boxes())


def visible_texts() -> list[tuple[str, str]]:
    """(where, text) for every string on a visible top-level window and the widgets it shows."""
    found: list[tuple[str, str]] = []
    for top in QApplication.topLevelWidgets():
        if not top.isVisible():
            continue
        found.append((type(top).__name__ + " title", top.windowTitle()))
        if isinstance(top, QMainWindow):
            found.append(("status bar", top.statusBar().currentMessage()))
            for action in top.menuBar().actions():
                found.append(("menu", action.text()))
                if action.menu() is not None:
                    found.extend(("menu item", item.text()) for item in action.menu().actions())
        for widget in [top, *top.findChildren(QWidget)]:
            if widget.isVisible():
                found.extend((type(widget).__name__, _plain(text)) for text in widget_texts(widget) if text)
    return found


# -- what is not the window's to translate -------------------------------------------------------
def store_texts(data: Path) -> list[str]:
    """Every text that came from the demo export: shown as it is, in whatever language it is."""
    connection = sqlite3.connect(data / "flashback.sqlite3")
    try:
        rows = connection.execute(
            "SELECT title FROM chat UNION SELECT display_name FROM person UNION SELECT external_id FROM person "
            "UNION SELECT author FROM message UNION SELECT text FROM message UNION SELECT summary FROM topic "
            "UNION SELECT file_name FROM artifact UNION SELECT caption FROM artifact "
            "UNION SELECT display_name FROM source").fetchall()
    finally:
        connection.close()
    texts = {" ".join(str(row[0]).split()) for row in rows if row[0] and len(str(row[0]).strip()) >= 3}
    return sorted(texts, key=len, reverse=True)


class Look:
    """Collects, step by step, the English the window shows."""

    def __init__(self, data: Path, extra: Iterable[str] = ()) -> None:
        self.data = data
        self.extra = list(extra)
        self.ignored: list[str] = list(self.extra)
        self.found: dict[str, set[str]] = {}

    def refresh_data(self) -> None:
        self.ignored = sorted({*store_texts(self.data), *self.extra}, key=len, reverse=True)

    def english(self, text: str) -> list[str]:
        text = " ".join(text.split())
        bare = text.rstrip("…").strip()
        if not bare or any(bare in known for known in self.ignored):  # a whole (or clipped) piece of data
            return []
        for known in self.ignored:
            if known in text:
                text = text.replace(known, " ")
        for pattern in CODE:
            text = pattern.sub(" ", text)
        return ENGLISH_RUN.findall(text)

    def __call__(self, step: str) -> None:
        for where, text in visible_texts():
            for run in self.english(text):
                self.found.setdefault(f"{step}: {where}: {' '.join(text.split())[:160]}", set()).add(run)


# -- the window -----------------------------------------------------------------------------------
@pytest.fixture
def russian(qapp, tmp_path):
    isolate_qsettings(tmp_path / "qsettings")
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    translators = i18n.install(qapp, "ru")
    assert translators and i18n.current_language() == "ru"
    yield
    i18n.uninstall(qapp, translators)
    keyring.set_keyring(previous)


SERVER_REFUSAL = f"model {MODEL} is not loaded on this server"


def close_boxes() -> None:
    for box in QApplication.topLevelWidgets():
        if isinstance(box, QMessageBox) and box.isVisible():
            box.done(0)


def test_a_russian_window_shows_no_english_sentence(qtbot, qasync_loop, russian, tmp_path):
    data = tmp_path / "data"
    window = MainWindow(Flashback(data, origin="window"), KeyStore(), demo_export=DEMO_EXPORT)
    qtbot.addWidget(window)
    window.resize(1440, 900)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.stats is not None)
    # The model's words are not the window's either: the plan's English sub-query is a translation it wrote.
    # The LLM server's own words are data too: the engine's sentence around them is Russian (llm.* codes).
    look = Look(data, extra=[QUERY, MODEL, str(tmp_path), *PLAN["queries"]["en"], SERVER_REFUSAL])
    assert look.english("Поиск — this run was not recorded: `flashback build`") == ["this run was not recorded"]
    assert look.english("Telegram Desktop, ChatGPT, WhatsApp · google/gemini-3-flash · a=b c_d") == []
    look("empty store")

    # The demo imported and built in the window's child process, looked at as each stage starts.
    stages: set[tuple[str, str]] = set()

    def on_step(step) -> None:
        words = window.progress_panel.describe(step)  # a stage's name alone is too short to be prose
        assert re.search("[А-Яа-яЁё]", words), (step, words)
        if (step.phase, step.name) not in stages:
            stages.add((step.phase, step.name))
            look(f"progress {step.phase}/{step.name}")

    window.imports.progress.connect(on_step)
    assert window.open_demo()
    look("import started")
    wait_idle(qtbot, window, timeout=120_000)
    look.refresh_data()
    qtbot.waitUntil(lambda: window.browse.topics.topLevelItemCount() > 0, timeout=15_000)
    look("demo imported and built")
    assert window.start_build()
    wait_idle(qtbot, window)
    look("built again")
    window.imports.progress.disconnect(on_step)

    # A search in each reranker.
    panel = window.search_panel
    for mode in ("threshold", "vector"):
        panel.settings_panel.set_value("mode", mode)
        panel.query.setText(QUERY)
        panel.search()
        qtbot.waitUntil(lambda: panel.outcome() is not None and not panel.is_busy(), timeout=20_000)
        assert panel.cards.cards
        look(f"search ({mode})")

    # Flash on a server that answers every call with an error: it falls back to stage 1's best.
    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", lambda _request: FakeResponse(
            status=400, json={"error": {"message": SERVER_REFUSAL}}))
        settings = panel.settings_panel
        settings.set_value("mode", "flash")
        settings.set_value("preset", "custom")
        settings.set_value("base_url", server.base_url)
        settings.set_value("model", MODEL)
        look("Flash ready")
        panel.run_flash()
        qtbot.waitUntil(lambda: panel._state.flash is not None and not panel.is_busy(), timeout=30_000)
    assert panel._state.flash.result.fallback
    assert all(card.data.reason.startswith("откат (ошибка при обращении к серверу модели)")
               for card in panel.cards.cards)
    look("Flash fell back")

    # The cross-encoder (issue 25): its scores on the chart and the cards, then a server refusing it.
    with FakeRerank() as rerank:
        rerank.serve("llamacpp")
        for name, value in (("rerank_preset", "llamacpp"), ("rerank_url", rerank.root), ("ce_skip_small", False),
                            ("ce_skip_flat", False), ("mode", "cross-encoder")):
            settings.set_value(name, value)  # the mode last: it asks the server about the shown candidates
        qtbot.waitUntil(lambda: panel._state.cross is not None and not panel.is_busy(), timeout=20_000)
        assert panel.cards.cards and all(card.data.reason.startswith("оценка кросс-энкодера")
                                         for card in panel.cards.cards if card.data.kind == "topic")
        look("cross-encoder scores")
        rerank.handle("/v1/rerank", lambda _request: FakeResponse(status=400, json={"error": "model_not_loaded"}))
        settings.set_value("ce_top_n", 30)  # what is sent changed: asked again
        qtbot.waitUntil(lambda: panel._state.cross is not None and panel._state.cross.result.fallback is not None
                        and not panel.is_busy(), timeout=20_000)
    assert all(card.data.reason.startswith("откат (сервер ранжирования ответил ошибкой)")
               for card in panel.cards.cards if card.data.kind == "topic")
    look("cross-encoder fell back")

    # A question asked: the cloud notice first, then the answer with a marked claim and its sources.
    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", ScriptedModel(plan=PLAN, answer=answer_text(RIGHT, WRONG)))
        settings.set_value("mode", "threshold")
        settings.set_value("preset", "openrouter")
        settings.set_value("base_url", server.base_url)
        window._keys.set_session("openrouter", "sk-or-test")
        panel.query.setText(QUESTION)
        assert panel.ask()
        qtbot.waitUntil(lambda: panel.asking.notice is not None and panel.asking.notice.isVisible())
        look("the cloud notice")
        next(b for b in panel.asking.notice.buttons() if b.text() == "Отправить и спросить").click()
        wait_answered(qtbot, window)
    view = panel.ask_view
    assert [c.supported for c in view.outcome.answer.claims] == [True, False]
    assert "Источники" in view.answer.toPlainText() and "Ответ за" in panel.status.text()
    look("an answer")
    number = view.outcome.answer.claims[0].citations[0]
    click_link(qtbot, view, anchors(view)[number])
    topic = next(s.topic_id for s in view.outcome.sources if s.number == number)
    qtbot.waitUntil(lambda: topic in window._viewers and window._viewers[topic].loaded, timeout=10_000)
    look("the cited messages")
    window._viewers[topic].close()
    qtbot.keyClicks(view.plan_chips.add_chip("dates").edit, "some time")
    view.plan_chips.rerun_button.click()
    assert view.plan_chips.error.isVisible()
    look("a date chip not understood")
    settings.set_value("preset", "custom")  # no URL: no model
    settings.set_value("base_url", "")
    assert panel.ask()
    wait_answered(qtbot, window)
    assert view.outcome.fallback == "no_model"
    look("no model")
    panel.set_mode("search")

    # What was recorded (an assistant's search among them), one topic in full, About and the key dialog.
    window._service.search.search_sync(SearchRequest(QUERY, RetrievalSettings(), make_reranker("threshold"),
                                                     record=True, client="Claude Desktop"))
    window.history.refresh()
    window.history_dock.show()
    window.history_dock.raise_()
    runs = window.history.runs
    qtbot.waitUntil(lambda: runs.topLevelItemCount() >= 3 and bool(runs.topLevelItem(0).text(CLIENT_COLUMN)),
                    timeout=15_000)
    runs.setCurrentItem(runs.topLevelItem(0))  # the newest: the assistant's
    qtbot.waitUntil(lambda: bool(window.history.detail.toPlainText()), timeout=15_000)
    assert "через Claude Desktop" in window.history.detail.toPlainText()
    look("run history")
    viewer = window.open_topic(panel.cards.cards[0].data.id)
    qtbot.waitUntil(lambda: viewer.loaded, timeout=15_000)
    look("topic viewer")
    viewer.close()
    about = window.show_about()
    look("about")
    about.close()
    keys = window.open_keys_dialog()
    look("key dialog")
    keys.close()
    window.evaluate_dock.show()
    qtbot.wait(300)
    look("evaluate")
    window.evaluate_dock.hide()

    # Another process writes the store: named in the status bar, a label refused, an import waiting.
    writer = OtherWriter(data)
    try:
        qtbot.waitUntil(lambda: "в другом терминале" in window.statusBar().currentMessage(), timeout=15_000)
        look("another process writes")
        settings.set_value("mode", "threshold")
        panel.search()
        qtbot.waitUntil(lambda: panel.outcome() is not None and not panel.is_busy(), timeout=20_000)
        panel.label_topic(next(c.id for c in panel.outcome().stage1.candidates if c.kind == "topic"), True)
        qtbot.waitUntil(lambda: panel.labels() == {} and "flashback build" in panel.status.text(), timeout=15_000)
        look("a label refused")
        waited = []
        window.imports.progress.connect(lambda step: waited.append(step) if step.phase == "wait" else None)
        assert window.start_import(write_jsonl(tmp_path / "more.jsonl", 20))
        qtbot.waitUntil(lambda: bool(waited), timeout=30_000)
        qtbot.waitUntil(lambda: window.progress_panel.stage.text().startswith("Ожидание"), timeout=15_000)
        look("an import waiting")
        window.imports.cancel()
        wait_idle(qtbot, window)
        look("the waiting import cancelled")
    finally:
        writer.release()

    # A damaged store: the chats table overwritten, then read.
    damage_table(data, "chat")
    window.browse.refresh()
    qtbot.waitUntil(lambda: any(isinstance(w, QMessageBox) and w.isVisible() for w in QApplication.topLevelWidgets()),
                    timeout=15_000)
    qtbot.wait(300)
    assert any("повреждено" in box.text() for box in QApplication.topLevelWidgets()
               if isinstance(box, QMessageBox) and box.isVisible())
    look("a damaged store")
    close_boxes()

    english = "\n".join(f"{where} → {sorted(runs)}" for where, runs in sorted(look.found.items()))
    assert not look.found, f"English in the Russian window:\n{english}"
