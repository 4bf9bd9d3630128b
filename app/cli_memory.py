"""`flashback build`, `search` and `eval`: the memory commands of the CLI."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from app import cli_llm
from app.keys import api_key_for
from engine.embeddings.base import EmbeddingConfig
from engine.rerank.threshold import ThresholdSettings
from engine.retrieval.search import RetrievalSettings, day_bounds
from engine.service import FlashbackService, make_reranker

EMBEDDERS = ("builtin", "openrouter", "openai", "ollama", "custom")


def _embedding_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("embeddings")
    group.add_argument("--embedder", default="builtin", choices=EMBEDDERS,
                       help="builtin (offline, the default) or an OpenAI-compatible embeddings API")
    group.add_argument("--embedding-model", default="", help="model name (default: the provider's preset)")
    group.add_argument("--embedding-base-url", default="", help="API address for --embedder custom")
    group.add_argument("--embedding-dim", type=int, default=None, help="vector dimension, where the model allows it")


def _search_options(parser: argparse.ArgumentParser, reranker: str) -> None:
    parser.add_argument("--reranker", default=reranker, choices=("none", "threshold", "flash"),
                        help=f"stage 2 (default {reranker}); flash asks an LLM (see the Flash options)")
    parser.add_argument("--candidates", type=int, default=50, help="stage-1 candidates (default 50)")
    parser.add_argument("--safety", type=float, default=0.30, help="stage-1 minimum calibrated score (default 0.30)")
    parser.add_argument("--threshold", type=float, default=0.50, help="similarity threshold (default 0.50)")
    parser.add_argument("--gap", type=float, default=0.15, help="score-gap cut (default 0.15)")
    parser.add_argument("--top-k", type=int, default=3, help="final top-K (default 3)")
    parser.add_argument("--hybrid", action=argparse.BooleanOptionalAction, default=True,
                        help="fuse BM25 over messages with the vector ranking (default on)")
    parser.add_argument("--fusion", default="score", choices=("score", "rrf"))
    parser.add_argument("--mmr", action=argparse.BooleanOptionalAction, default=False, help="diversify with MMR")
    parser.add_argument("--chat", action="append", type=int, default=[], help="only this chat id (repeatable)")
    parser.add_argument("--since", type=_day, metavar="YYYY-MM-DD", help="only topics active on or after this day")
    parser.add_argument("--until", type=_day, metavar="YYYY-MM-DD", help="only topics active on or before this day")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    _embedding_options(parser)
    cli_llm.add_flash_options(parser)


def add_commands(commands: argparse._SubParsersAction) -> None:
    build = commands.add_parser("build", help="make topics, embeddings and indexes for new messages")
    build.add_argument("--json", action="store_true", help="print one JSON object")
    build.add_argument("--no-consolidate", action="store_true", help="skip merging similar neighbouring topics")
    _embedding_options(build)
    cli_llm.add_build_llm_options(build)
    search = commands.add_parser("search", help="find the topics, people and files a question is about")
    search.add_argument("query")
    _search_options(search, "threshold")
    evaluation = commands.add_parser("eval", help="score search against relevance judgements (QRELS)")
    evaluation.add_argument("qrels", type=Path)
    _search_options(evaluation, "none")
    cli_llm.add_commands(commands, _search_options)


def _service(args: argparse.Namespace, data_dir: Path) -> FlashbackService:
    config = EmbeddingConfig(provider=args.embedder, model=args.embedding_model, base_url=args.embedding_base_url,
                             api_key=api_key_for(args.embedder), dimensions=args.embedding_dim)
    return FlashbackService(data_dir, config)


def _day(text: str) -> str:
    """A YYYY-MM-DD day, checked here so a typo is a usage error in one sentence."""
    try:
        day_bounds(text, None)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a day like 2024-05-31") from exc
    return text


def _settings(args: argparse.Namespace) -> tuple[RetrievalSettings, ThresholdSettings]:
    date_from, date_to = day_bounds(args.since, args.until)
    retrieval = RetrievalSettings(candidates=args.candidates, safety_threshold=args.safety, hybrid=args.hybrid,
                                  fusion=args.fusion, mmr=args.mmr, chat_ids=tuple(args.chat),
                                  date_from=date_from, date_to=date_to)
    return retrieval, ThresholdSettings(threshold=args.threshold, gap=args.gap, top_k=args.top_k)


def _stage_progress(stage: str, done: int, total: int) -> None:
    # Progress always goes to stderr, so stdout stays one clean JSON object with --json.
    sys.stderr.write(f"\r{stage:<14} {done:>9,} / {total:,}   ")
    sys.stderr.flush()


def run_build(args: argparse.Namespace, data_dir: Path) -> int:
    topic_llm = cli_llm.endpoint_from(args) if args.llm else None
    report = _service(args, data_dir).build(on_progress=_stage_progress, options=_build_options(args),
                                            topic_llm=topic_llm, llm_timeout=args.llm_timeout)
    sys.stderr.write("\n")
    if args.json:
        sys.stdout.write(json.dumps(asdict(report), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(
            f"{report.topics_created:,} new topics ({report.messages_assigned:,} messages), "
            f"{report.topics_merged:,} merged; {report.embedded:,} texts embedded, {report.cached:,} from cache; "
            f"vectors {report.vectors}; model {report.model_id}\n")
        for kind, reason in report.rebuilt.items():
            sys.stdout.write(f"rebuilt the {kind} index ({reason})\n")
        if report.agents:
            sys.stdout.write(_agents_line(report.agents) + "\n")
    return 0


def _agents_line(agents: dict) -> str:
    fallbacks = agents.get("fallbacks") or {}
    line = (f"{agents.get('model')}: {agents.get('split_chunks', 0):,} chunks split by the model, "
            f"{sum(fallbacks.values()):,} summarised without it")
    if fallbacks:
        line += " (" + ", ".join(f"{reason} {count}" for reason, count in sorted(fallbacks.items())) + ")"
    failures = agents.get("merge_failures") or {}
    if failures:
        line += "; merge checks failed: " + ", ".join(f"{reason} {count}" for reason, count in sorted(failures.items()))
    return line


def _build_options(args: argparse.Namespace):
    from engine.memory.build import BuildOptions

    return BuildOptions(consolidate=not args.no_consolidate)


def _reranker(args: argparse.Namespace, service: FlashbackService):
    if args.reranker == "flash":
        return cli_llm.flash_reranker(args, service)
    return make_reranker(args.reranker, _settings(args)[1])


def run_search(args: argparse.Namespace, data_dir: Path) -> int:
    service = _service(args, data_dir)
    outcome = service.search(args.query, _settings(args)[0], _reranker(args, service), record=True)
    if args.json:
        sys.stdout.write(json.dumps(outcome.as_dict(), ensure_ascii=False) + "\n")
        return 0
    kept = {(s.kind, s.id): s for s in outcome.result.selected}
    for candidate in outcome.stage1.candidates:
        mark = "✔" if (candidate.kind, candidate.id) in kept else " "
        sys.stdout.write(f"{mark} {candidate.kind[:6]:<6} {candidate.id:>6} {candidate.score:.2f}  "
                         f"{candidate.date or '':<10} {(candidate.chat or '')[:20]:<20} {candidate.summary[:90]}\n")
    report = outcome.result.report
    sys.stdout.write(f"retrieved {report.get('retrieved', 0)}, "
                     f"removed by threshold {report.get('removed_by_threshold', 0)}, "
                     f"by gap {report.get('removed_by_gap', 0)}, kept {report.get('kept', 0)}; "
                     f"{outcome.timings_ms.get('total', 0):.1f} ms\n")
    if outcome.result.reranker == "flash":
        for selection in outcome.result.selected:
            sys.stdout.write(f"  {selection.kind} {selection.id}: {selection.reason}\n")
        usage = outcome.result.usage or {}
        sys.stdout.write(f"tool calls {outcome.result.tool_calls}; fallback {outcome.result.fallback or 'none'}; "
                         f"tokens {usage.get('prompt_tokens', 0)}+{usage.get('completion_tokens', 0)}"
                         + (f"; cost ${usage['cost']:.4f}" if usage.get("cost") else "") + "\n")
    return 0


def run_export(args: argparse.Namespace, data_dir: Path) -> int:
    service = _service(args, data_dir)
    outcome = service.search(args.query, _settings(args)[0], _reranker(args, service), record=True)
    return cli_llm.write_export(args, service, outcome)


def run_runs(args: argparse.Namespace, data_dir: Path) -> int:
    return cli_llm.run_runs(args, FlashbackService(data_dir))


def run_key(args: argparse.Namespace, data_dir: Path) -> int:
    return cli_llm.run_key(args)


def run_eval(args: argparse.Namespace, data_dir: Path) -> int:
    service = _service(args, data_dir)
    result = service.evaluate(args.qrels, _settings(args)[0], _reranker(args, service))
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
        return 0
    rows = {"all": result["metrics"], **result["by_category"]}
    keys = list(result["metrics"])
    sys.stdout.write(f"{'':<14}" + "".join(f"{k:>15}" for k in keys) + "\n")
    for name, metrics in rows.items():
        sys.stdout.write(f"{name:<14}" + "".join(f"{metrics[k]:>15}" for k in keys) + "\n")
    return 0
