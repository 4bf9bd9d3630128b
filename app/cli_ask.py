"""`flashback ask "question"`: the answer with numbered sources (chat, author, time, first line),
or with --json the plan, sources, claims, verification, timings, tokens and cost.

Without a usable chat model (no key for the endpoint) it still searches and prints the
sources found, with one sentence saying what to set."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from app import cli_llm, cli_memory
from app.cli_options import say
from app.cli_output import duration, positive_number, words
from app.keys import MissingKeyError
from engine.api import reason_message


def add_command(commands: argparse._SubParsersAction) -> None:
    ask = commands.add_parser("ask", help="answer a question from your chats, with numbered sources")
    ask.add_argument("question")
    ask.add_argument("--budget-s", type=positive_number, default=None, metavar="SECONDS",
                     help="time budget of the whole answer (default 30; 180 for a local server)")
    ask.add_argument("--verify", default="offline", choices=("offline", "llm", "off"),
                     help="check each claim against its cited messages: offline with the embedder (default), "
                          "with the chat model, or not at all")
    ask.add_argument("--no-refine", action="store_true", help="no second round when claims are unsupported")
    cli_memory._search_options(ask, "threshold")


def _endpoint(args: argparse.Namespace):
    """The chat model to answer with, or None (no key): the sources alone are still worth printing."""
    try:
        return cli_llm.endpoint_from(args)
    except MissingKeyError:
        return None


def run_ask(args: argparse.Namespace, data_dir: Path) -> int:
    from engine.api import AskSettings, clean_query

    question = clean_query(args.question)
    service = cli_memory._service(args, data_dir)
    retrieval = cli_memory._retrieval(args, service)
    reranker = cli_memory._reranker(args, service)
    cli_memory.ensure_built(args, service)
    settings = AskSettings(total_budget_s=args.budget_s, verify=args.verify, refine=not args.no_refine,
                           retrieval=retrieval)
    import asyncio  # only an Ask runs a loop: a plain search does not import it

    outcome = asyncio.run(service.ask.ask(question, reranker, endpoint=_endpoint(args), settings=settings))
    if args.json:
        sys.stdout.write(json.dumps(outcome.as_dict(), ensure_ascii=False) + "\n")
        return 0
    for note in outcome.notes:
        sys.stderr.write(words("cli.note", text=say(note)) + "\n")
    answer = outcome.answer
    if answer is not None:
        # The text already opens with the refusal and ends with the caveat (engine.ask.steps):
        # printed again below it, a CLI answer said what was unsupported three times.
        sys.stdout.write(answer.text.strip() + "\n")
    if outcome.quotes:
        # No model's answer: the sentences that answer, each with its [n], author and date.
        sys.stdout.write(words("cli.ask.quotes") + "\n")
        for quote in outcome.quotes:
            when = datetime.fromtimestamp(quote.sent_at, UTC).strftime("%Y-%m-%d")
            sys.stdout.write(f"  [{quote.source}] {quote.author}, {when}: «{marked(quote)}»\n")
    if outcome.sources:
        sys.stdout.write("\n" + words("cli.ask.sources") + "\n")
        for source in outcome.sources:
            when = datetime.fromtimestamp(source.first_at, UTC).strftime("%Y-%m-%d %H:%M")
            first = next((line for line in source.messages if line.strip()), "").strip().replace("\n", " ")
            authors = ", ".join(source.authors[:3])
            sys.stdout.write(f"[{source.number}] {source.chat} · {authors} · {when} · {first[:100]}\n")
    elif answer is None:
        sys.stdout.write(words("cli.ask.nothing_matched") + "\n")
    sys.stdout.write("\n" + plan_line(outcome) + "\n")
    return 0


def marked(quote) -> str:
    """The quote with its answer-bearing words in *stars* on a terminal that shows no bold."""
    text, out, last = quote.text, [], 0
    for start, end in quote.highlights:
        out += [text[last:start], "*", text[start:end], "*"]
        last = end
    return "".join(out) + text[last:]


def plan_line(outcome) -> str:
    """How the question was searched and what it cost: the plan, its dates, the time, the fallback
    (in words), the tokens."""
    plan, usage = outcome.plan, outcome.usage or {}
    source = plan.source if plan.source in ("model", "fallback", "user") else "fallback"
    parts = [words("cli.ask.plan", source=words(f"cli.ask.plan_source.{source}"),
                   subqueries=" | ".join(plan.subqueries))]
    if plan.date_range:
        parts.append(words("cli.ask.dates", phrase=plan.date_range.phrase))
    parts.append(words("cli.ask.took", duration=duration(outcome.timings_ms.get("total"))))
    if outcome.fallback:
        parts.append(words("cli.ask.fallback", reason=say(reason_message(outcome.fallback))))
    if usage.get("prompt_tokens"):
        parts.append(words("cli.ask.tokens", prompt=usage.get("prompt_tokens", 0),
                           completion=usage.get("completion_tokens", 0)))
    return "; ".join(parts)
