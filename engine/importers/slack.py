"""Slack workspace exports (the admin's "Export data" zip, or its folder).

The export is `channels.json`, `users.json` (and `dms.json`, `mpims.json`, `groups.json` when
the plan exports them) beside one folder per conversation — a channel's or private channel's
name, a DM's id, a group DM's `mpdm-…` name — of daily `YYYY-MM-DD.json` arrays of messages.
`engine.importers.groups` joins the whole workspace into one export: the lists are read
first, then each conversation's days in order.

- A chat is its conversation id (`slack:C…`, `slack:D…`): a re-export or a longer one adds
  only new messages (a message's `ts` is its id in the conversation).
- People are keyed by their Slack user name (`slack:name:<name>`) and shown by their display
  or real name, so `flashback owner --name` reaches them; a Slack export does not say who
  exported it, so nobody is marked as the owner.
- Threads stay together: a reply (`thread_ts`) points at the thread's first message, in the
  same chat, whichever day it was written on.
- `<@U…>` mentions become names, `<#C…|name>` channel names, `<url|label>` links their label.
- Joins, leaves, topic, purpose and name changes, pins, archiving, bot additions and deleted
  thread parents are service lines; a bot's message is a message by the bot's name (its text,
  or its attachments' text when it has none). Files are files (the export keeps only their
  names); reactions are kept beside the message (`chat_json.reactions_record`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from engine.errors import ImportFormatError
from engine.importers.base import Importer
from engine.importers.chat_json import as_dict, checked_time, kind_of_file, load_json, reactions_record
from engine.importers.groups import SLACK_LISTS
from engine.importers.inputs import ExportInput
from engine.importers.records import AttachmentRecord, ChatRecord, MessageRecord, Reaction
from engine.messages import msg

_SERVICE_SUBTYPES = {
    "channel_join", "channel_leave", "group_join", "group_leave", "channel_topic", "channel_purpose",
    "channel_name", "group_topic", "group_purpose", "group_name", "channel_archive", "channel_unarchive",
    "group_archive", "group_unarchive", "pinned_item", "unpinned_item", "bot_add", "bot_remove",
    "tombstone", "reminder_add", "channel_convert_to_private", "huddle_thread",
}
# Not messages at all (edits and deletions as events; the export already holds the result).
_SKIPPED_SUBTYPES = {"message_changed", "message_deleted", "message_replied"}
_MARKUP = re.compile(r"<([^<>\n]{1,500})>")


@dataclass
class _Workspace:
    users: dict[str, tuple[str, str]] = field(default_factory=dict)  # id → (handle, shown name)
    conversations: dict[str, ChatRecord] = field(default_factory=dict)  # folder → chat
    channel_names: dict[str, str] = field(default_factory=dict)  # id → name


class SlackImporter(Importer):
    format_name = "slack"

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        if not head.lstrip().startswith(b"["):
            return False
        channels = b'"members"' in head and (b'"is_general"' in head or b'"is_channel"' in head
                                             or b'"is_archived"' in head)
        users = b'"team_id"' in head and b'"real_name"' in head and b'"profile"' in head
        return channels or users

    def parse(self, source: ExportInput, report: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
        if not source.parts:
            raise ImportFormatError(source.display_name, msg("import.problem.slack_whole_export"))
        workspace = _Workspace()
        done = 0
        announced: set[str] = set()
        for part in source.parts:
            name = part.relative.rsplit("/", 1)[-1]
            data = load_json(part)
            if name in SLACK_LISTS:
                _read_list(workspace, name, data)
            else:
                folder = part.relative.rsplit("/", 2)[-2]
                chat = workspace.conversations.get(folder) or ChatRecord(f"slack:name:{folder}", folder, "group")
                if chat.key not in announced:
                    announced.add(chat.key)
                    yield chat
                if not isinstance(data, list):
                    raise ImportFormatError(part.display_name, msg("import.problem.slack_day_not_list"))
                for index, raw in enumerate(data, 1):
                    if type(raw) is not dict:
                        raise ImportFormatError(part.display_name, msg("import.problem.message_not_object"),
                                                msg("import.where.chat", chat=chat.title))
                    where = f"conversation '{chat.title}', {name} message {index}"
                    record = _message_record(raw, chat.key, workspace, part.display_name, where)
                    if record is not None:
                        yield record
            done += part.size
            report(done)


def _read_list(workspace: _Workspace, name: str, data: object) -> None:
    if not isinstance(data, list):
        return
    if name == "users.json":
        for user in data:
            if isinstance(user, dict) and isinstance(user.get("id"), str):
                profile = as_dict(user.get("profile"))
                handle = str(user.get("name") or user["id"])
                shown = profile.get("display_name") or profile.get("real_name") or user.get("real_name") or handle
                workspace.users[user["id"]] = (handle, str(shown))
        return
    for conversation in data:
        if not isinstance(conversation, dict) or not isinstance(conversation.get("id"), str):
            continue
        ident = conversation["id"]
        if name == "dms.json":
            folder, kind = ident, "personal"
            title = ", ".join(_shown(workspace, member) for member in conversation.get("members") or ()
                              if isinstance(member, str)) or ident
        elif name == "mpims.json":
            folder, kind = str(conversation.get("name") or ident), "group"
            title = ", ".join(_shown(workspace, member) for member in conversation.get("members") or ()
                              if isinstance(member, str)) or folder
        else:  # channels.json, groups.json (private channels)
            folder, kind = str(conversation.get("name") or ident), "group"
            title = f"#{folder}"
            workspace.channel_names[ident] = folder
        workspace.conversations[folder] = ChatRecord(f"slack:{ident}", title, kind)


def _shown(workspace: _Workspace, user_id: str) -> str:
    return workspace.users.get(user_id, (user_id, user_id))[1]


def _message_record(raw: dict, chat_key: str, workspace: _Workspace, name: str, where: str) -> MessageRecord | None:
    subtype = raw.get("subtype")
    ts = raw.get("ts")
    if subtype in _SKIPPED_SUBTYPES or not isinstance(ts, str):
        return None
    try:
        sent_at = checked_time(float(ts), name, where)
    except ValueError:
        sent_at = checked_time(ts, name, where)  # not a number: refused, naming the value
    user = raw.get("user")
    if isinstance(user, str) and user in workspace.users:
        handle, known = workspace.users[user]
        author: str | None = known
        author_key: str | None = f"name:{handle}"
    else:
        profile = as_dict(raw.get("user_profile"))
        bot = as_dict(raw.get("bot_profile"))
        shown = raw.get("username") or profile.get("display_name") or profile.get("real_name") \
            or bot.get("name") or raw.get("bot_id") or user
        author = str(shown) if shown else None
        author_key = None
    text = raw.get("text")
    text = _plain(text, workspace) if isinstance(text, str) else ""
    if not text:
        text = _attachments_text(raw.get("attachments"), workspace)
    files = _files(raw)
    if not text and not files and subtype is None:
        return None
    reactions = _reactions(raw.get("reactions"), workspace)
    thread = raw.get("thread_ts")
    reply_to = thread if isinstance(thread, str) and thread != ts else None
    is_service = subtype in _SERVICE_SUBTYPES or subtype == "file_comment"
    return MessageRecord(chat_key, ts, author, author_key, "other", sent_at, text, where, reply_to, None,
                         is_service, files, reactions)


def _plain(text: str, workspace: _Workspace) -> str:
    """Slack's markup as a person reads it: names for ids, labels for links, & < > unescaped."""
    if "<" in text:
        text = _MARKUP.sub(lambda match: _markup(match.group(1), workspace), text)
    return html.unescape(text) if "&" in text else text


