"""Helpers for the window tests: JSONL exports written on the fly, screenshots beside the tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SCREENSHOTS = Path(__file__).parents[1] / "screenshots"


def write_jsonl(path: Path, lines: int, chats: int = 2) -> Path:
    """Write `lines` valid Flashback JSONL messages spread over `chats` chats."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(
            json.dumps({
                "chat": f"Chat {number % chats}",
                "id": str(number),
                "author": ("Anna", "Ben", "Chloé")[number % 3],
                "date": f"2024-05-{1 + number % 28:02d}T{number % 24:02d}:{number % 60:02d}:00+00:00",
                "text": f"message number {number} about something worth remembering",
            }) + "\n"
            for number in range(lines)
        )
    return path


@pytest.fixture
def screenshots_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
