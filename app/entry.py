"""The `flashback` console script: answers `--version` before anything heavy is imported.

`app.cli` pulls in the engine (SQLModel, numpy, hnswlib): ~0.7 s before argparse even runs.
A version query, which packagers and users run to check an install, needs none of it.
"""

from __future__ import annotations

import sys


def main() -> int:
    if sys.argv[1:] in (["--version"], ["-V"]):
        from app import __version__

        sys.stdout.write(f"flashback {__version__}\n")
        return 0
    from app.cli import main as run

    return run()
