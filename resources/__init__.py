"""What the app reads at run time and ships inside the wheel: the demo export, the `.qm`
translations and the icons.

Everything is found through `importlib.resources`, never a path relative to the
repository, so the same code works from a checkout, an installed wheel (pip, pipx) and a
PyInstaller bundle. Qt and the importers want real files, so a resource inside a zip (a
zipapp, an egg) is copied to a temporary file that lives as long as the process.
"""

from __future__ import annotations

import atexit
import contextlib
from importlib.resources import as_file, files
from pathlib import Path

_extracted = contextlib.ExitStack()
atexit.register(_extracted.close)

DEMO = ("demo", "telegram_demo_export.json")
DEMO_MESSAGES = 434  # what `flashback --self-test` expects the bundled demo to hold


def path(*parts: str) -> Path | None:
    """A real file for the resource at `parts` (e.g. `path("icons", "flashback.svg")`),
    or None when this installation does not carry it."""
    resource = files(__name__).joinpath(*parts)
    if not resource.is_file():
        return None
    if isinstance(resource, Path):
        return resource
    return _extracted.enter_context(as_file(resource))


def demo_export() -> Path | None:
    """The bundled fictional Telegram export that `flashback --demo` imports."""
    return path(*DEMO)


def translation(language: str) -> Path | None:
    """The compiled Qt translation for `language` ("ru"), or None."""
    return path("i18n", f"flashback_{language}.qm")


def icon(suffix: str = "svg") -> Path | None:
    """The app icon as SVG (scalable) or PNG (256 px)."""
    return path("icons", f"flashback.{suffix}")
