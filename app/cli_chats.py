"""`flashback chats` and `--chat NAME_OR_ID`: the chats a search can be narrowed to.

A chat is named the way the user knows it: its id from `flashback chats`, else its name
(exact, then case-insensitive, then a unique case-insensitive prefix, then a unique
substring). A name that fits several chats, or none, is refused in one sentence: a search
quietly narrowed to nothing would look like "nothing was ever said about it".
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime

from app.cli_output import words
from engine.api import ChatInfo, EngineError, Flashback, msg


class ChatNotFound(EngineError):
    """`--chat` names no chat, or several."""


def add_command(commands: argparse._SubParsersAction) -> None:
    chats = commands.add_parser("chats", help="list the imported chats (ids and names for --chat)")
    chats.add_argument("--json", action="store_true", help="print one JSON array")


def _day(epoch: float | None) -> str:
    if not epoch:
        return ""
    try:
        return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d")
    except (ValueError, OverflowError, OSError):  # a year past 9999 in a store older than issue 34 (`check` repairs)
        return "?"


def run_chats(args: argparse.Namespace, data_dir) -> int:
    service = Flashback(data_dir)
    chats = service.browse.chats()
    formats = service.browse.chat_formats()
    if args.json:
        rows = [{"id": c.id, "name": c.name, "format": formats.get(c.id, ""), "kind": c.kind,
                 "messages": c.messages, "topics": c.topics, "first": _day(c.first_at), "last": _day(c.last_at)}
                for c in chats]
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return 0
    if not chats:
        sys.stdout.write(words("cli.chats.none") + "\n")
        return 0
    width = max(len(c.name) for c in chats[:200])
    for chat in chats:
        span = f"{_day(chat.first_at)} – {_day(chat.last_at)}" if chat.first_at else ""
        sys.stdout.write(f"{chat.id:>5}  {chat.name[:40]:<{min(width, 40)}}  {formats.get(chat.id, ''):<9} "
                         f"{words('cli.chats.messages', count=chat.messages):>16}  {span}\n")
    sys.stdout.write(words("cli.chats.total", count=len(chats)) + "\n")
    return 0


def _matches(chats: list[ChatInfo], wanted: str) -> list[ChatInfo]:
    folded = wanted.casefold()
    for rule in (lambda c: c.name == wanted, lambda c: c.name.casefold() == folded,
                 lambda c: c.name.casefold().startswith(folded), lambda c: folded in c.name.casefold()):
        found = [c for c in chats if rule(c)]
        if found:
            return found
    return []


def _listed(chat: ChatInfo) -> str:
    """"12 Family (2023-01-05 – 2023-03-05)": two chats of one name told apart by their span (issue 34)."""
    return f"{chat.id} {chat.name} ({_day(chat.first_at)} – {_day(chat.last_at)})" if chat.first_at \
        else f"{chat.id} {chat.name}"


def resolve_chats(service: Flashback, values: list[str]) -> tuple[int, ...]:
    """The chat ids `--chat` values name; raises ChatNotFound in one sentence."""
    if not values:
        return ()
    chats = service.browse.chats()
    by_id = {c.id: c for c in chats}
    ids: list[int] = []
    for value in values:
        wanted = value.strip()
        if wanted.isdigit() and int(wanted) in by_id:
            ids.append(int(wanted))
            continue
        found = _matches(chats, wanted) if wanted else []
        if len(found) == 1:
            ids.append(found[0].id)
        elif found:
            listed = "; ".join(_listed(c) for c in found[:8]) + ("; …" if len(found) > 8 else "")
            raise ChatNotFound(msg("cli.chats.ambiguous", value=value, count=len(found), listed=listed))
        else:
            raise ChatNotFound(msg("cli.chats.no_id" if wanted.isdigit() else "cli.chats.no_name", value=value))
    return tuple(dict.fromkeys(ids))
