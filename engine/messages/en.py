"""English renderings of every engine message code (`engine.messages`).

Keys are codes; values are `str.format` templates over the code's parameters. A code added
here needs its Russian rendering in `ru.py` too (tests/engine/test_messages.py)."""

from __future__ import annotations

CATALOGUE: dict[str, str] = {
    # Text that has no code yet: shown as it is.
    "error.text": "{text}",
    # engine/errors.py
    "import.cannot_read": "Could not import {source}: {problem}",
    "import.cannot_read_at": "Could not import {source} ({where}): {problem}",
    "import.cancelled": "Import cancelled; nothing was changed.",
}
