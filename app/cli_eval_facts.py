"""`flashback eval-facts LOCOMO.json`: the Archivist (the facts stage of `build --facts`) on
LoCoMo conversations, scored against their annotated observations (issue 33). It works in a
store of its own (a temporary folder, or --work-dir), never the person's; the chat model is
chosen as `build --facts` chooses it (--endpoint / --model / --base-url), a judge with
--judge. Progress on stderr; the figures on stdout, or with --json one JSON line."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from app import cli_llm
from app.cli_output import StageProgress, at_least, positive_number, words
from app.keys import MissingKeyError

SHOWN = ("fact_recall", "provenance_precision", "provenance_on_gold_turns", "facts_kept", "refused_unsupported",
         "refused_secret", "kept_unsupported", "provenance_not_real", "prompt_tokens_per_topic",
         "reply_tokens_per_topic")


def add_command(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "eval-facts", help="score fact extraction on LoCoMo conversations (their observations are the gold facts)",
        description="LOCOMO.json: LoCoMo's format (samples with conversation sessions and per-session "
                    "observations, each with its evidence turns such as D1:3). Each conversation is imported into "
                    "a store of its own (the first speaker is the owner), topics are built and read by the chat "
                    "model; fact recall, provenance precision, unsupported facts and tokens per topic are reported.")
    command.add_argument("locomo", type=Path, metavar="LOCOMO.json")
    command.add_argument("--conversation", action="append", default=None, metavar="ID",
                         help="only this sample_id (repeatable; default: the first --conversations)")
    command.add_argument("--conversations", type=at_least(1), default=1, metavar="N",
                         help="the first N conversations (default 1)")
    command.add_argument("--limit-topics", type=at_least(1), default=None, metavar="N",
                         help="read only the first N topics (a bounded run)")
    group = command.add_argument_group("chat model (as `build --facts` chooses it)")
    cli_llm.add_endpoint_options(group)
    group.add_argument("--llm-timeout", type=positive_number, default=None, metavar="SECONDS",
                       help="seconds per call (default 120)")
    judge = command.add_argument_group("judge (--judge: match facts by a model instead of the verifier)")
    judge.add_argument("--judge", action="store_true", help="match gold facts with a judge model")
    judge.add_argument("--judge-endpoint", default=None, help="the judge's preset (default: the extracting one)")
    judge.add_argument("--judge-model", default="", help="the judge's model (default: the extracting one)")
    judge.add_argument("--judge-url", default="", help="the judge's API address (default: the extracting one)")
    command.add_argument("--work-dir", type=Path, default=None,
                         help="keep the store here (default: a temporary folder, removed afterwards)")
    command.add_argument("--json", action="store_true", help="end with one JSON line of every figure")


def _judge(args: argparse.Namespace):
    if not args.judge:
        return None
    if not args.judge_endpoint:
        return cli_llm.endpoint_from(argparse.Namespace(endpoint=args.endpoint, model=args.judge_model or args.model,
                                                        base_url=args.judge_url or args.base_url))
    return cli_llm.endpoint_from(argparse.Namespace(endpoint=args.judge_endpoint, model=args.judge_model,
                                                    base_url=args.judge_url))


def run_eval_facts(args: argparse.Namespace) -> int:
    from engine.api import evaluate_facts

    try:
        endpoint = cli_llm.endpoint_from(args)
    except MissingKeyError:
        sys.stderr.write(words("cli.eval_facts.no_model") + "\n")
        return 1
    judge = _judge(args)
    progress = StageProgress()
    with tempfile.TemporaryDirectory(prefix="flashback-eval-facts-") as temporary:
        work = args.work_dir or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        result = evaluate_facts(args.locomo, endpoint, work, chats=args.conversation,
                                first=None if args.conversation else args.conversations,
                                limit_topics=args.limit_topics, timeout=args.llm_timeout, judge=judge,
                                on_progress=lambda done, total: progress("facts", done, total))
    progress.finish()
    figures = result.as_dict()
    if not args.json:
        _print(figures)
    else:
        sys.stdout.write(json.dumps(figures, ensure_ascii=False) + "\n")
    return 0


def _print(figures: dict) -> None:
    calls = figures["calls"]
    sys.stdout.write(words("cli.eval_facts.header", conversations=", ".join(figures["conversations"]),
                           model=figures["model"], matcher=figures["matcher"], read=figures["topics_read"],
                           topics=figures["topics_total"], gold=figures["gold_in_read_topics"]) + "\n")
    width = max(len(name) for name in SHOWN)
    for name in SHOWN:
        value = figures.get(name)
        shown = "—" if value is None else (f"{value:.3f}" if isinstance(value, float) and value <= 1 else str(value))
        sys.stdout.write(f"  {name:<{width}}  {shown}\n")
    sys.stdout.write(words("cli.eval_facts.calls", calls=calls["calls"], failed=calls["failed"],
                           median=calls["seconds_median"] or 0, longest=calls["seconds_max"] or 0) + "\n")
    if figures["stopped"]:
        sys.stdout.write(words(f"facts.cli.stopped.{figures['stopped']}") + "\n")
