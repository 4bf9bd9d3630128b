"""`flashback forget`: remove a chat, or everything one import brought, for good (issue 23).

    flashback forget --chat ID_OR_NAME [--yes]    a chat (`flashback chats` shows the ids)
    flashback forget --source ID [--yes]          one import (`flashback forget --sources` lists them)

What will go is said first (messages, topics, people found only there, recorded searches
that showed it); at a terminal the person confirms, elsewhere (a script, a pipe) nothing is
removed without --yes. The store is compacted afterwards, so the text leaves the file.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from datetime import UTC, datetime

from app.cli_chats import resolve_chats
from app.cli_options import say
from engine.api import EngineError, Flashback, msg


class ForgetRefused(EngineError):
    """Nothing named, or no way to confirm: one sentence, nothing removed."""


def add_command(commands: argparse._SubParsersAction) -> None:
    forget = commands.add_parser("forget", help="remove a chat, or everything one import brought, for good")
    target = forget.add_mutually_exclusive_group()
    target.add_argument("--chat", metavar="ID_OR_NAME", help="the chat to forget (`flashback chats` lists them)")
    target.add_argument("--source", metavar="ID", type=int, help="the import to forget (see --sources)")
    target.add_argument("--sources", action="store_true", help="list the imports with their ids; removes nothing")
    forget.add_argument("--yes", action="store_true",
                        help="do not ask (needed where there is no terminal to confirm at)")
    forget.add_argument("--json", action="store_true", help="print one JSON object")


def run_forget(args: argparse.Namespace, service: Flashback) -> int:
    if args.sources:
        return _list_sources(service, args.json)
    if args.chat is None and args.source is None:
        raise ForgetRefused(msg("forget.no_target"))
    target = {"chat_id": resolve_chats(service, [args.chat])[0]} if args.chat is not None \
        else {"source_id": args.source}
    plan = service.store.forget_preview(**target)
    if not args.yes:
        if not sys.stdin.isatty():
            raise ForgetRefused(msg("forget.needs_yes"))
        sys.stderr.write(say(plan.preview_message()) + "\n" + say(msg("forget.prompt")))
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            sys.stderr.write(say(msg("forget.declined")) + "\n")
            return 1
    report, _changes = service.store.forget(**target)
    if args.json:
        sys.stdout.write(json.dumps({"forgot": asdict(report)}, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(say(report.done_message()) + "\n")
    return 0


def _list_sources(service: Flashback, as_json: bool) -> int:
    sources = service.store.sources()
    if as_json:
        sys.stdout.write(json.dumps([asdict(source) for source in sources], ensure_ascii=False) + "\n")
        return 0
    if not sources:
        sys.stdout.write(say(msg("forget.no_sources")) + "\n")
        return 0
    for source in sources:
        day = datetime.fromtimestamp(source.imported_at, UTC).strftime("%Y-%m-%d")
        sys.stdout.write(f"{source.id:>5}  {day}  {source.format:<9} "
                         f"{say(msg('cli.forget.source', messages=source.messages)):>18}  {source.name}\n")
    return 0
