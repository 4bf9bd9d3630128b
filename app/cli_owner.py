"""`flashback owner [--name NAME | --not NAME]`: who "(you)" is in this store (issue 23).

Telegram, ChatGPT and JSONL exports say who made them, and those people are merged into
one owner at import; a WhatsApp export does not, so `--name` says which of its authors is
you (as the export writes the name), for the chats imported so far and those to come.
`--not` undoes it. Prints one JSON object with --json.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from app.cli_output import waiting_note, words


def add_command(commands: argparse._SubParsersAction) -> None:
    owner = commands.add_parser(
        "owner", help="show who you are across imports, or name yourself in WhatsApp and JSONL chats",
        description="Telegram, ChatGPT and JSONL (\"role\": \"user\") exports say who made them; those people are "
                    "one person, you, across every import. A WhatsApp export does not say it: --name gives your "
                    "name as its chats write it, for the chats imported so far and those imported later.")
    change = owner.add_mutually_exclusive_group()
    change.add_argument("--name", metavar="NAME", help="the people called NAME in WhatsApp and JSONL chats are you")
    change.add_argument("--not", dest="not_name", metavar="NAME", help="undo --name NAME")
    owner.add_argument("--json", action="store_true", help="print one JSON object")


def describe(info) -> str:
    if info.id is None:
        return words("cli.owner.unknown")
    line = words("cli.owner.you_are", name=info.name, messages=info.messages, chats=info.chats)
    others = [f"{alias.name} ({alias.format})" for alias in info.aliases[1:]]
    return words("cli.owner.also", line=line, others=", ".join(others)) if others else line


def run_owner(args: argparse.Namespace, data_dir: Path) -> int:
    from engine.api import Flashback

    service = Flashback(data_dir, origin="command")
    if args.name is not None:
        info, _changes = service.people.add_owner_name(args.name, on_wait=waiting_note())
    elif args.not_name is not None:
        info, _changes = service.people.remove_owner_name(args.not_name, on_wait=waiting_note())
    else:
        info = service.people.owner()
    if args.json:
        sys.stdout.write(json.dumps(asdict(info), ensure_ascii=False) + "\n")
        return 0
    sys.stdout.write(describe(info) + "\n")
    if args.name is not None or args.not_name is not None:
        sys.stdout.write(words("cli.owner.next_build") + "\n")
    return 0
