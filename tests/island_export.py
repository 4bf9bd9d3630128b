"""A small chat imported into a built store and left unbuilt: its messages are found by their words
only (candidates of kind "message"). Shared by the one-search tests (engine, CLI and MCP)."""

from __future__ import annotations

import json
from pathlib import Path

QUERY = "quokka selfie Rottnest"
QUOTED = "quokka selfie on Rottnest"  # what an answer, a context or a candidate quotes of it
ROWS = [
    {"chat": "Island trip", "id": "q1", "author": "Anna", "date": "2026-03-01T09:00:00+00:00",
     "text": "The quokka selfie on Rottnest island is the best photo of the trip", "role": "other"},
    {"chat": "Island trip", "id": "q2", "author": "Me", "date": "2026-03-01T09:05:00+00:00",
     "text": "Print the quokka one for the fridge", "role": "user"},
]


def write_island_export(folder: Path) -> Path:
    """The chat as a Flashback JSONL export in `folder`."""
    export = folder / "island.jsonl"
    export.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    return export
