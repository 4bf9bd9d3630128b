"""Running `flashback` as a user does, for the CLI tests: a real child process, its own
environment (no API keys leaking in from the developer's shell), stdin and umask."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import resources

ROOT = Path(__file__).resolve().parents[1]
DEMO = resources.demo_export()


def flashback(*args: str | bytes, data_dir: Path, env: dict[str, str] | None = None, drop: tuple[str, ...] = (),
              stdin: int | None = subprocess.DEVNULL, input: str | None = None, umask: int = 0o022,
              timeout: float = 180) -> subprocess.CompletedProcess:
    """`input` is piped to standard input (`echo KEY | flashback key set`); else `stdin` is used."""
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k not in drop}
    environment.update({"FLASHBACK_DATA_DIR": str(data_dir), **(env or {})})
    feed = {"input": input} if input is not None else {"stdin": stdin}
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=environment, **feed,
                          capture_output=True, text=True, umask=umask, timeout=timeout,
                          start_new_session=True)  # no controlling terminal: getpass cannot wait on /dev/tty


def one_sentence(stderr: str) -> bool:
    """What a user's mistake may print: one line, no traceback."""
    return "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1


def copy_data(folder: Path, tmp_path: Path) -> Path:
    """A private copy of a built data folder (the `built_demo` fixture's), for a test to damage."""
    import shutil

    return Path(shutil.copytree(folder, tmp_path / "data"))
