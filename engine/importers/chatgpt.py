"""Importer for the ChatGPT data export (`conversations.json`).

The file is one JSON list of conversations; each conversation stores its messages as a
tree (`mapping`), because edited prompts and regenerated answers fork it. We import only
the thread the user last saw: the path from `current_node` up to the root. The list is
streamed one conversation at a time (`json_stream.array_items`), since real exports run to
hundreds of MB; a string longer than the message cap (a pasted log) is cut as it streams,
so memory does not follow the size of one message.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from engine.errors import ImportFormatError
from engine.importers.base import Importer
from engine.importers.inputs import ExportInput
from engine.importers.json_stream import JsonCutOff, JsonDamaged, array_items
from engine.importers.records import (
    EARLIEST_TIME,
    LATEST_TIME,
    AttachmentRecord,
    ChatRecord,
    MessageRecord,
    checked_time,
)
from engine.messages import msg

_JSON_SPACE = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"
# `[` then `{`: a list of objects. WhatsApp iOS lines also start with `[`, but with a date.
_LIST_OF_OBJECTS = re.compile(rb"\A\s*\[\s*\{")
_TITLE_NEAR_ID = re.compile(rb'"title".{0,4000}?"(?:conversation_id|mapping)"', re.DOTALL)
_TITLE_AFTER_ID = re.compile(rb'"(?:conversation_id|mapping)".{0,4000}?"title"', re.DOTALL)
# What bad bytes make the JSON reader raise (JsonCutOff and JsonDamaged are ValueErrors too;
# RecursionError: nesting deeper than it recurses). The fields are checked where they are
# read, so a KeyError, TypeError or AttributeError is a bug and goes on to the registry's guard.
_DECODE_ERRORS = (ValueError, RecursionError)

Record = ChatRecord | MessageRecord


class ChatGPTImporter(Importer):
    format_name = "chatgpt"

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        head = head.removeprefix(_BOM)
        if not _LIST_OF_OBJECTS.match(head):
            return False
        if b'"mapping"' in head and (b'"current_node"' in head or b'"create_time"' in head):
            return True
        return bool(_TITLE_NEAR_ID.search(head) or _TITLE_AFTER_ID.search(head))

    def parse(self, source: ExportInput, report: Callable[[int], None]) -> Iterator[Record]:
        name = source.display_name
        try:
            with open(source.path, "rb") as handle:
                yield from _stream(handle, name, report, self.skipped)
        except OSError as exc:
            raise ImportFormatError(name, msg("import.problem.unreadable", reason=exc.strerror or str(exc))) from exc


def _stream(handle: BinaryIO, name: str, report: Callable[[int], None], skipped: Counter[str]) -> Iterator[Record]:
    _seek_to_list(handle, name)
    conversations = array_items(handle.read, trailing="whitespace")
    index = 0
    while True:
        try:
            conversation = next(conversations)
        except StopIteration:
            return
        except JsonCutOff as exc:
            where = msg("import.where.conversation", number=index + 1)
            raise ImportFormatError(name, msg("import.problem.chatgpt_cut_off"), where=where) from exc
        except JsonDamaged as exc:
            problem = msg("import.problem.json_damaged", detail=str(exc))
            raise ImportFormatError(name, problem, where=msg("import.where.conversation", number=index + 1)) from exc
        except _DECODE_ERRORS as exc:
            where = msg("import.where.conversation", number=index + 1)
            problem = msg("import.problem.damaged_unreadable")
            if isinstance(exc, UnicodeDecodeError):
                problem = msg("import.problem.damaged_not_utf8")
            raise ImportFormatError(name, problem, where=where) from exc
        records = _conversation_records(conversation, index, name, skipped)
        # Yield outside the try blocks: errors raised by the consumer must not be relabelled.
        yield from records
        report(handle.tell())
        index += 1


def _seek_to_list(handle: BinaryIO, name: str) -> None:
    """Position the handle on the opening `[`, or say plainly that the file is no list."""
    head = handle.read(4096)
    start = len(_BOM) if head.startswith(_BOM) else 0
    while start < len(head) and head[start] in _JSON_SPACE:
        start += 1
    if start >= len(head):
        raise ImportFormatError(name, msg("import.problem.empty_file"))
    if head[start : start + 1] != b"[":
        raise ImportFormatError(name, msg("import.problem.not_chatgpt"))
    handle.seek(start)


def _conversation_records(conv: Any, index: int, name: str, skipped: Counter[str]) -> list[Record]:
    """The conversation's chat and the messages of its displayed thread; the nodes ChatGPT does not
    show (system prompts, custom instructions, hidden tool calls, empty nodes) counted in `skipped`."""
    if not isinstance(conv, dict):
        raise ImportFormatError(name, msg("import.problem.not_a_conversation"),
                                where=msg("import.where.conversation", number=index + 1))
    raw_title = conv.get("title")
    title = raw_title.strip() if isinstance(raw_title, str) and raw_title.strip() else "Untitled conversation"
    conv_id = _as_id(conv.get("id")) or _as_id(conv.get("conversation_id"))
    if conv_id is None:  # no id at all: derive one that stays the same on re-import
        # surrogatepass: a JSON string may hold a lone surrogate, which plain UTF-8 refuses
        seed = f"{raw_title}\x00{conv.get('create_time')}".encode("utf-8", "surrogatepass")
        conv_id = "h" + hashlib.sha256(seed).hexdigest()[:24]
    chat = ChatRecord(key=f"chatgpt:{conv_id}", title=title, kind="assistant")
    mapping = conv.get("mapping")
    if not mapping:  # missing, null or empty: a conversation with nothing in it
        return [chat]
    if not isinstance(mapping, dict):
        raise ImportFormatError(name, msg("import.problem.messages_unexpected"),
                                where=msg("import.where.conversation_titled", number=index + 1, title=title))
    records: list[Record] = [chat]
    last_time = _first_time(conv.get("create_time"), conv.get("update_time"), 0.0)
    previous_id: str | None = None
    for node_id in _displayed_thread(conv, mapping, index, title, name):
        where = f"conversation {index + 1} ('{title}'), message {node_id}"
        node = mapping[node_id]
        if not isinstance(node, dict):
            raise _entry_unexpected(name, index, title, node_id)
        message = node.get("message")
        if message is None:
            continue
        if not isinstance(message, dict):
            raise _entry_unexpected(name, index, title, node_id)
        record = _message_record(message, node_id, chat.key, where)
        if record is None:
            skipped["hidden"] += 1
            continue
        # A null create_time (hidden or tool nodes) borrows the previous time, keeping the order.
        record.sent_at = last_time = _first_time(message.get("create_time"), last_time)
        if not EARLIEST_TIME <= last_time < LATEST_TIME:  # a create_time of 253402300800 is in year 10000
            checked_time(last_time, message.get("create_time") or conv.get("create_time"), name, where=msg(
                "import.where.conversation_message", number=index + 1, title=title, message=node_id))
        record.reply_to = previous_id
        previous_id = record.external_id
        records.append(record)
    return records


def _displayed_thread(conv: dict, mapping: dict, index: int, title: str, name: str) -> list[str]:
    """Node ids from the root down to the node the user last saw."""
    leaf = conv.get("current_node")
    if not isinstance(leaf, str) or leaf not in mapping:
        leaf = _latest_leaf(mapping, index, title, name)
    path: list[str] = []
    seen: set[str] = set()
    node_id: Any = leaf
    while isinstance(node_id, str) and node_id in mapping:
        if node_id in seen:
            raise _cycle(name, index, title)
        seen.add(node_id)
        path.append(node_id)
        node_id = _parent(mapping[node_id])
    path.reverse()
    return path


def _latest_leaf(mapping: dict, index: int, title: str, name: str) -> str:
    """Without a usable `current_node`, follow the last child from the root.

    ChatGPT appends an edited prompt or a regenerated answer as a new, last child, so the
    last child at each fork is the newest version, which is also what the app shows first.
    """
    roots = [key for key, node in mapping.items() if _parent(node) not in mapping]
    if not roots:  # every node has a parent inside the mapping: the links go round in a circle
        raise _cycle(name, index, title)
    node_id = roots[0]
    seen = {node_id}
    while True:
        node = mapping[node_id]
        children = node.get("children") if isinstance(node, dict) else None
        nexts = (
            [c for c in children if isinstance(c, str) and c in mapping] if isinstance(children, list) else []
        )
        if not nexts:
            return node_id
        node_id = nexts[-1]
        if node_id in seen:
            raise _cycle(name, index, title)
        seen.add(node_id)


def _parent(node: Any) -> str | None:
    """A node's parent id; None for a root, and for a parent that is no id (a list, a number)."""
    parent = node.get("parent") if isinstance(node, dict) else None
    return parent if isinstance(parent, str) else None


