"""One catalogue (issue 31): every name a person reads of a fallback, an Ask step or a reranker, and
every sentence of the run history and the CLI, comes from the engine's catalogue in the face's
language, and no raw code reaches a person.

Both windows (English and Russian) and the CLI in both languages are driven through every
fallback reason (the rerankers' FALLBACK_REASONS and MODEL_EMPTY, the cross-encoder's, Ask's own
and its steps') and every Ask step, each rendered through the face's own path: the Run history's
rows, summary and run details; the search view's fallback names and Ask's status and step words;
`flashback runs` and `flashback ask`. A raw code (a snake_case reason, a catalogue code) fails
the test anywhere; an English word fails it in Russian output. Then: every code the app/ and ui/
sources name exists in both catalogues, each face's hints name real places, and the Russian file
dialog is in Russian."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel

from engine.api import Flashback, Message, Step, catalogue, msg, reason_message, render
from engine.ask.calls import CALL_REASONS
from engine.ask.types import STEPS, AskOutcome, Plan, StepRecord
from engine.messages import FACES, SETTING_OF
from engine.rerank.base import FALLBACK_REASONS, MODEL_EMPTY, RerankResult, Selection
from engine.rerank.cross_encoder.errors import CROSS_ENCODER_FALLBACKS
from engine.store.database import connect, db_path
from engine.traces.runs import save_run
from tests.cli_run import ROOT, flashback
from ui import i18n
from ui.search import ask_words, reasons
from ui.shell.progress_panel import ProgressPanel
from ui.shell.run_history import RunHistoryPanel

# Why an Ask outcome has no answer (engine/ask/flow.py) and why a step did not do its own work
# (engine/ask/flow.py, steps.py, plan.py: a call's reason, a turned-off or failed step).
ASK_REASONS = ("no_model", "search_error", "compose_error", *(f"answer_{reason}" for reason in CALL_REASONS))
STEP_REASONS = (*CALL_REASONS, "no_model", "off", "rerank_error", "search_error", "compose_error", "no_sources")
RERANK_REASONS = (*FALLBACK_REASONS, MODEL_EMPTY, *CROSS_ENCODER_FALLBACKS)
EVERY_REASON = tuple(dict.fromkeys((*RERANK_REASONS, *ASK_REASONS, *STEP_REASONS)))
RERANKERS = ("none", "threshold", "flash", "cross-encoder", "ask")
RAW_NAMES = {name for name in (*EVERY_REASON, *CALL_REASONS) if "_" in name}
CODES = set(catalogue("en"))
# Latin words a Russian text may hold: the product's and its parts' names, protocols and formats.
LATIN_ALLOWED = {"flashback", "flash", "mcp", "api", "url", "bm25", "json", "jsonl", "llm", "mmr", "rrf", "top",
                 "openrouter", "openai", "ollama", "llamacpp", "lmstudio", "llama", "gemini", "google", "preview",
                 "whatsapp", "telegram", "chatgpt", "http", "https", "localhost"}
QUERY = "где мы жили в Лиссабоне"  # the person's own words: Russian, so English in the output is ours


def raw_codes(text: str) -> set[str]:
    """Stored names (`answer_timeout`) and catalogue codes (`rerank.fallback.timeout`) in `text`."""
    names = set(re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", text)) & RAW_NAMES
    return names | (set(re.findall(r"\b[a-z_]+(?:\.[a-z0-9_\-]+)+\b", text)) & CODES)


def english_words(text: str) -> set[str]:
    """Latin words of three letters or more in a Russian text, past code spans, options, paths,
    addresses and model ids, and the allowed names."""
    text = re.sub(r"`[^`]*`|--[\w-]+|\S+://\S+|\S*/\S*|\S+:\S+|\$[\d.]+", " ", text)  # ids: builtin:hashgram-v1
    return {word for word in re.findall(r"[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]", text)
            if len(word) >= 3 and re.sub(r"[\d.]+", "", word.lower()) not in LATIN_ALLOWED}


def check(texts: list[str], language: str, where: str) -> None:
    for text in texts:
        assert not raw_codes(text), (where, language, raw_codes(text), text)
        if language == "ru":
            assert not english_words(text), (where, english_words(text), text)


# ---- a store with a run for every reason and reranker --------------------------------------

def _selection(kind: str = "topic") -> Selection:
    return Selection.because(kind, 1, msg("rerank.flash.fallback_vector", reason=reason_message("timeout"), rank=1,
                                          score=0.5))


def _record(connection, reranker: str, fallback: str | None, report: dict | None = None,
            settings: dict | None = None) -> int:
    result = RerankResult(reranker, [_selection()], report or {}, fallback=fallback,
                          usage={"prompt_tokens": 120, "completion_tokens": 30, "cost": 0.0012})
    candidates = [{"kind": "topic", "id": 1, "rank": 1, "score": 0.5, "summary": "Лиссабон, гостиница"}]
    settings = settings or {"retrieval": {"candidates": 50, "hybrid": True, "mmr": False, "chat_ids": [],
                                          "date_from": None},
                            "reranker": {"name": reranker, "threshold": 0.5, "top_k": 3}}
    return save_run(connection, query=QUERY, reranker=reranker, settings=settings, candidates=candidates,
                    result=result, timings_ms={"total": 1234.0})


def _ask_report() -> dict:
    """An Ask run's report with every step, each failing for a reason of its own, and the rest ok."""
    steps = [StepRecord(step, 10.0, False, STEP_REASONS[i % len(STEP_REASONS)]).as_dict()
             for i, step in enumerate(STEPS)]
    steps += [StepRecord(step, 10.0, False, reason).as_dict() for step, reason in zip(
        [STEPS[i % len(STEPS)] for i in range(len(STEP_REASONS))], STEP_REASONS, strict=True)]
    steps += [StepRecord(step, 10.0, True, None).as_dict() for step in STEPS]
    plan = Plan([QUERY], None, [], [], "fallback", "no_model").as_dict()
    return {"plan": plan, "steps": steps, "sources": [], "answer": None}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("catalogue") / "data"
    Flashback(folder).store.stats()  # the schema
    connection = connect(db_path(folder))
    try:
        for reason in (*RERANK_REASONS, None):
            _record(connection, "flash", reason)
        for reason in ("endpoint_error", "missing_scores"):
            _record(connection, "cross-encoder", reason)
        for reranker in RERANKERS:
            _record(connection, reranker, None)
        ask_settings = {"model": "llama3.2", "total_budget_s": 30.0, "verify": "offline", "refine": True,
                        "retrieval": {"candidates": 50, "hybrid": True}}
        for reason in (*ASK_REASONS, None):
            _record(connection, "ask", reason, _ask_report(), ask_settings)
    finally:
        connection.close()
    return folder


