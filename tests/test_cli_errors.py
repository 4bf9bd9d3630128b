"""A user's mistake never ends in a traceback: one sentence, and for the truly unexpected
the path of a private log file that holds the traceback (without API keys)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_run import DEMO, ROOT, flashback, one_sentence
from tests.fake_openai import FakeOpenAI

KEY = "sk-or-v1-crash-log-test-key-0123456789"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("cli-errors") / "store"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    assert flashback("build", data_dir=data).returncode == 0
    return data


def test_a_query_of_invalid_utf8_is_searched_and_recorded(store):
    found = flashback("search", b"caf\xd0", data_dir=store)  # what `"$(printf 'caf\xd0')"` passes
    assert found.returncode == 0 and "Traceback" not in found.stderr, found.stderr
    newest = json.loads(flashback("runs", "--json", data_dir=store).stdout)["runs"][0]
    assert newest["query"] == "caf\N{REPLACEMENT CHARACTER}"


def test_an_export_into_a_missing_folder_names_the_folder(store, tmp_path):
    result = flashback("export", "hotel", "-o", str(tmp_path / "nowhere" / "x.md"), data_dir=store)
    assert result.returncode == 1 and one_sentence(result.stderr)
    assert str(tmp_path / "nowhere") in result.stderr and "does not exist" in result.stderr


def test_a_reader_that_stops_early_ends_the_output_quietly(store):
    child = subprocess.Popen([sys.executable, "-m", "app", "search", "hotel", "--reranker", "none"], cwd=ROOT,
                             env={**os.environ, "FLASHBACK_DATA_DIR": str(store)}, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    child.stdout.close()  # like `| head -3` that has already exited when the results come
    stderr = child.stderr.read()
    assert child.wait(timeout=120) == 1
    assert stderr == "", stderr


def test_a_custom_embedding_endpoint_without_a_dimension_learns_it(tmp_path):
    data = tmp_path / "store"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    with FakeOpenAI(embedding_dim=24) as server:
        options = ("--embedder", "custom", "--embedding-base-url", server.base_url, "--embedding-model", "e")
        built = flashback("build", *options, "--json", data_dir=data)
        assert built.returncode == 0 and "Traceback" not in built.stderr, built.stderr
        assert json.loads(built.stdout)["vectors"]["topic"] > 0
        before = len(server.requests)
        found = flashback("search", "hotel in Lisbon", *options, "--json", data_dir=data)
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["candidates"]
        assert len(server.requests) - before == 1  # the query only: the dimension was remembered
    gone = flashback("build", *options, "--embedding-dim", "24", data_dir=data)  # the server has stopped
    assert gone.returncode == 1 and one_sentence(gone.stderr), gone.stderr


def test_no_display_is_one_sentence_not_a_qt_abort(tmp_path):
    result = flashback("--demo", data_dir=tmp_path / "d", drop=("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"),
                       timeout=60)
    if sys.platform.startswith("linux"):
        assert result.returncode == 1 and one_sentence(result.stderr), (result.returncode, result.stderr)
        assert "No display" in result.stderr and "QT_QPA_PLATFORM=offscreen" in result.stderr


def test_an_unexpected_error_is_one_sentence_and_a_private_log(tmp_path):
    data = tmp_path / "store"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    (data / "index").write_text("a file where the index folder belongs")
    result = flashback("build", data_dir=data, env={"FLASHBACK_API_KEY": KEY})
    assert result.returncode == 1 and "Traceback" not in result.stderr
    log = data / "logs" / "flashback.log"
    assert str(log) in result.stderr.strip().splitlines()[-1]
    assert "Traceback" in log.read_text() and stat.S_IMODE(log.stat().st_mode) == 0o600


def test_the_crash_log_never_holds_an_api_key(tmp_path, monkeypatch):
    from app import crash

    monkeypatch.setenv("FLASHBACK_API_KEY", "plain-key-without-a-known-shape-42")
    try:
        raise RuntimeError(f"server said: bad key {KEY} and plain-key-without-a-known-shape-42")
    except RuntimeError as exc:
        sentence = crash.report(exc, tmp_path, "search")
    text = (tmp_path / "logs" / "flashback.log").read_text()
    assert "RuntimeError" in text and KEY not in text and "plain-key-without" not in text
    assert KEY not in sentence and "plain-key-without" not in sentence


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (a device whose writes fail ENOSPC)")
def test_a_crash_log_that_cannot_be_written_is_one_sentence_too(tmp_path, capfd):
    """A full disk: logging printed its own "--- Logging error ---" and a traceback to the
    terminal; the person now reads one sentence saying the details could not be written."""
    from app import crash

    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "flashback.log").symlink_to("/dev/full")  # every write fails: No space left
    try:
        raise RuntimeError("something nobody planned for")
    except RuntimeError as exc:
        sentence = crash.report(exc, tmp_path, "build")
    captured = capfd.readouterr()
    assert "Logging error" not in captured.err and "Traceback" not in captured.err, captured.err
    assert "the details could not be written to" in sentence and "No space left on device" in sentence, sentence