def _cycle(name: str, index: int, title: str) -> ImportFormatError:
    return ImportFormatError(name, msg("import.problem.cycle"),
                             where=msg("import.where.conversation_titled", number=index + 1, title=title))


def _entry_unexpected(name: str, index: int, title: str, node_id: str) -> ImportFormatError:
    return ImportFormatError(name, msg("import.problem.entry_unexpected"), where=msg(
        "import.where.conversation_message", number=index + 1, title=title, message=node_id))


def _message_record(message: dict, node_id: str, chat_key: str, where: str) -> MessageRecord | None:
    """The record for one visible message, or None for hidden, context-only and empty ones."""
    metadata = _as_dict(message.get("metadata"))
    if metadata.get("is_visually_hidden_from_conversation") or message.get("weight") == 0:
        return None
    content = _as_dict(message.get("content"))
    if content.get("content_type") == "user_editable_context":  # custom instructions, never shown
        return None
    text, attachments = _content_text(content)
    if not text.strip() and not attachments:  # also drops the empty system prompt
        return None
    author = _as_dict(message.get("author"))
    role = author.get("role")
    name = _as_str(author.get("name"))
    if role == "user":
        out_role, who, who_key = "user", "User", "user"
    elif role == "assistant":
        # One author however many models answered: the person talked to ChatGPT, and the model's
        # slug ("o4-mini", "text-davinci-002-render-sha") is no name they would search by.
        out_role, who, who_key = "assistant", "ChatGPT", "assistant"
    elif role == "system":
        out_role, who, who_key = "other", "System", "system"
    else:  # tool output (browser, python, dalle...) is kept as text from a named tool
        who = name or (role if isinstance(role, str) and role else "tool")
        out_role, who_key = "other", f"tool:{who}"
    return MessageRecord(
        chat_key=chat_key,
        external_id=_as_id(message.get("id")) or node_id,
        author=who,
        author_key=who_key,
        role=out_role,
        sent_at=0.0,
        text=text,
        where=where,
        attachments=attachments,
        # which model answered ("gpt-4o", "o4-mini"): kept in the message's `meta`, not as its author
        model=(_as_str(metadata.get("model_slug")) or None) if role == "assistant" else None,
    )