# ---- the windows ------------------------------------------------------------------------------

@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_window_names_every_reason_step_and_reranker_in_its_language(qtbot, store, language):
    app = QApplication.instance()
    translators = i18n.install(app, language)
    try:
        service = Flashback(store)
        panel = RunHistoryPanel(service)
        qtbot.addWidget(panel)
        panel.resize(700, 500)
        panel.show()
        runs = service.runs.list(500)
        panel.refresh()
        qtbot.waitUntil(lambda: panel.runs.topLevelItemCount() == len(runs), timeout=15_000)
        qtbot.waitUntil(lambda: str(len(runs)) in panel.metrics.text(), timeout=15_000)
        texts = [panel.metrics.text()]
        for row in range(panel.runs.topLevelItemCount()):
            item = panel.runs.topLevelItem(row)
            texts.extend(item.text(column) for column in range(panel.runs.columnCount()) if column != 1)
        for run in runs:  # each run's detail, as the panel renders it when it is picked
            texts.append(QTextDocumentFragment.fromHtml(panel.run_html(service.runs.get(run.id))).toPlainText())
        # the search view's words: the cards' and report's fallback names, Ask's status and steps
        texts += [reasons.fallback_name(reason) for reason in EVERY_REASON]
        texts += [ask_words.fallback_sentence(reason) for reason in ASK_REASONS]
        texts += [ask_words.step_fallback(reason) for reason in STEP_REASONS]
        texts += [ask_words.step_name(step) for step in STEPS]
        check([text for text in texts if text], language, "window")

        summary = panel.metrics.text()
        for reason in ("answer_timeout", "no_model", "turn_timeout"):  # the "no_model 3, …"
            assert i18n.engine_words(reason_message(reason)) in summary, summary
        assert panel.runs.columnWidth(1) >= 16 * panel.runs.fontMetrics().averageCharWidth()  # Query: readable
        detail = QTextDocumentFragment.fromHtml(panel.run_html(service.runs.get(runs[-1].id))).toPlainText()
        assert "=" not in detail.split("\n")[-1] and "True" not in detail, detail  # labelled settings
    finally:
        i18n.uninstall(app, translators)


