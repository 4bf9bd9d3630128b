"""`flashback facts [--person NAME] [--json]`, `flashback facts forget ID` and the facts stage
of `flashback build --facts` (issue 33): what is known of you and of the people in your
chats, each fact with the messages that state it.

`build --facts` reads every topic not yet read with the chat model of --endpoint / --model /
--base-url, after saying what that will cost; without a usable model it reads nothing and
says what a model would add."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from app.cli_output import StageProgress, waiting_note, words
from engine.api import EngineError, Flashback, msg


def add_command(commands: argparse._SubParsersAction) -> None:
    facts = commands.add_parser(
        "facts", help="what is known of you and the people in your chats, with the messages that say it",
        description="Facts are read from your topics by a chat model (`flashback build --facts`). "
                    "`flashback facts forget ID` erases one fact and its history.")
    facts.add_argument("action", nargs="?", choices=("forget",), help="forget: erase the fact ID")
    facts.add_argument("fact_id", nargs="?", type=int, metavar="ID", help="the fact's number (as listed)")
    facts.add_argument("--person", metavar="NAME", help="only the facts about this person (you: your name or 'me')")
    facts.add_argument("--json", action="store_true", help="print one JSON object")


def add_build_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--facts", action="store_true",
                        help="after the topics, read facts about you and the people with the chat model "
                             "(--endpoint, --model, --base-url); topics read before are not read again")
    parser.add_argument("--facts-budget", type=int, default=None, metavar="TOKENS",
                        help="stop reading facts before this many tokens are spent")


def _person(service: Flashback, name: str) -> int | None:
    """The person called `name` (None: you). EngineError when nobody is."""
    wanted = name.strip().casefold()
    owner = service.people.owner()
    if wanted in ("me", "you", "я", "owner") or (owner.name and owner.name.casefold() == wanted):
        return None
    for person in service.browse.people():
        if person.name.casefold() == wanted and person.id != owner.id:
            return person.id
    for fact in service.facts.all():
        if fact.person_id is not None and fact.person_name.casefold() == wanted:
            return fact.person_id
    raise EngineError(msg("facts.cli.no_person", name=name))


def _line(fact) -> str:
    who = words("facts.cli.you") if fact.person_id is None else fact.person_name
    ids = ", ".join(str(i) for i in fact.message_ids) or "–"
    pinned = words("facts.cli.pinned") if fact.pinned else ""
    return words("facts.cli.line", id=fact.id, who=who, text=fact.text, category=fact.category, type=fact.type,
                 importance=fact.importance, messages=ids, pinned=pinned)


def run_facts(args: argparse.Namespace, data_dir: Path) -> int:
    service = Flashback(data_dir, origin="command")
    if args.action == "forget":
        if args.fact_id is None:
            raise EngineError(msg("facts.cli.forget_needs_id"))
        fact = service.facts.get(args.fact_id)
        service.facts.forget(args.fact_id, on_wait=waiting_note())
        if args.json:
            sys.stdout.write(json.dumps({"forgotten": args.fact_id}) + "\n")
        else:
            sys.stdout.write(words("facts.cli.forgotten", id=fact.id, text=fact.text) + "\n")
        return 0
    shown = service.facts.of(_person(service, args.person)) if args.person else service.facts.all()
    if args.json:
        sys.stdout.write(json.dumps({"facts": [asdict(fact) for fact in shown]}, ensure_ascii=False) + "\n")
        return 0
    if not shown:
        unread = service.facts.estimate().topics
        if unread == 0 and service.store.stats().topics == 0:  # nothing to read before memory is built
            sys.stdout.write(words("facts.cli.none_unbuilt") + "\n")
        else:
            sys.stdout.write(words("facts.cli.none", unread=unread) + "\n")
        return 0
    for fact in shown:
        sys.stdout.write(_line(fact) + "\n")
    return 0


def run_build_facts(args: argparse.Namespace, service: Flashback) -> dict:
    """The facts stage of `build --facts`: what it did, for `build --json`."""
    from app import cli_llm
    from app.keys import MissingKeyError

    try:
        endpoint = cli_llm.endpoint_from(args)
    except MissingKeyError:
        endpoint = None
    estimate = service.facts.estimate(endpoint)
    if endpoint is None:
        sys.stderr.write(words("facts.cli.no_model", topics=estimate.topics) + "\n")
        return {"stopped": "no_model", "topics_unread": estimate.topics}
    if estimate.topics:
        cost = words("facts.cli.cost_unknown") if estimate.cost_usd is None else f"${estimate.cost_usd:.4f}"
        sys.stderr.write(words("facts.cli.estimate", topics=estimate.topics, tokens_in=estimate.tokens_in,
                               tokens_out=estimate.tokens_out, cost=cost) + "\n")
    progress = StageProgress()
    report = service.facts.extract(endpoint, on_progress=lambda done, total: progress("facts", done, total),
                                   budget_tokens=args.facts_budget, timeout=args.llm_timeout,
                                   on_wait=waiting_note())
    progress.finish()
    if not args.json:
        sys.stdout.write(words("facts.cli.summary", topics=report.topics_read, added=report.facts_added,
                               updated=report.facts_updated, removed=report.facts_removed,
                               refused=report.facts_refused_unsupported + report.facts_refused_secret,
                               people=report.people_added) + "\n")
        if report.stopped:
            sys.stdout.write(words(f"facts.cli.stopped.{report.stopped}") + "\n")
    return asdict(report)
