"""Issue 12, findings 5 and 7 at the command line: `flashback check` (quick_check, vectors,
indexes, calibration; what it repaired), damage inside the store file told in one sentence,
numeric options refused in one sentence, conflicting duplicate ids reported by `import`."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from engine.store.database import db_path
from tests.cli_run import copy_data, flashback
from tests.test_faults import _damage_vectors, _nan_calibration
from tests.ui.test_one_catalogue import english_words

QUERY = "день рождения"


def test_check_on_a_sound_store_says_so(built_demo, tmp_path):
    data_dir = copy_data(built_demo, tmp_path)
    result = flashback("check", "--json", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] and not report["repaired"] and not report["problems"]
    assert {"store file (quick_check)", "stored vectors", "topic index", "calibration"} <= set(report["checked"])
    assert flashback("check", data_dir=data_dir).stdout.startswith("all sound: ")


def test_check_repairs_damaged_vectors_and_remeasures_a_nan_calibration(built_demo, tmp_path):
    """The built-in embedder's vectors live beside its index since issue 26: damage there is a
    corrupt index, rebuilt from the store's topics."""
    data_dir = copy_data(built_demo, tmp_path)
    assert _damage_vectors(data_dir) > 0
    _nan_calibration(data_dir)
    result = flashback("check", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    assert "repaired: rebuilt the topic index (corrupt" in result.stdout, result.stdout
    assert "repaired: measured the calibration again (it was invalid" in result.stdout
    again = json.loads(flashback("check", "--json", data_dir=data_dir).stdout)
    assert again["ok"] and not again["repaired"]  # the repair held
    found = json.loads(flashback("search", QUERY, "--json", data_dir=data_dir).stdout)
    assert found["candidates"] and "notes" not in found


def test_check_rebuilds_a_deleted_index_file(built_demo, tmp_path):
    data_dir = copy_data(built_demo, tmp_path)
    (data_dir / "index" / "topics.hnsw").unlink()
    result = flashback("check", data_dir=data_dir)
    assert result.returncode == 0 and "repaired: rebuilt the topic index (missing" in result.stdout, result.stdout


def test_check_remakes_a_deleted_index_folder_without_embedding_anything(built_demo, tmp_path):
    """Finding 6: with `index/` gone the built-in embedder lost its fitted table; a check that
    looked only at this unfitted model's (absent) vectors would call the store sound."""
    data_dir = copy_data(built_demo, tmp_path)
    shutil.rmtree(data_dir / "index")
    result = flashback("check", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    assert "repaired: remade the missing index folder (0 texts embedded anew)" in result.stdout
    assert flashback("check", data_dir=data_dir).stdout.startswith("all sound: ")


def _damage_a_page(data_dir: Path) -> None:
    """8 KB of garbage over two b-tree pages of the embedding cache: `PRAGMA quick_check` fails."""
    path = db_path(data_dir)
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = connection.execute("PRAGMA page_size").fetchone()[0]
        pages = [r[0] for r in connection.execute(
            "SELECT pageno FROM dbstat WHERE name = 'embedding_cache' AND pagetype = 'leaf' ORDER BY pageno")]
    with open(path, "r+b") as handle:
        handle.seek((pages[len(pages) // 2] - 1) * size)
        handle.write(os.urandom(8192))


def test_damage_in_the_store_file_is_found_and_told_in_one_sentence(built_demo, tmp_path):
    """Finding 5: the build exited 0 over a damaged page; only `PRAGMA integrity_check` saw it."""
    data_dir = copy_data(built_demo, tmp_path)
    _damage_a_page(data_dir)
    checked = flashback("check", "--json", data_dir=data_dir)
    assert checked.returncode == 1, checked.stderr
    report = json.loads(checked.stdout)
    assert not report["store_ok"] and "the store file is damaged" in report["problems"][0]
    assert "import your exports into a new data folder" in report["problems"][0]
    built = flashback("build", data_dir=data_dir)  # it reads every vector: meets the damage
    assert built.returncode == 1 and "Traceback" not in built.stderr
    assert built.stderr.strip().splitlines()[-1].startswith("error: The store in"), built.stderr
    assert "is damaged" in built.stderr and "flashback check" in built.stderr


@pytest.mark.parametrize(("option", "value", "words"), [
    ("--candidates", "-5", "--candidates must be between 1 and 200 (got -5)."),
    ("--top-k", "-1", "--top-k must be between 1 and 50 (got -1)."),
    ("--top-k", "two", "--top-k must be a number (got 'two')."),
    ("--threshold", "nan", "--threshold must be between 0 and 1 (got nan)."),
    ("--safety", "1.5", "--safety must be between 0 and 1 (got 1.5)."),
    ("--gap", "inf", "--gap must be between 0 and 1 (got inf)."),
])
def test_numeric_options_out_of_range_are_refused_in_one_sentence(tmp_path, option, value, words):
    """Finding 7: `--candidates -5`, `--top-k -1` and `--threshold nan` were accepted."""
    result = flashback("search", QUERY, f"{option}={value}", data_dir=tmp_path / "data")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]  # argparse's usage line comes first
    assert last.endswith(f"argument {option}: {words}"), result.stderr
    assert not (tmp_path / "data").exists()  # refused before anything was opened


@pytest.mark.parametrize(("command", "option", "value", "words"), [
    ("search", "--timeout", "nan", "--timeout must be between 1 and 600 s (got nan)."),
    ("search", "--rewrite-timeout", "-1", "-1 must be a number above 0"),
    ("search", "--turn1-share", "0", "--turn1-share must be between 0.05 and 1 (got 0)."),
    ("search", "--turn1-share", "1.5", "--turn1-share must be between 0.05 and 1 (got 1.5)."),
    ("search", "--max-tool-calls", "-1", "--max-tool-calls must be between 1 and 10 (got -1)."),
    ("search", "--max-tokens-answer", "0", "0 is too small: give 1 or more"),
    ("search", "--people-shown", "-3", "-3 is too small: give 0 or more"),
    ("build", "--llm-timeout", "0", "0 must be a number above 0"),
    ("build", "--llm-concurrency", "0", "0 is too small: give 1 or more"),
    ("export", "--budget", "-100", "--budget must be between 100 and 200,000 tokens (got -100)."),
    ("runs", "--limit", "0", "0 is too small: give 1 or more"),
    ("tune", "--threshold", "2", "--threshold must be between 0 and 1 (got 2)."),
    ("tune", "--budget", "0", "--budget must be between 100 and 200,000 characters (got 0).")
])
def test_every_numeric_option_is_checked_before_anything_runs(tmp_path, command, option, value, words):
    """Finding 7 for every command: seconds, shares, counts and budgets are refused in one
    sentence when out of range, instead of failing later inside the engine (or not at all)."""
    query = [] if command in ("build", "runs", "tune") else [QUERY]
    result = flashback(command, *query, f"{option}={value}", data_dir=tmp_path / "data")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].endswith(f"argument {option}: {words}"), result.stderr
    assert not (tmp_path / "data").exists()


def test_import_reports_ids_seen_again_with_another_text(tmp_path):
    """Finding 7: the same message id with different text was dropped silently (seen 2, added 1)."""
    export = tmp_path / "chat.jsonl"
    export.write_text("".join(json.dumps({"chat": "Family", "id": "7", "author": "Anna", "text": text,
                                          "date": "2024-05-01T10:00:00+00:00"}) + "\n"
                              for text in ("see you at noon", "see you at one")), encoding="utf-8")
    result = flashback("import", str(export), data_dir=tmp_path / "data")
    assert result.returncode == 0, result.stderr
    assert "1 new of 2 messages" in result.stdout
    assert "1 message with an id already seen but another text (the first text was kept)" in result.stdout
    as_json = flashback("import", str(export), "--json", "--format", "jsonl", data_dir=tmp_path / "other")
    assert json.loads(as_json.stdout)["imports"][0]["sources"][0]["messages_conflicting"] == 1


def test_check_speaks_russian_when_asked(built_demo, tmp_path):
    """One catalogue (issue 31): `flashback check` said "repaired:", "problem:" and "all sound:"
    in English whatever FLASHBACK_LANG said; its lines and its progress are the catalogue's now."""
    data_dir = copy_data(built_demo, tmp_path)
    russian = {"FLASHBACK_LANG": "ru"}
    sound = flashback("check", data_dir=data_dir, env=russian)
    assert sound.returncode == 0, sound.stderr
    assert sound.stdout.startswith("всё в порядке: файл хранилища"), sound.stdout
    assert _damage_vectors(data_dir) > 0
    _nan_calibration(data_dir)
    repaired = flashback("check", data_dir=data_dir, env=russian)
    assert repaired.returncode == 0, repaired.stderr
    assert "исправлено: перестроен индекс тем" in repaired.stdout, repaired.stdout
    assert "теперь хранилище в порядке" in repaired.stdout, repaired.stdout
    for said in (sound, repaired):
        for text in (said.stdout, said.stderr):
            english = english_words(text) - {"nan"}  # the broken calibration's values, as Python writes them
            assert not english, (english, text)