def test_the_russian_file_dialog_is_in_russian(qtbot, tmp_path):
    app = QApplication.instance()
    translators = i18n.install(app, "ru")
    try:
        assert all(re.search("[а-яА-Я]", word) for word in i18n.qt_words_qtbase_lacks())
        dialog = QFileDialog(None, "Импорт", str(tmp_path))
        qtbot.addWidget(dialog)
        (tmp_path / "folder").mkdir()
        dialog.show()
        labels = [label.text() for label in dialog.findChildren(QLabel) if label.text()]
        assert labels and not any(english_words(label.replace("&", "")) for label in labels), labels
        assert QCoreApplication.translate("QAbstractFileIconProvider", "Folder", "All other platforms") == "Папка"
    finally:
        i18n.uninstall(app, translators)


# ---- the CLI ----------------------------------------------------------------------------------

@pytest.mark.parametrize("language", ["en", "ru"])
def test_flashback_runs_names_every_reason_and_reranker_in_its_language(store, language):
    done = flashback("runs", "--limit", "500", data_dir=store, env={"FLASHBACK_LANG": language})
    assert done.returncode == 0, done.stderr
    lines = [line.replace(QUERY, "") for line in done.stdout.splitlines()]
    check(lines, language, "flashback runs")
    summary = lines[-1]
    for reason in ("answer_timeout", "no_model", "endpoint_error"):
        assert render(reason_message(reason), language) in summary, summary


