"""Issue 26: `flashback search` after a big import answers at once (the new messages by
their words) and suggests `flashback build`, instead of building everything first; a small
import is still built on the way (a few seconds, once)."""

from __future__ import annotations

import json

from app.cli_memory import AUTO_BUILD_MESSAGES
from bench.synth_telegram import write_export
from tests.cli_run import DEMO, flashback


def test_a_big_import_is_searched_at_once_and_build_is_suggested(tmp_path):
    export = tmp_path / "result.json"
    write_export(export, AUTO_BUILD_MESSAGES["builtin"] + 1000)
    data_dir = tmp_path / "data"
    assert flashback("import", str(export), data_dir=data_dir).returncode == 0

    searched = flashback("search", "билет поезд", "--json", data_dir=data_dir)

    assert searched.returncode == 0, searched.stderr
    assert "building the memory first" not in searched.stderr
    assert "not built into memory yet were searched by their words only" in searched.stderr
    assert "flashback build" in searched.stderr
    outcome = json.loads(searched.stdout)
    assert outcome["candidates"] and {c["kind"] for c in outcome["candidates"]} == {"message"}
    stats = json.loads(flashback("stats", "--json", data_dir=data_dir).stdout)
    assert stats["topics"] == 0  # nothing was built on the way


def test_a_small_import_is_built_on_the_way(tmp_path):
    data_dir = tmp_path / "data"
    assert flashback("import", str(DEMO), data_dir=data_dir).returncode == 0
    searched = flashback("search", "hotel in Lisbon", "--json", data_dir=data_dir)
    assert searched.returncode == 0, searched.stderr
    assert "building the memory first" in searched.stderr
    assert "not built into memory yet" not in searched.stderr
    assert any(c["kind"] == "topic" for c in json.loads(searched.stdout)["candidates"])
