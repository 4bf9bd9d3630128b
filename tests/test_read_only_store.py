"""Issue 23, findings 3 and 4: a read-only data folder and a read-only store file.

Every reading command works (search, stats, chats, runs, export); the run a search would
record is not, and one note says so; import and build refuse in one true sentence.

Both are real, in a real `flashback` process:
- the folder: a small tmpfs, filled with a built demo and remounted read-only (EROFS, what a
  read-only disk or mount gives; root respects it). Skipped where this process may not mount.
- the file: `flashback.sqlite3` with mode 0400 (read-only, and private: the privacy check
  leaves it be) in a writable folder. Root writes through
  permission bits, so the child runs as root *without* CAP_DAC_OVERRIDE (dropped from its
  bounding set before exec with prctl(PR_CAPBSET_DROP), so the new program never gets it): the
  kernel then applies the bits to it as to anyone (os.access and SQLite both see a file it may
  not write). Skipped where this process may not drop the capability."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from contextlib import closing
from pathlib import Path

import pytest

from engine.store.database import db_path
from tests.cli_run import DEMO, ROOT, flashback, one_sentence

QUERY = "hotel in Lisbon"
NOT_RECORDED = "searches are not recorded"
_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def _runs(data_dir: Path) -> int:
    with closing(sqlite3.connect(f"{db_path(data_dir).as_uri()}?mode=ro&immutable=1", uri=True)) as connection:
        return connection.execute("SELECT count(*) FROM rerank_run").fetchone()[0]


@pytest.fixture
def read_only_folder(tmp_path, built_demo):
    """The built demo on a tmpfs remounted read-only; unmounted afterwards."""
    point = tmp_path / f"ro-{uuid.uuid4().hex[:6]}"
    point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", str(point)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip() or 'mount failed'})")
    try:
        data_dir = Path(shutil.copytree(built_demo, point / "data"))
        assert flashback("search", "Sintra", data_dir=data_dir).returncode == 0  # one run recorded before
        remounted = subprocess.run(["mount", "-o", "remount,ro", str(point)], capture_output=True, text=True)
        if remounted.returncode != 0:
            pytest.skip(f"cannot remount read-only here ({remounted.stderr.strip()})")
        yield data_dir
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def test_every_reading_command_works_in_a_read_only_folder(read_only_folder, tmp_path):
    """Finding 3: stats, chats and search each exited 1 with the read-only sentence."""
    data_dir = read_only_folder
    for command in (("stats",), ("chats",), ("runs",)):
        result = flashback(*command, data_dir=data_dir)
        assert result.returncode == 0 and result.stderr == "", (command, result.stderr)
    stats = json.loads(flashback("stats", "--json", data_dir=data_dir).stdout)
    assert stats["messages"] == 434 and stats["topics"] > 0

    found = flashback("search", QUERY, data_dir=data_dir)
    assert found.returncode == 0, found.stderr
    assert "✔ topic" in found.stdout  # the results, as from a writable store
    notes = found.stderr.strip().splitlines()
    assert len(notes) == 1 and NOT_RECORDED in notes[0] and str(data_dir) in notes[0], notes
    assert "attempt to write" not in found.stderr and "Could not record" not in found.stderr

    as_json = json.loads(flashback("search", QUERY, "--json", data_dir=data_dir).stdout)
    assert as_json["selected"] and "run_id" not in as_json
    assert len(as_json["notes"]) == 1 and NOT_RECORDED in as_json["notes"][0]

    context = tmp_path / "context.md"
    exported = flashback("export", QUERY, "-o", str(context), data_dir=data_dir)
    assert exported.returncode == 0 and "Alfama" in context.read_text(encoding="utf-8"), exported.stderr
    assert _runs(data_dir) == 1  # the one recorded before the folder became read-only


@pytest.mark.parametrize("command", [("import", str(DEMO)), ("build",)])
def test_import_and_build_refuse_in_a_read_only_folder(read_only_folder, command):
    result = flashback(*command, data_dir=read_only_folder)
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert f"The data folder {read_only_folder} is read-only" in result.stderr
    assert "importing and building need a folder you can write to" in result.stderr


def _without_dac_override() -> None:
    """In the child, before exec: the bounding set loses the capabilities that let root ignore
    permission bits, so the program it execs runs without them."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) refused")


def _flashback_bound_by_permissions(*args: str, data_dir: Path) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environment["FLASHBACK_DATA_DIR"] = str(data_dir)
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=environment, capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL, preexec_fn=_without_dac_override)


@pytest.fixture
def read_only_file(tmp_path, built_demo) -> Path:
    data_dir = Path(shutil.copytree(built_demo, tmp_path / "data"))
    assert flashback("search", "Sintra", data_dir=data_dir).returncode == 0  # one run recorded before
    db_path(data_dir).chmod(0o400)
    try:
        probe = _flashback_bound_by_permissions("--version", data_dir=data_dir)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot start a process without CAP_DAC_OVERRIDE here ({exc})")
    if probe.returncode != 0:
        pytest.skip(f"cannot start a process without CAP_DAC_OVERRIDE here ({probe.stderr.strip()[-200:]})")
    return data_dir


def test_a_read_only_store_file_shows_results_and_one_note(read_only_file):
    """Finding 4: "Could not record the rerank run: attempt to write a readonly database"."""
    found = _flashback_bound_by_permissions("search", QUERY, data_dir=read_only_file)
    assert found.returncode == 0, found.stderr
    assert "✔ topic" in found.stdout
    notes = found.stderr.strip().splitlines()
    assert len(notes) == 1 and NOT_RECORDED in notes[0] and str(db_path(read_only_file)) in notes[0], notes
    assert "attempt to write" not in found.stderr
    for command in (("stats",), ("chats",), ("runs",)):
        assert _flashback_bound_by_permissions(*command, data_dir=read_only_file).returncode == 0, command
    assert _runs(read_only_file) == 1


@pytest.mark.parametrize("command", [("import", str(DEMO)), ("build",)])
def test_import_and_build_name_the_read_only_store_file(read_only_file, command):
    """The folder is writable: the sentence names the file, not the folder."""
    result = _flashback_bound_by_permissions(*command, data_dir=read_only_file)
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert f"The store file {db_path(read_only_file)} is read-only" in result.stderr
    assert "data folder" not in result.stderr