@pytest.mark.parametrize("language", ["en", "ru"])
def test_flashback_ask_says_its_plan_and_fallbacks_in_its_language(monkeypatch, language):
    from app.cli_ask import plan_line

    monkeypatch.setenv("FLASHBACK_LANG", language)
    lines = []
    for source in ("model", "fallback", "user"):
        for reason in (*ASK_REASONS, None):
            outcome = AskOutcome(QUERY, Plan([QUERY], None, [], [], source, reason), fallback=reason,
                                 timings_ms={"total": 2500.0}, usage={"prompt_tokens": 10, "completion_tokens": 5})
            lines.append(plan_line(outcome).replace(QUERY, ""))
    check(lines, language, "flashback ask (plan line)")


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_question_without_a_model_is_answered_in_the_cli_language(tmp_path, language):
    export = tmp_path / "trip.jsonl"
    export.write_text("".join(json.dumps({"chat": "Поездка", "id": str(n), "author": "Аня",
                                          "date": f"2025-0{n}-01T10:00:00+00:00", "text": text}) + "\n"
                              for n, text in enumerate(["Мы жили в гостинице у реки в Лиссабоне",
                                                        "Гостиница называлась Каза душ Ремедиуш"], start=1)),
                      encoding="utf-8")
    data = tmp_path / "data"
    env = {"FLASHBACK_LANG": language, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    assert flashback("import", str(export), data_dir=data, env=env).returncode == 0
    done = flashback("ask", QUERY, data_dir=data, env=env)
    assert done.returncode == 0, done.stderr
    said = (done.stdout + done.stderr).replace(QUERY, "")
    said = re.sub(r"\[\d+\] .*", "", said)  # the sources' own lines (chat, author, message) are the person's
    check(said.splitlines(), language, "flashback ask")
    key_hint = render(msg("hint.cli.llm_setup"), language)
    assert key_hint in done.stderr and "--llm" not in done.stderr, done.stderr  # an option `ask --help` has
    assert render(msg("cli.ask.sources"), language) in done.stdout


def test_the_usage_error_line_is_in_the_cli_language(tmp_path):
    done = flashback("ask", "вопрос", "--llm", data_dir=tmp_path / "data", env={"FLASHBACK_LANG": "ru"})
    assert done.returncode == 2 and "flashback: ошибка: неизвестные аргументы: --llm" in done.stderr, done.stderr


# ---- one catalogue ---------------------------------------------------------------------------

FAMILIES = {code.split(".")[0] for code in CODES}
_CODE_LITERAL = re.compile(r"""["']([a-z][a-z0-9_]*(?:\.[a-z0-9_\-]+)+\.?)["']""")
_MCP_SAY = re.compile(r"""\bsay\(\s*["']([a-z_]+)["']""")


def test_every_code_the_app_and_the_window_name_is_in_both_catalogues():
    """A code literal in app/ or ui/ ("cli.ask.sources", or a prefix such as "runs.setting.")
    has a rendering in English and Russian; the MCP server's say("key") is mcp.key."""
    russian = set(catalogue("ru"))
    assert CODES == russian
    named: set[str] = set()
    for path in [*ROOT.joinpath("app").rglob("*.py"), *ROOT.joinpath("ui").rglob("*.py")]:
        source = path.read_text(encoding="utf-8")
        named |= {code for code in _CODE_LITERAL.findall(source) if code.split(".")[0] in FAMILIES}
        if path.name.startswith("mcp_"):
            named |= {f"mcp.{key}" for key in _MCP_SAY.findall(source)}
    assert len(named) > 100
    missing = sorted(code for code in named if not (code in CODES or code.endswith(".")
                                                     and any(known.startswith(code) for known in CODES)))
    # A dotted literal that is a module, a logger's name or a file, not a code, is no message.
    missing = [code for code in missing
               if not re.fullmatch(r"(engine|app|ui|tests|resources|mcp\.server)\..*|.*\.(py|json|qm)", code)]
    assert not missing, missing


def test_every_reason_has_words_and_messages_name_no_face():
    for reason in EVERY_REASON:
        said = reason_message(reason)
        assert said.code != "fallback.other", reason
        for language in ("en", "ru"):
            assert not raw_codes(render(said, language)), (reason, language)
    for language in ("en", "ru"):  # what a message says is missing; where to set it is each face's
        for code, template in catalogue(language).items():
            if not code.startswith("hint."):
                assert "Settings →" not in template and "Настройки →" not in template, code
                assert "ask --llm" not in template, code
    for setting in set(SETTING_OF.values()) - {"embedding_timeout"}:
        for face in FACES:
            assert f"hint.{face}.{setting}" in CODES, (face, setting)
    llm_key = Message("llm.needs_key", {"server": "OpenRouter"})
    assert render(llm_key, "en", face="window").endswith("Set the key in Settings → API key….")
    assert "flashback key set" in render(llm_key, "en", face="cli")
    assert "Flashback window" in render(llm_key, "en", face="mcp")
    assert render(llm_key, "en") == "OpenRouter needs an API key."


def _build_stages() -> set[str]:
    """Every stage name the engine reports to a build's or a check's progress callback."""
    sources = "".join(path.read_text(encoding="utf-8") for path in ROOT.joinpath("engine").rglob("*.py"))
    stages = set(re.findall(r"""\bprogress\(\s*["']([a-z ]+)["']""", sources))
    return stages | {f"index {kind}" for kind in ("topic", "person", "artifact")}


def test_every_build_stage_the_cli_shows_has_words():
    """`StageProgress` prints a build's stages by name: each one the engine reports has words."""
    stages = _build_stages()
    assert {"topics", "embeddings", "compact"} <= stages
    assert not sorted(stage for stage in stages if f"build.stage.{stage}" not in CODES)


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_progress_panel_names_every_build_stage_with_the_engines_words(qtbot, language):
    """The window's progress strip says a build stage in the catalogue's words, as the CLI does
    (it kept its own list in Qt's catalogue, which lacked "compact" and showed the stored name);
    a stage the catalogue does not know is "Working", never its stored name."""
    app = QApplication.instance()
    translators = i18n.install(app, language)
    try:
        panel = ProgressPanel()
        qtbot.addWidget(panel)
        for stage in sorted(_build_stages()):
            words = render(Message(f"build.stage.{stage}"), language)
            assert panel.describe(Step("build", stage, 0, 1)) == words + "…", stage
            counted = panel.describe(Step("build", stage, 3, 1200))
            assert counted.startswith(words + ": ") and "1,200" in counted, counted
            check([counted], language, f"progress {stage}")
        unknown = panel.describe(Step("build", "tidy_up", 0, 0))
        assert unknown == render(Message("build.stage.other"), language) + "…" and "tidy" not in unknown
    finally:
        i18n.uninstall(app, translators)
