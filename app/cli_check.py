"""`flashback check`: is the store sound, are the vectors, indexes and calibration usable;
repairs what it can and says what it did (engine.memory.check)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app import cli_memory
from app.cli_options import say
from app.cli_output import StageProgress, waiting_note, words


def add_command(commands: argparse._SubParsersAction) -> None:
    check = commands.add_parser("check", help="check the store, vectors, indexes and calibration; repair what it can")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    # The embedder the memory was built with: its vectors, index and calibration are checked.
    cli_memory._embedding_options(check)


def run_check(args: argparse.Namespace, data_dir: Path) -> int:
    service = cli_memory._service(args, data_dir)
    progress = StageProgress()
    report = service.memory.check(on_progress=progress, on_wait=waiting_note())
    progress.finish()
    if args.json:
        sys.stdout.write(json.dumps({**report.as_dict(), "ok": report.ok}, ensure_ascii=False) + "\n")
        return 0 if report.ok else 1
    for line in report.repaired:
        sys.stdout.write(words("cli.check.repaired", what=say(line)) + "\n")
    for line in report.problems:
        sys.stdout.write(words("cli.check.problem", what=say(line)) + "\n")
    if report.ok and not report.repaired:
        sys.stdout.write(words("cli.check.all_sound", checked=", ".join(say(line) for line in report.checked)) + "\n")
    elif report.ok:
        sys.stdout.write(words("cli.check.sound_now") + "\n")
    return 0 if report.ok else 1
