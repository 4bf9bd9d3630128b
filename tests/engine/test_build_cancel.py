"""Issue 22: a cancelled build says what it kept. An import is one transaction and a cancel
undoes it ("nothing was changed"); a build commits batch by batch, so what it made before
the cancel stays, and its cancel must say so, not borrow the import's words."""

from __future__ import annotations

import json

import pytest

from engine.api import Flashback
from engine.api.pipeline import PipelineSteps, Step, run_in_child, run_steps
from engine.errors import BuildCancelled, CancelToken, ImportCancelled


def export(path, lines: int = 120):
    path.write_text("".join(json.dumps({
        "chat": f"Chat {number % 3}", "id": str(number), "author": ("Anna", "Ben")[number % 2],
        "date": f"2024-05-{1 + number % 28:02d}T{number % 24:02d}:00:00+00:00",
        "text": f"message {number} about the trip to the mountains and the weather there",
    }) + "\n" for number in range(lines)), encoding="utf-8")
    return path


@pytest.fixture
def imported(tmp_path) -> Flashback:
    service = Flashback(tmp_path / "data")
    service.imports.import_path(export(tmp_path / "chat.jsonl"))
    return service


def cancel_once_topics_are_made(token: CancelToken):
    """A progress callback that presses Cancel as soon as the build is past its topics stage."""
    def on_progress(stage, *_counts) -> None:
        name = stage.name if isinstance(stage, Step) else stage
        if name not in ("topics", "import"):
            token.cancel()
    return on_progress


def assert_says_what_was_kept(error: BaseException, service: Flashback) -> None:
    assert type(error) is BuildCancelled and not isinstance(error, ImportCancelled)
    assert "kept" in str(error) and "nothing was changed" not in str(error)
    assert service.store.stats().topics > 0  # and it is true: the topics committed before the cancel stay


def test_a_build_cancelled_in_process_says_what_it_kept(imported):
    token = CancelToken()  # the window's token: its own error is the import's
    with pytest.raises(BuildCancelled) as caught:
        imported.memory.build(on_progress=cancel_once_topics_are_made(token), cancel=token)
    assert_says_what_was_kept(caught.value, imported)


def test_the_same_token_still_cancels_an_import_as_an_import(tmp_path):
    token = CancelToken()
    token.cancel()
    with pytest.raises(ImportCancelled):
        Flashback(tmp_path / "data").imports.import_path(export(tmp_path / "chat.jsonl"), cancel=token)


def test_a_build_cancelled_in_the_worker_thread_says_what_it_kept(imported):
    token, phases = CancelToken(), []
    with pytest.raises(BuildCancelled) as caught:
        steps = PipelineSteps(imported._context)
        run_steps(steps, [], True, cancel_once_topics_are_made(token), token, phases.append)
    assert_says_what_was_kept(caught.value, imported)
    assert phases == ["build"]


def test_a_build_cancelled_in_the_child_says_what_it_kept(imported):
    token, phases = CancelToken(), []
    with pytest.raises(BuildCancelled) as caught:
        steps = PipelineSteps(imported._context)
        run_in_child(steps, [], True, cancel_once_topics_are_made(token), token, phases.append)
    assert_says_what_was_kept(caught.value, imported)
    assert phases[-1] == "build"


def test_a_build_cancelled_before_it_started_is_a_build_cancel(imported):
    token = CancelToken()
    token.cancel()
    with pytest.raises(BuildCancelled):
        run_in_child(PipelineSteps(imported._context), [], True, lambda step: None, token, lambda phase: None)
    with pytest.raises(ImportCancelled):  # with files to import first, it is the import that did not start
        run_in_child(PipelineSteps(imported._context), [imported.data_dir / "none.jsonl"], True,
                     lambda step: None, token, lambda phase: None)


def test_a_build_that_ignores_the_cancel_is_killed_and_reported_as_cancelled(imported, monkeypatch):
    from engine.api import pipeline

    monkeypatch.setattr(pipeline, "CHILD", ("tests.engine.children", "build_ignoring_cancel"))
    monkeypatch.setattr(pipeline, "_KILL_AFTER_CANCEL_S", 0.5)
    token, steps = CancelToken(), []

    def cancel_at_once(step) -> None:
        steps.append(step)
        token.cancel()

    with pytest.raises(BuildCancelled):
        run_in_child(PipelineSteps(imported._context), [], True, cancel_at_once, token, lambda phase: None)
    assert steps and steps[0].name == "embeddings"
