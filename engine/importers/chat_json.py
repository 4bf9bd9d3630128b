"""What the Discord, Messenger and Slack importers share: checked times, files by their
names, and reactions kept beside a message rather than in its text.

Reactions change after a message is sent; in the text they would change a content-keyed
message's identity (Messenger has no message ids) and make a re-export look like a conflict.
They go in the record's `reactions` and from there in the message's `meta` column
(`engine.importers.rows.message_meta`): kept, shown with the message, never searched as its words.
"""

from __future__ import annotations

import json
import math
from datetime import datetime

from engine.errors import ImportFormatError
from engine.importers.inputs import ExportInput
from engine.importers.records import Reaction
from engine.messages import msg

# Dates outside these years are a broken export, not a message: refused here, so no later
# step meets a year datetime cannot hold.
EARLIEST = -2208988800.0  # 1900-01-01 UTC
LATEST = 7258118400.0  # 2200-01-01 UTC

_PHOTO = {".jpg", ".jpeg", ".png", ".gif", ".webp", ".heic", ".bmp"}
_VIDEO = {".mp4", ".mov", ".webm", ".mkv", ".avi", ".m4v"}
_AUDIO = {".mp3", ".m4a", ".ogg", ".opus", ".wav", ".aac", ".flac"}


def as_dict(value: object) -> dict:
    """`value` when it is a JSON object, else an empty one: a field of the wrong type reads as absent."""
    return value if isinstance(value, dict) else {}


def checked_time(seconds: object, name: str, where: str | None = None) -> float:
    """`seconds` since the epoch as a float, or an import error naming the value and place."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not math.isfinite(seconds) \
            or not EARLIEST <= seconds < LATEST:
        raise ImportFormatError(name, msg("import.problem.not_a_date", value=str(seconds)[:40]), where)
    return float(seconds)


def iso_time(value: object, name: str, where: str | None = None) -> float:
    """An ISO 8601 time with its offset (Discord) as seconds since the epoch."""
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return checked_time(moment.timestamp(), name, where)
        except (ValueError, OverflowError, OSError):
            pass
    raise ImportFormatError(name, msg("import.problem.not_a_date", value=str(value)[:40]), where)


def kind_of_file(file_name: str) -> str:
    """An attachment's kind from its name's extension."""
    dot = file_name.rfind(".")
    extension = file_name[dot:].lower() if dot >= 0 else ""
    if extension in _PHOTO:
        return "photo"
    if extension in _VIDEO:
        return "video"
    if extension in _AUDIO:
        return "audio"
    return "file"


def reactions_record(reactions: list[tuple[str, list[str], int]]) -> list[Reaction] | None:
    """(emoji, who, count) reactions as the record's `reactions`; None when there are none."""
    found = [Reaction(emoji, tuple(people), max(count, len(people))) for emoji, people, count in reactions
             if people or count]
    return found or None


def load_json(part: ExportInput) -> object:
    """One JSON file of a multi-file export, whole (Slack's days and Messenger's parts are small);
    bad bytes and broken JSON said as the file's problem."""
    try:
        with open(part.path, "rb") as handle:
            return json.load(handle)
    except UnicodeDecodeError as exc:
        raise ImportFormatError(part.display_name, msg("import.problem.not_utf8")) from exc
    except ValueError as exc:
        raise ImportFormatError(part.display_name, msg("import.problem.json_damaged", detail=str(exc)[:80])) from exc
