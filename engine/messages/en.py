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
    # engine/index
    "index.unusable": "The search index {name} needs rebuilding ({reason}).",
    "index.missing": "missing",
    "index.corrupt.sidecar_unreadable": "corrupt: sidecar is not readable JSON ({error})",
    "index.corrupt.sidecar_not_object": "corrupt: sidecar is not a JSON object",
    "index.corrupt.no_format": "corrupt: sidecar has no format version",
    "index.corrupt.sidecar_field": "corrupt: sidecar field {field} is missing or not {kind}",
    "index.either_kind": "{first} or {second}",
    "index.corrupt.sidecar_deleted": "corrupt: sidecar deleted holds something other than integer labels",
    "index.corrupt.size": "corrupt: index file is {size} bytes, the sidecar says {expected}",
    "index.corrupt.checksum": "corrupt: index file does not match its sidecar (checksum differs)",
    "index.corrupt.space": "corrupt: sidecar space is {found}, not {expected}",
    "index.corrupt.ef_search": "corrupt: sidecar has no valid ef_search",
    "index.corrupt.unreadable": "corrupt: hnswlib could not read it ({error})",
    "index.corrupt.count": "corrupt: the file holds {items} items ({live} live), the sidecar says {expected_items} "
                           "({expected_live} live)",
    "index.stale.format": "stale: format version {found}, this Flashback reads {expected}",
    "index.stale.model": "stale: model changed from {saved} to {expected}",
    "index.stale.dimension": "stale: dimension {saved} in the index, {expected} expected",
    "index.stale.store": "stale: store changed",
    "index.stale.count": "stale: count {saved} in the index, {expected} expected",
}
