"""The answers' evaluation on a fresh store (issue 27, seed 002's plan):

    python -m bench.eval_answers --llama [--limit 20]               # llama-server + SmolLM2 (bench.llama_server)
    python -m bench.eval_answers --url URL --model M [--preset P]   # any OpenAI-compatible endpoint
    python -m bench.eval_answers --scripted                         # the tests' scripted server: the harness alone
        [--qa PATH] [--judge-url URL --judge-model M --judge-preset P] [--embedder builtin|local]

The QA file (default: the LoCoMo dev slice) is imported into a fresh store the way the
retrieval benchmark does (bench/locomo_convert.py) and built with the app's defaults; the
dated questions (bench/data/dated_questions.json) bring the demo export and LoCoMo both.
Each question goes through the whole Ask flow (engine.ask.ask: plan, search, the threshold
reranker, compose, answer, verify, no refine unless --refine) at the `now` the file gives it,
and engine.ask.answer_eval scores it: accuracy by the judge (the answering endpoint unless
--judge-url says otherwise), citation precision and coverage, fully-supported share,
latency, tokens and cost. An API key, when the endpoint needs one, is read from
$FLASHBACK_BENCH_KEY. Prints a table and ends with one JSON line (the full result with
--json-out FILE).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import resources
from bench.locomo import DEFAULT_LOCOMO
from bench.locomo_convert import convert
from engine.api import Flashback
from engine.ask import AskDeps, AskSettings, ask, store_profile
from engine.ask.answer_data import QAItem, load_questions
from engine.ask.answer_eval import AnswerEvalResult, evaluate_answers
from engine.ask.answer_judge import Judge
from engine.embeddings.base import EmbeddingConfig
from engine.llm import ChatClient, Endpoint
from engine.memory.model_options import build_options_for
from engine.rerank.threshold import ThresholdReranker
from engine.store.database import connect, db_path

CHAT = "/v1/chat/completions"


def _store(work: Path, qa: Path, provider: str) -> Flashback:
    service = Flashback(work / "data", EmbeddingConfig(provider=provider))
    raw = json.loads(qa.read_text(encoding="utf-8"))
    locomo = qa if isinstance(raw, list) else DEFAULT_LOCOMO  # the dated questions name LoCoMo's messages too
    if not isinstance(raw, list):
        service.imports.import_path(resources.demo_export())
    convert(locomo, work / "locomo.jsonl", work / "locomo_qrels.json")
    service.imports.import_path(work / "locomo.jsonl")
    service.memory.build(build_options_for(service.memory.embedder()))
    return service


def _judge_scripted(request) -> object:
    """The scripted judge: CORRECT when the answer holds the gold answer's words."""
    from tests.fake_openai import FakeResponse, chat_reply

    prompt = request.body["messages"][1]["content"]
    gold = prompt.split("Gold answer: ")[1].split("\n")[0].lower()
    answer = prompt.split("Answer to grade: ")[1].split("\nThe answer is")[0].lower()
    verdict = "CORRECT" if gold and gold in answer else "WRONG"
    return FakeResponse(json=chat_reply(json.dumps({"verdict": verdict, "reason": "scripted"})))


@contextlib.contextmanager
def _endpoints(args):
    """(the answering endpoint, the judge's), with whatever server they need running."""
    key = os.environ.get("FLASHBACK_BENCH_KEY")
    if args.scripted:
        from bench.ask_overhead import scripted
        from tests.fake_openai import FakeOpenAI

        with FakeOpenAI() as server:
            def route(request):
                system = request.body["messages"][0]["content"]
                return _judge_scripted(request) if system.startswith("You grade answers") else scripted(request)
            server.handle(CHAT, route)
            endpoint = Endpoint(base_url=server.base_url, model="scripted", preset="llamacpp")
            yield endpoint, endpoint
        return
    if args.llama:
        from bench import llama_server

        if llama_server.server_binary().exists() is False or not llama_server.model_path().exists():
            raise SystemExit(f"no llama-server + SmolLM2 in {llama_server.cache_dir()}: "
                             "run `python -m bench.llama_server build` first")
        with llama_server.llama_server() as server:
            endpoint = Endpoint.from_preset("llamacpp", model="local", base_url=server.base_url)
            yield endpoint, endpoint
        return
    if not args.url:
        raise SystemExit("say which endpoint answers: --llama, --scripted or --url URL --model M")
    endpoint = Endpoint(base_url=args.url, api_key=key, model=args.model or "", preset=args.preset)
    judge = endpoint if not args.judge_url else Endpoint(base_url=args.judge_url, api_key=key,
                                                         model=args.judge_model or "", preset=args.judge_preset)
    yield endpoint, judge