def _content_text(content: dict) -> tuple[str, list[AttachmentRecord]]:
    kind = content.get("content_type")
    if kind == "code":
        code = _as_str(content.get("text"))
        language = _as_str(content.get("language"))
        language = "" if language == "unknown" else language
        return (f"```{language}\n{code}\n```" if code.strip() else ""), []
    if kind == "tether_browsing_display":
        return _as_str(content.get("result")) or _as_str(content.get("summary")), []
    text = _as_str(content.get("text"))  # execution_output, tether_quote, system_error...
    if text:
        return text, []
    pieces: list[str] = []
    attachments: list[AttachmentRecord] = []
    parts = content.get("parts")
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict):
            if isinstance(part.get("text"), str):  # e.g. an audio transcription
                pieces.append(part["text"])
            pointer = _as_str(part.get("asset_pointer")) or _as_str(part.get("name"))
            if pointer:
                attachments.append(_asset(part, pointer))
    return "\n".join(p for p in pieces if p), attachments


def _asset(part: dict, pointer: str) -> AttachmentRecord:
    kind = _as_str(part.get("content_type"))
    size = part.get("size_bytes")
    return AttachmentRecord(
        kind="photo" if "image" in kind or not kind else "audio" if "audio" in kind else "file",
        file_name=pointer,
        size=size if isinstance(size, int) and not isinstance(size, bool) else None,
        missing="not in export",
    )


def _as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _as_id(value: Any) -> str | None:
    ok = isinstance(value, int | str) and not isinstance(value, bool) and str(value)
    return str(value) if ok else None


def _first_time(*values: Any) -> float:
    """The first value that is a usable epoch time (the last one is always a float)."""
    for value in values:
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
    return 0.0
