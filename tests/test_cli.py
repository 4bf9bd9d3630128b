"""The `flashback` command as a user runs it (a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, data_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "FLASHBACK_DATA_DIR": str(data_dir)}
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=env, capture_output=True, text=True)


def test_import_and_stats_json(exports_dir, tmp_path):
    result = run("import", str(exports_dir / "telegram"), "--json", data_dir=tmp_path / "d")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert [s["format"] for s in payload["imports"][0]["sources"]] == ["telegram", "telegram"]
    stats = json.loads(run("stats", "--json", data_dir=tmp_path / "d").stdout)
    # The two samples are one chat without ids, exported alone and in an account: the second is
    # recognised by its messages and adds nothing (issue 23), and the JSON says which chat it matched.
    assert stats["messages"] == 2 and stats["sources"] == 2 and stats["chats"] == 1
    assert [s["matched"] for s in payload["imports"][0]["sources"]][1][0]["by"] == "content"
    assert set(stats) >= {"sources", "chats", "people", "messages", "artifacts", "topics"}


def test_data_dir_flag_wins_over_env(exports_dir, tmp_path):
    env_dir, flag_dir = tmp_path / "env", tmp_path / "flag"
    result = run("--data-dir", str(flag_dir), "import", str(exports_dir / "whatsapp"), data_dir=env_dir)
    assert result.returncode == 0 and (flag_dir / "flashback.sqlite3").exists()
    assert not (env_dir / "flashback.sqlite3").exists()


def test_bad_input_exits_non_zero_with_one_sentence(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"messages": [{"id": 1, "type": "message", "date_unixtime": "1", "text": "a"},')
    result = run("import", str(bad), "--json", data_dir=tmp_path / "d")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "Could not import bad.json" in result.stderr
    payload = json.loads(result.stdout)
    assert payload["errors"][0]["path"] == str(bad) and payload["stats"]["messages"] == 0


def test_unknown_format_flag_is_rejected(tmp_path):
    result = run("import", "x.json", "--format", "viber", data_dir=tmp_path / "d")
    assert result.returncode == 2 and "invalid choice" in result.stderr
