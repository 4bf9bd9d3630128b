"""`flashback tune`: on the LoCoMo dev slice it raises the cross-validated kept F1 above the
defaults'; its JSON has the issue's shape; bad input gets one sentence."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from app import cli_tune
from app.cli import build_parser
from bench.locomo import DEFAULT_LOCOMO
from bench.locomo_convert import convert
from engine.api import Flashback
from engine.errors import EngineError
from tests.cli_run import flashback, one_sentence

REGISTERED = "tune" in build_parser()._subparsers._group_actions[0].choices


def tune(*args: str, data_dir: Path) -> subprocess.CompletedProcess:
    """`flashback tune …` as a user runs it; until app/cli.py registers the command, the same
    parser and handler in this process, errors printed the way app/cli.main prints them."""
    if REGISTERED:
        return flashback("tune", *args, data_dir=data_dir)
    parser = argparse.ArgumentParser(prog="flashback")
    cli_tune.add_command(parser.add_subparsers(dest="command"))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = cli_tune.run_tune(parser.parse_args(["tune", *args]), data_dir)
        except EngineError as exc:
            err.write(f"error: {exc}\n")
            code = 1
    return subprocess.CompletedProcess(["tune", *args], code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def locomo(tmp_path_factory) -> tuple[Path, Path]:
    if not DEFAULT_LOCOMO.exists():
        pytest.skip("the LoCoMo dev slice is not in ../shared/data/locomo")
    work = tmp_path_factory.mktemp("locomo")
    export, qrels = work / "locomo.jsonl", work / "qrels.json"
    convert(DEFAULT_LOCOMO, export, qrels)
    service = Flashback(work / "store")
    service.imports.import_path(export)
    service.memory.build()
    return work / "store", qrels


def test_tune_on_the_dev_slice_beats_the_defaults_out_of_sample(locomo):
    data, qrels = locomo
    result = tune(str(qrels), "--json", "--no-lexical", data_dir=data)
    assert result.returncode == 0, result.stderr
    shaped = json.loads(result.stdout)
    assert {"objective", "settings", "before", "after", "cross_validated"} <= shaped.keys()
    assert {"threshold", "gap", "top_k", "lexical_weight"} == shaped["settings"].keys()
    assert shaped["objective"] == "f1" and shaped["before"]["queries"] == 760
    for figures in (shaped["before"], shaped["after"], shaped["cross_validated"]):
        assert {"kept_precision", "kept_recall", "kept_f1"} <= figures.keys()
    gain = shaped["cross_validated"]["kept_f1"] - shaped["before"]["kept_f1"]
    assert gain > 3 * shaped["noise"]["standard_error"] > 0  # well past the slice's noise
    assert shaped["after"]["kept_f1"] >= shaped["cross_validated"]["kept_f1"] - 0.02


def test_recall_at_budget_and_the_readable_table(locomo):
    data, qrels = locomo
    result = tune(str(qrels), "--objective", "recall@budget", "--budget", "6000", "--no-lexical", "--folds", "3",
                  data_dir=data)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("tuned for recall@budget over 760 queries, 3-fold cross-validated")
    assert [line.split()[0] for line in lines[2:5]] == ["before", "after", "cross_validated"]


def test_bad_input_gets_one_sentence(tmp_path, locomo):
    bad = tmp_path / "qrels.json"
    bad.write_text('{"queries": [{"id": 1, "query": "x"}]}', encoding="utf-8")
    result = tune(str(bad), data_dir=tmp_path / "store")
    assert result.returncode == 1 and one_sentence(result.stderr) and "QRELS" in result.stderr

    data, qrels = locomo
    result = tune(data_dir=data)  # no file, and no labels made in the window yet
    assert result.returncode == 1 and one_sentence(result.stderr) and "no labels yet" in result.stderr
    result = tune(str(qrels), "--folds", "1", data_dir=data)
    assert result.returncode == 1 and one_sentence(result.stderr) and "--folds" in result.stderr
