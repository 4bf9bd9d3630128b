"""Join the files one export is split into, so one importer reads them as one export.

`resolve_inputs` lists files; three formats spread one export over several:

- a Slack workspace export: `channels.json`, `users.json` (and `dms.json`, `mpims.json`,
  `groups.json`) beside one folder per conversation of daily `YYYY-MM-DD.json` files;
- a Messenger or Instagram thread: `inbox/<thread>/message_1.json`, `message_2.json`, … (the
  newest first), with the owner's name in the export's profile or autofill file;
- a DiscordChatExporter channel cut into parts: `Guild - channel [id].json`, then
  `… [part 2].json`, `… [part 3].json`.

Grouping is by path only (the importer still checks the content): the files of a group become
the `parts` of one `ExportInput` in reading order, so one source row, one progress bar and one
"unchanged" check (the hash covers every part) stand for the whole export. Files outside any
group pass through as they are.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import PurePosixPath

from engine.importers.inputs import ExportInput

SLACK_LISTS = ("channels.json", "users.json", "dms.json", "mpims.json", "groups.json")
_SLACK_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\.json")
_MESSENGER_PART = re.compile(r"message_(\d+)\.json")
# Files in which a Meta export names its owner: Facebook's profile and autofill, Instagram's
# personal information.
META_OWNER_FILES = ("profile_information.json", "autofill_information.json", "personal_information.json")
_DISCORD_PART = re.compile(r"(.+) \[part (\d+)\]\.json")


# Files an export folder or zip often holds beside its chats that clearly are none: a README or
# licence (a shared folder, a repository of samples) and the lists a Slack workspace export keeps
# beside its conversations that name no messages (issue 34: said in one line, not one by one).
_NO_CHAT_STEMS = ("readme", "license", "licence", "copying", "changelog", "notice", "authors")
_EXPORT_SIDECARS = frozenset({*SLACK_LISTS, "integration_logs.json", "canvases.json", "org_users.json",
                              "file_conversations.json", "huddle_transcripts.json", *META_OWNER_FILES})


def no_chat(export: ExportInput) -> bool:
    """True for a file no reader took that clearly is no chat (a README, a licence, an export's
    own lists), so a summary counts it instead of naming it as "not a chat export"."""
    name = _name(export.relative or export.display_name).lower()
    return name in _EXPORT_SIDECARS or name.startswith(_NO_CHAT_STEMS)


def group_inputs(inputs: list[ExportInput]) -> list[ExportInput]:
    """`inputs` with each multi-file export's files joined into one `ExportInput`, in the
    order the first of its files came."""
    joined: dict[int, ExportInput] = {}  # index of a group's first file → the group
    taken: set[int] = set()
    messenger, owner_files = _messenger_groups(inputs)
    for indexes, export in (*_slack_groups(inputs), *messenger, *_discord_groups(inputs)):
        if taken.intersection(indexes):
            continue  # a file claimed twice: the first claim (Slack's, the widest) wins
        taken.update(indexes)
        joined[min(indexes)] = export
    if messenger:  # read with the threads, not exports of their own
        taken.update(owner_files)
    result = []
    for index, export in enumerate(inputs):
        if index in joined:
            result.append(joined[index])
        elif index not in taken:
            result.append(export)
    return result


def _folder(relative: str) -> str:
    return str(PurePosixPath(relative).parent) if "/" in relative else ""


def _name(relative: str) -> str:
    return relative.rsplit("/", 1)[-1]


def _joined(files: list[ExportInput], sniffed: ExportInput, relative: str) -> ExportInput:
    """One export of `files` (reading order), sniffed by `sniffed`'s head, named by its folder."""
    first = files[0]
    prefix = first.display_name[: len(first.display_name) - len(first.relative)] if first.relative else ""
    display = f"{prefix}{relative}" if relative else prefix.rstrip(" /\u203a") or first.display_name
    return ExportInput(path=sniffed.path, display_name=display, around=sniffed.around,
                       relative=relative, parts=tuple(files))


def _slack_groups(inputs: list[ExportInput]) -> list[tuple[list[int], ExportInput]]:
    """A folder holding `channels.json` or `users.json` and day files one folder down."""
    lists: dict[str, list[int]] = defaultdict(list)
    days: dict[str, list[int]] = defaultdict(list)
    for index, export in enumerate(inputs):
        name = _name(export.relative)
        folder = _folder(export.relative)
        if name in SLACK_LISTS:
            lists[folder].append(index)
        elif _SLACK_DAY.fullmatch(name) and folder:
            days[_folder(folder)].append(index)
    groups = []
    for root, list_indexes in lists.items():
        day_indexes = days.get(root, [])
        if not day_indexes or not any(_name(inputs[i].relative) in ("channels.json", "users.json")
                                      for i in list_indexes):
            continue
        # The lists first (names before the messages that use them), then each conversation's days in order.
        ordered = sorted(list_indexes, key=lambda i: SLACK_LISTS.index(_name(inputs[i].relative)))
        ordered += sorted(day_indexes, key=lambda i: inputs[i].relative)
        files = [inputs[i] for i in ordered]
        sniffed = next(inputs[i] for i in ordered if _name(inputs[i].relative) in ("channels.json", "users.json"))
        groups.append((ordered, _joined(files, sniffed, root)))
    return groups


def _messenger_groups(inputs: list[ExportInput]) -> tuple[list[tuple[list[int], ExportInput]], list[int]]:
    """Each thread folder's `message_N.json` files, the oldest part first, after the owner files
    of the same export (which every thread reads); and the owner files' indexes."""
    threads: dict[str, list[tuple[int, int]]] = defaultdict(list)
    owner_files: list[int] = []
    for index, export in enumerate(inputs):
        name = _name(export.relative)
        part = _MESSENGER_PART.fullmatch(name)
        if part:  # a thread folder imported itself has its parts at the top ("" is its folder)
            threads[_folder(export.relative)].append((int(part.group(1)), index))
        elif name in META_OWNER_FILES:
            owner_files.append(index)
    groups = []
    for folder, numbered in threads.items():
        parts = [index for _, index in sorted(numbered, reverse=True)]  # message_1 is the newest
        owners = [i for i in owner_files if _meta_root(inputs[i].relative) == _meta_root(folder)]
        files = [inputs[i] for i in owners + parts]
        groups.append((parts, _joined(files, inputs[parts[0]], folder)))
    return groups, owner_files


def _meta_root(relative: str) -> str:
    """The top of the Meta export a file is in: what precedes the category folders Meta writes."""
    for marker in ("your_activity_across_facebook/", "your_instagram_activity/", "messages/",
                   "personal_information/", "profile_information/"):
        at = relative.find(marker)
        if at == 0 or (at > 0 and relative[at - 1] == "/"):
            return relative[:at]
    return ""


def _discord_groups(inputs: list[ExportInput]) -> list[tuple[list[int], ExportInput]]:
    """A DiscordChatExporter file and its `[part N]` files in the same folder."""
    by_path = {export.relative: index for index, export in enumerate(inputs)}
    parts: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for index, export in enumerate(inputs):
        match = _DISCORD_PART.fullmatch(export.relative)
        if match:
            parts[match.group(1) + ".json"].append((int(match.group(2)), index))
    groups = []
    for base, numbered in parts.items():
        ordered = ([by_path[base]] if base in by_path else []) + [index for _, index in sorted(numbered)]
        files = [inputs[i] for i in ordered]
        groups.append((ordered, _joined(files, files[0], base)))
    return groups
