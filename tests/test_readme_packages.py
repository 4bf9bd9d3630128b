"""The README's system packages are the ones CI installs for the window (issue 23, finding 6):
with the three the README named, Qt's window still failed on a bare Debian (libxcb-icccm4 and
libxcb-keysyms1 missing, and Qt blamed xcb-cursor). `.ci/run` names the window's packages in
WINDOW_PACKAGES, apart from CI's own tools (a virtual display, validators)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_packages() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"`sudo apt-get install ([^`]+)`", text)
    assert len(commands) == 1, commands
    return commands[0].split()


def ci_window_packages() -> list[str]:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    found = re.search(r'^\s*WINDOW_PACKAGES="([^"]+)"', script, re.M)
    assert found, "WINDOW_PACKAGES is not set in .ci/run"
    assert "$WINDOW_PACKAGES" in script.split(found.group(0), 1)[1], "CI no longer installs WINDOW_PACKAGES"
    return found.group(1).split()


def test_the_readme_names_every_package_ci_installs_for_the_window():
    assert readme_packages() == ci_window_packages()
    assert {"libxcb-icccm4", "libxcb-keysyms1", "libxcb-cursor0"} <= set(readme_packages())
