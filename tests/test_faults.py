"""Issue 12, findings 4, 5 and 6: a full disk, a read-only folder, damage inside the store, a
deleted index folder. Each told in one sentence saying what to do; nothing half-written.

The full disk and the read-only folder are real: a small tmpfs (skipped, with the reason,
where this process may not mount one)."""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
import subprocess
import uuid
from contextlib import closing
from pathlib import Path

import pytest

from engine.store.database import db_path
from tests.cli_run import DEMO, copy_data, flashback, one_sentence

QUERY = "день рождения"


@pytest.fixture
def small_disk(tmp_path):
    """An 8 MiB tmpfs, unmounted afterwards: room for the demo's build and its WAL (~3 MB), not for
    the 14 MB import below."""
    point = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", str(point)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.strip() or 'mount failed'})")
    yield point
    subprocess.run(["umount", "-l", str(point)], check=False)


def _messages(data_dir: Path) -> int:
    with closing(sqlite3.connect(db_path(data_dir))) as connection, connection:
        return connection.execute("SELECT count(*) FROM message").fetchone()[0]


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    # Unbuffered: a buffered file keeps the chunk that did not fit and fails again on close.
    with open(filler, "wb", buffering=0) as handle:
        chunk = b"\0" * 65536
        try:
            while True:
                handle.write(chunk)
        except OSError:
            pass
        try:  # the last bytes the chunks could not fill
            while handle.write(b"\0" * 512):
                pass
        except OSError:
            pass
    return filler


def test_a_full_disk_is_told_plainly_and_nothing_half_written_is_kept(small_disk, tmp_path):
    """Finding 4: the last line was "cannot rollback - no transaction is active"."""
    from bench.synth_telegram import write_export

    data_dir = small_disk / "data"
    assert flashback("import", str(DEMO), data_dir=data_dir).returncode == 0
    before = _messages(data_dir)
    big = tmp_path / "result.json"
    write_export(big, 30_000, seed=5)  # ~14 MB of messages: cannot fit in what is left of 8 MiB
    result = flashback("import", str(big), data_dir=data_dir)
    assert result.returncode == 1
    assert one_sentence(result.stderr), result.stderr
    assert "is full" in result.stderr and "free some space" in result.stderr
    assert "rollback" not in result.stderr
    assert _messages(data_dir) == before  # the failed import left nothing

    filler = _fill(small_disk)
    built = flashback("build", data_dir=data_dir)
    assert built.returncode == 1 and "Traceback" not in built.stderr, built.stderr
    assert built.stderr.strip().splitlines()[-1].startswith("error: The disk holding"), built.stderr  # after progress
    assert "is full" in built.stderr
    filler.unlink()
    assert flashback("build", data_dir=data_dir).returncode == 0  # after freeing space all works
    assert flashback("search", QUERY, data_dir=data_dir).returncode == 0


def test_a_read_only_folder_is_told_plainly(small_disk):
    data_dir = small_disk / "data"
    assert flashback("import", str(DEMO), data_dir=data_dir).returncode == 0
    remounted = subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], capture_output=True, text=True)
    if remounted.returncode != 0:
        pytest.skip(f"cannot remount read-only here ({remounted.stderr.strip()})")
    result = flashback("import", str(DEMO), data_dir=data_dir)
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert "read-only" in result.stderr


def _damage_vectors(data_dir: Path) -> int:
    """Overwrite part of the topic index's full vectors with 0xFF bytes, as a disk error or a bad
    copy would (the built-in embedder's vectors live beside its index since issue 26; a model whose
    vectors are cached has its damaged rows found by tests/engine/memory/test_damaged_cache.py)."""
    path = data_dir / "index" / "topics.vec"
    with open(path, "r+b") as handle:
        handle.seek(path.stat().st_size // 2)
        handle.write(b"\xff" * 64)
    return 1


def _nan_calibration(data_dir: Path) -> None:
    path = data_dir / "index" / "calibration.json"
    saved = json.loads(path.read_text())
    for entry in saved.values():
        entry["unrelated"] = entry["related"] = float("nan")
    path.write_text(json.dumps(saved))


def test_damaged_vectors_and_a_nan_calibration_are_found_and_recomputed_by_a_build(built_demo, tmp_path):
    """Finding 5: the build wrote NaN into calibration.json and every search then came back
    empty, exit 0, without a word; building again did not cure it."""
    data_dir = copy_data(built_demo, tmp_path)
    assert _damage_vectors(data_dir) > 0
    _nan_calibration(data_dir)
    searched = flashback("search", QUERY, "--json", data_dir=data_dir)
    assert searched.returncode == 0
    assert any("calibration is invalid" in note for note in json.loads(searched.stdout)["notes"])
    built = flashback("build", data_dir=data_dir)
    assert built.returncode == 0, built.stderr
    assert "repaired: calibration measured again" in built.stdout
    assert "repaired the topic index (corrupt: its file of full vectors" in built.stdout
    saved = json.loads((data_dir / "index" / "calibration.json").read_text())
    assert all(math.isfinite(entry["unrelated"]) and math.isfinite(entry["related"]) for entry in saved.values())
    after = flashback("search", QUERY, "--json", data_dir=data_dir)
    outcome = json.loads(after.stdout)
    assert outcome["candidates"] and "notes" not in outcome


def test_a_build_that_meets_damaged_vectors_makes_them_again(built_demo, tmp_path):
    data_dir = copy_data(built_demo, tmp_path)
    damaged = _damage_vectors(data_dir)
    searched = flashback("search", QUERY, "--json", data_dir=data_dir)
    assert searched.returncode == 0 and json.loads(searched.stdout)["candidates"], searched.stderr
    assert "out of date (corrupt" in searched.stderr  # searched without the damaged file, and says so
    built = flashback("build", "--json", data_dir=data_dir)
    assert built.returncode == 0, built.stderr
    report = json.loads(built.stdout)
    assert report["rebuilt"]["topic"].startswith("corrupt: its file of full vectors") and damaged
    after = flashback("search", QUERY, "--json", data_dir=data_dir)
    assert "notes" not in json.loads(after.stdout) and json.loads(after.stdout)["candidates"]


def test_a_deleted_index_folder_is_rebuilt_by_the_next_search_without_re_embedding(built_demo, tmp_path):
    """Finding 6: the first search after `rm -rf index/` returned 0 candidates with no hint."""
    data_dir = copy_data(built_demo, tmp_path)
    shutil.rmtree(data_dir / "index")
    result = flashback("search", QUERY, "--json", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    assert "index folder is missing" in result.stderr and "0 texts embedded" in result.stderr
    assert json.loads(result.stdout)["candidates"]


def test_a_deleted_index_folder_is_named_to_the_window(built_demo, tmp_path):
    from engine.api import Flashback, IndexLost

    data_dir = copy_data(built_demo, tmp_path)
    shutil.rmtree(data_dir / "index")
    service = Flashback(data_dir)
    assert service.memory.status().needs_build
    with pytest.raises(IndexLost, match="Build memory"):
        service.search.candidates(QUERY)
    service.memory.build()
    assert service.search.candidates(QUERY).candidates