def _markup(inner: str, workspace: _Workspace) -> str:
    target, _, label = inner.partition("|")
    if target.startswith("@"):
        return "@" + (label or _shown(workspace, target[1:]))
    if target.startswith("#"):
        return "#" + (label or workspace.channel_names.get(target[1:], target[1:]))
    if target.startswith("!"):
        return "@" + (label or target[1:].split("^", 1)[0])
    return label or target


def _attachments_text(attachments: object, workspace: _Workspace) -> str:
    """A bot's message is often only its attachments: their title and text (or fallback)."""
    if not isinstance(attachments, list):
        return ""
    lines = []
    for item in attachments:
        if isinstance(item, dict):
            for key in ("pretext", "title", "text"):
                if isinstance(item.get(key), str) and item[key]:
                    lines.append(_plain(item[key], workspace))
            if not lines and isinstance(item.get("fallback"), str):
                lines.append(_plain(item["fallback"], workspace))
    return "\n".join(lines)


def _files(raw: dict) -> list[AttachmentRecord]:
    items = list(raw.get("files") or ())
    if isinstance(raw.get("file"), dict):  # exports before 2019: one `file`
        items.append(raw["file"])
    found = []
    for item in items:
        if not isinstance(item, dict):
            continue
        file_name = str(item.get("name") or item.get("title") or "") or None
        mime = item.get("mimetype") if isinstance(item.get("mimetype"), str) else None
        kind = kind_of_file(file_name or "")
        if mime and kind == "file":
            kind = {"image": "photo", "video": "video", "audio": "audio"}.get(mime.split("/", 1)[0], "file")
        size = item.get("size")
        mode = item.get("mode")
        found.append(AttachmentRecord(kind=kind, file_name=file_name, mime=mime,
                                      size=size if isinstance(size, int) else None,
                                      missing=str(mode) if mode in ("tombstone", "hidden_by_limit") else None))
    return found


def _reactions(reactions: object, workspace: _Workspace) -> list[Reaction] | None:
    if not isinstance(reactions, list):
        return None
    summary = []
    for reaction in reactions:
        if isinstance(reaction, dict) and isinstance(reaction.get("name"), str):
            people = [_shown(workspace, user) for user in reaction.get("users") or () if isinstance(user, str)]
            count = reaction.get("count")
            summary.append((f":{reaction['name']}:", people, count if isinstance(count, int) else len(people)))
    return reactions_record(summary)
