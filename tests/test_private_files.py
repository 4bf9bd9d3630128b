"""Issue 35, bullet 3: everything Flashback writes is private, 0600 files and 0700 folders,
whatever the umask: exported context (`export -o`, the window's save), the labels it exports,
the log after a rollover, the calibration and index folders, an archive's unpacked chats."""

from __future__ import annotations

import logging
import os
import stat
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli_run import DEMO, flashback

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX modes")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@contextmanager
def open_umask() -> Iterator[None]:
    """The most careless umask there is, for the block (this process: the engine used as a library)."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("private") / "data"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    return data


@pytest.mark.parametrize("form", ["md", "json"])
def test_an_export_is_0600_under_umask_000(imported, tmp_path, form):
    """It was 0666 here: chat text anyone on the machine could read or change."""
    target = tmp_path / f"context.{form}"
    written = flashback("export", "hotel in Lisbon", "--format", form, "-o", str(target), data_dir=imported, umask=0)
    assert written.returncode == 0, written.stderr
    assert mode(target) == 0o600 and target.read_text(encoding="utf-8").strip()
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temporary file left beside it


def test_an_export_over_a_file_open_to_others_makes_it_private(imported, tmp_path):
    target = tmp_path / "context.md"
    target.write_text("old")
    os.chmod(target, 0o666)
    written = flashback("export", "hotel in Lisbon", "-o", str(target), data_dir=imported, umask=0o022)
    assert written.returncode == 0, written.stderr
    assert mode(target) == 0o600 and target.read_text(encoding="utf-8") != "old"


def test_the_labels_the_window_exports_are_0600(imported, tmp_path):
    from engine.api import Flashback

    target = tmp_path / "labels.json"
    with open_umask():
        Flashback(imported).labels.export_qrels(target)
    assert mode(target) == 0o600


def test_the_windows_context_save_is_0600(tmp_path):
    from engine.api import write_private

    target = tmp_path / "flashback-context.md"
    with open_umask():
        write_private(target, "what the window's export bar saves")  # ui/search/export_bar.py's writer
    assert mode(target) == 0o600


def test_the_engines_own_files_and_folders_are_private_under_umask_000(tmp_path):
    from engine.memory import calibration
    from engine.memory.calibration import Calibration

    folder = tmp_path / "new" / "index"
    with open_umask():
        calibration.save(folder, Calibration("model", unrelated=0.1, related=0.6, probes=3))
    assert (mode(tmp_path / "new"), mode(folder), mode(folder / calibration.FILE_NAME)) == (0o700, 0o700, 0o600)


def test_an_archives_unpacked_chats_are_private(tmp_path):
    from engine.importers.inputs import resolve_inputs

    archive = tmp_path / "WhatsApp Chat - Alice.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("_chat.txt", "[03/02/2024, 10:00:00] Alice: hello\n")
    with open_umask(), resolve_inputs(archive) as inputs:
        unpacked = inputs[0].path
        assert mode(unpacked) == 0o600 and mode(unpacked.parent) == 0o700


def test_the_log_is_private_after_a_rollover_too(tmp_path):
    from app import crash

    with open_umask():
        handler = crash._file_handler(tmp_path / "data", "%(message)s")
        try:
            handler.emit(logging.LogRecord("flashback", logging.ERROR, __file__, 1, "one", None, None))
            handler.doRollover()  # logging opens a new file: with the umask's modes, before
            handler.emit(logging.LogRecord("flashback", logging.ERROR, __file__, 1, "two", None, None))
        finally:
            handler.close()
    logs = crash.log_path(tmp_path / "data").parent
    assert {path.name: oct(mode(path)) for path in logs.iterdir()} == {
        "flashback.log": oct(0o600), "flashback.log.1": oct(0o600)}
    assert mode(logs) == 0o700
