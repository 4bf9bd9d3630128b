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
    """`text` as a list mixing plain strings and `{"type", "text"}` entity objects."""
    if not isinstance(parts, list):
        return "" if parts is None else str(parts)
    out = []
    for part in parts:
        if type(part) is str:
            out.append(part)
        elif isinstance(part, dict):
            piece = part.get("text", "")
            out.append(piece if type(piece) is str else str(piece))
    return "".join(out)


def service_text(raw: dict) -> str:
    """A readable line for a service message ("Anna: pin message (42)")."""
    action = raw.get("action")
    actor = raw.get("actor") or "Someone"
    if action is None:  # custom actions carry their own wording
        return str(raw.get("information_text") or flatten_text(raw.get("text", "")) or "service message")
    details = []
    for key in ("title", "inviter", "message_id", "duration_seconds", "discard_reason"):
        if raw.get(key) is not None:
            details.append(f"{key.replace('_', ' ')}: {raw[key]}")
    members = raw.get("members")
    if isinstance(members, list) and members:
        details.append("members: " + ", ".join(str(m) for m in members if m))
    text = flatten_text(raw.get("text", ""))
    line = f"{actor}: {str(action).replace('_', ' ')}"
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
    """A field that should be a string, as one (a damaged export may hold anything)."""
    return value if value is None or type(value) is str else str(value)


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