async def _evaluate(service: Flashback, items: list[QAItem], endpoint: Endpoint, judge_endpoint: Endpoint,
                    settings: AskSettings, source: str) -> AnswerEvalResult:
    data_dir = service.data_dir
    connection = connect(db_path(data_dir))
    try:
        chats, languages = store_profile(connection)
    finally:
        connection.close()
    today = datetime.now(UTC)
    async with ChatClient(endpoint) as client, ChatClient(judge_endpoint) as judge_client:
        deps = AskDeps(stage1=service.search.candidates, reranker=ThresholdReranker(),
                       connect=lambda: connect(db_path(data_dir)),
                       embedder=service.memory.embedder(), client=client, model=endpoint.default_model or None,
                       chats=chats, languages=languages)

        async def one(item: QAItem):
            return await ask(item.question, deps, settings, now=item.now or today)

        def progress(done: int, total: int, question) -> None:
            mark = {True: "right", False: "wrong", None: "unjudged"}[question.correct]
            print(f"  {done}/{total} {question.id}: {mark}, {len(question.cited_sources)} cited, "
                  f"{question.latency_ms / 1000:.1f} s{', ' + question.fallback if question.fallback else ''}",
                  flush=True)

        return await evaluate_answers(items, one, deps.connect, judge=Judge(judge_client), source=source,
                                      settings=settings.as_dict() | {"reranker": "threshold"},
                                      model=endpoint.default_model, on_progress=progress)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qa", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--llama", action="store_true")
    parser.add_argument("--scripted", action="store_true")
    parser.add_argument("--url")
    parser.add_argument("--model")
    parser.add_argument("--preset", default="custom")
    parser.add_argument("--judge-url")
    parser.add_argument("--judge-model")
    parser.add_argument("--judge-preset", default="custom")
    parser.add_argument("--embedder", default="builtin", choices=("builtin", "local"))
    parser.add_argument("--verify", default="offline", choices=("offline", "llm", "off"))
    parser.add_argument("--refine", action="store_true")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    items = load_questions(args.qa, args.limit)
    with tempfile.TemporaryDirectory(prefix="flashback-answers-") as scratch:
        service = _store(Path(scratch), args.qa, args.embedder)
        settings = AskSettings(verify=args.verify, refine=args.refine, record=False)
        with _endpoints(args) as (endpoint, judge):
            result = asyncio.run(_evaluate(service, items, endpoint, judge, settings, str(args.qa)))
    figures = result.as_dict()
    if args.json_out:
        args.json_out.write_text(json.dumps(figures, ensure_ascii=False, indent=1), encoding="utf-8")
    m = figures["metrics"]
    print(f"\n{m['questions']} questions ({args.qa.name}), model {figures['model']}, judge {figures['judge']['model']}")
    for name in ("accuracy", "answer_f1", "citation_precision", "source_precision", "citation_coverage",
                 "fully_supported", "evidence_in_sources", "answered", "not_found", "no_answer", "errors",
                 "latency_ms_p50", "latency_ms_p95"):
        print(f"  {name:22} {m[name]}")
    print(f"  {'tokens':22} {m['usage']}  judge {m['judge_usage']}")
    if not args.scripted and not args.judge_url:
        print("  (the judge is the answering model grading itself: answer_f1 needs no judge)")
    summary = {k: v for k, v in figures.items() if k != "questions"}
    print(json.dumps(summary, ensure_ascii=False))


if __name__ == "__main__":
    main()
