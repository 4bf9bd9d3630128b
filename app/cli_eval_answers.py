"""`flashback eval-answers QA.json`: the Ask flow over questions with gold answers and evidence
(the LoCoMo format, or bench/data/dated_questions.json's), judged by an LLM; progress on stderr,
Ctrl+C stops between questions and still prints what was done."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app import cli_ask, cli_llm, cli_memory
from app.cli_output import at_least, words

SHOWN = ("accuracy", "answer_f1", "citation_precision", "citation_coverage", "fully_supported", "evidence_in_sources",
         "latency_ms_p50", "latency_ms_p95")


def add_command(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "eval-answers", help="score Ask's answers on questions with gold answers and evidence (LoCoMo format)",
        description="QA.json: LoCoMo's format (samples with conversation sessions and qa items: question, "
                    "answer, evidence dia_ids such as D3:12) or a list of {question, answer, evidence, now}. "
                    "Import the conversations first (bench/locomo_convert.py converts LoCoMo to an export).")
    command.add_argument("qa", type=Path)
    command.add_argument("--limit", type=at_least(1), default=None, metavar="N", help="only the first N questions")
    command.add_argument("--judge-endpoint", default=None, help="the judge's preset (default: the answering one)")
    command.add_argument("--judge-model", default="", help="the judge's model")
    command.add_argument("--judge-url", default="", help="the judge's API address")
    cli_memory._search_options(command, "threshold")


def _judge(args: argparse.Namespace):
    if not args.judge_endpoint:
        return None
    judge = argparse.Namespace(endpoint=args.judge_endpoint, model=args.judge_model, base_url=args.judge_url)
    return cli_llm.endpoint_from(judge)


def run_eval_answers(args: argparse.Namespace, data_dir: Path) -> int:
    from engine.api import AskSettings, CancelToken

    service = cli_memory._service(args, data_dir)
    retrieval, reranker = cli_memory._retrieval(args, service), cli_memory._reranker(args, service)
    cli_memory.ensure_built(args, service, whole=True)
    endpoint = cli_ask._endpoint(args)
    if endpoint is None:
        sys.stderr.write(words("cli.eval_answers.no_model") + "\n")
    cancel = CancelToken()

    def progress(done: int, total: int, question) -> None:
        mark = {True: "✔", False: "✗"}.get(question.correct, "·")
        sys.stderr.write(f"  {done}/{total} {mark} {question.question[:70]}\n")

    import asyncio  # only this command runs a loop: the CLI's other commands do not import it

    try:
        result = asyncio.run(service.ask.evaluate(args.qa, reranker, endpoint=endpoint, judge_endpoint=_judge(args),
                                                  settings=AskSettings(retrieval=retrieval), limit=args.limit,
                                                  on_progress=progress, cancel=cancel))
    except KeyboardInterrupt:
        sys.stderr.write(words("cli.eval_answers.stopped") + "\n")
        return 130
    if args.json:
        sys.stdout.write(json.dumps(result.as_dict(), ensure_ascii=False) + "\n")
        return 0
    figures = result.metrics()
    width = max(len(name) for name in SHOWN)
    nobody = words("cli.eval_answers.none")
    sys.stdout.write(words("cli.eval_answers.header", questions=len(result.questions), model=result.model or nobody,
                           judge=(result.judge or {}).get("model", nobody)) + "\n")
    for name in SHOWN:
        value = figures.get(name)
        shown = "—" if value is None else (f"{value:.0f} ms" if name.startswith("latency") else f"{value:.3f}")
        sys.stdout.write(f"  {name:<{width}}  {shown}\n")
    if args.judge_endpoint is None and result.judge:
        sys.stdout.write(words("cli.eval_answers.self_judged") + "\n")
    return 0
