"""Telegram message pieces: entity-list text, service actions and media as artifacts."""

from __future__ import annotations

import mimetypes
from posixpath import basename

from engine.importers.records import AttachmentRecord

# tdesktop writes these instead of a path when the file was not exported.
_PLACEHOLDER_PREFIX = "(File "
_MEDIA_KINDS = {
    "sticker": "sticker", "video_message": "video", "voice_message": "voice",
    "animation": "animation", "video_file": "video", "audio_file": "audio",
}


def flatten_text(parts: object) -> str:
    """`text` as tdesktop writes it (a string, or a list mixing strings and `{"type", "text"}`
    entity objects) as plain text. A damaged export may hold anything there: only what is text
    is read as text (issue 34: `None`, `['a', 'b']` and `{'obj': 'text'}` were stored as Python
    reprs): a list is its pieces, an entity its `text`, a number its digits, anything else nothing."""
    if type(parts) is str:
        return parts
    if isinstance(parts, list):
        return "".join(flatten_text(part) for part in parts)
    if isinstance(parts, dict):
        return flatten_text(parts.get("text"))
    if isinstance(parts, int | float) and not isinstance(parts, bool):
        return str(parts)
    return ""


def service_text(raw: dict) -> str:
    """A readable line for a service message ("Anna: pin message (42)")."""
    action = raw.get("action")
    actor = flatten_text(raw.get("actor")) or "Someone"
    if action is None:  # custom actions carry their own wording
        return flatten_text(raw.get("information_text")) or flatten_text(raw.get("text")) or "service message"
    details = []
    for key in ("title", "inviter", "message_id", "duration_seconds", "discard_reason"):
        value = flatten_text(raw.get(key))
        if value:
            details.append(f"{key.replace('_', ' ')}: {value}")
    members = raw.get("members")
    if isinstance(members, list) and members:
        named = [flatten_text(member) for member in members]
        if any(named):
            details.append("members: " + ", ".join(name for name in named if name))
    text = flatten_text(raw.get("text"))
    line = f"{actor}: {flatten_text(action).replace('_', ' ')}"
    if details:
        line += " (" + "; ".join(details) + ")"
    return f"{line} {text}".strip()


def _path_fields(value: object) -> tuple[str | None, str | None]:
    """(relative path, missing reason) from a tdesktop media value."""
    if not isinstance(value, str) or not value:
        return None, None
    if value.startswith(_PLACEHOLDER_PREFIX):
        return None, value.strip("()")
    return value, None


def _size(raw: dict, *keys: str) -> int | None:
    for key in keys:
        value = raw.get(key)
        if isinstance(value, int) and -(2**63) <= value < 2**63:  # what SQLite can store
            return value
    return None


def text_or_none(value: object) -> str | None:
    """A field that should be a string, as one; None where a damaged export holds no text
    there (never a list's or an object's Python repr)."""
    if value is None or type(value) is str:
        return value
    return flatten_text(value) or None


def attachments_of(raw: dict) -> list[AttachmentRecord]:
    found: list[AttachmentRecord] = []
    if "photo" in raw:
        rel, missing = _path_fields(raw["photo"])
        found.append(AttachmentRecord(
            kind="photo", file_name=basename(rel) if rel else None, mime="image/jpeg",
            size=_size(raw, "photo_file_size", "file_size"), rel_path=rel, missing=missing))
    if "file" in raw:
        rel, missing = _path_fields(raw["file"])
        kind = _MEDIA_KINDS.get(str(raw.get("media_type")), "file")
        name = text_or_none(raw.get("file_name")) or (basename(rel) if rel else None)
        mime = text_or_none(raw.get("mime_type")) or (mimetypes.guess_type(name)[0] if name else None)
        found.append(AttachmentRecord(
            kind=kind, file_name=name, mime=mime, size=_size(raw, "file_size"), rel_path=rel, missing=missing))
    return found
