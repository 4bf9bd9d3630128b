"""The LLM side of the CLI: endpoint and Flash options for `search`/`eval`/`export`, and `export`
(`runs` lives in app/cli_runs.py, `key` in app/cli_keys.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli_options import add_setting
from app.cli_output import at_least, positive_number, words
from app.keys import KeyStore, MissingKeyError
from engine.api import PRESETS, Endpoint, EngineError, get_preset, msg


def add_endpoint_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--endpoint", default="openrouter", choices=tuple(PRESETS),
                       help="LLM server preset (default openrouter; ollama, llamacpp and lmstudio need no key)")
    group.add_argument("--model", default="", help="model name (default: the preset's own)")
    group.add_argument("--base-url", default="", help="API address, e.g. http://127.0.0.1:8080/v1")


def add_build_llm_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("chat model for topics (--llm)")
    group.add_argument("--llm", action="store_true",
                       help="split sessions into topics and judge merges with the chat model (seed 004's agents); "
                            "chunks it fails on get extractive summaries")
    add_endpoint_options(group)
    group.add_argument("--llm-timeout", type=positive_number, default=60.0, help="seconds per agent call (default 60)")
    group.add_argument("--llm-concurrency", type=at_least(1), default=None, metavar="N",
                       help="requests in flight at once (default: 1 for a local server, else 4)")


def add_flash_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Flash reranker (--reranker flash)")
    add_endpoint_options(group)
    add_setting(group, "timeout", default=None, metavar="SECONDS")
    add_setting(group, "turn1_share", metavar="SHARE")
    add_setting(group, "max_tool_calls", metavar="N")
    add_setting(group, "max_topics", metavar="N")
    group.add_argument("--protocol", default="auto", choices=("auto", "tools", "constrained"),
                       help="auto (default): what the server is known to enforce; tools: a forced tool call; "
                            "constrained: both turns through a JSON schema (llama.cpp, Ollama, LM Studio)")
    group.add_argument("--max-tokens-read", type=at_least(1), default=None, metavar="N",
                       help="reply bound of turn 1 (default 2048; 384 for a local server)")
    group.add_argument("--max-tokens-answer", type=at_least(1), default=None, metavar="N",
                       help="reply bound of the selection (default 4096; 1536 for a local server)")
    group.add_argument("--people-shown", type=at_least(0), default=None, metavar="N",
                       help="person candidates shown (default 20; 8 for a local server)")
    group.add_argument("--artifacts-shown", type=at_least(0), default=None, metavar="N",
                       help="file candidates shown (default 20; 8 for a local server)")
    add_setting(group, "reasoning_effort", dest="reasoning")
    group.add_argument("--recent", default="", help="recent messages of the conversation, as context for the query")
    group.add_argument("--excerpts", action="store_true", help="ask for excerpts of topics over 25,000 chars")
    group.add_argument("--contextualize", dest="contextualize", action="store_true", default=True,
                       help="rewrite the query from --recent first (the default; left as is when they don't "
                            "disambiguate)")
    group.add_argument("--no-contextualize", dest="contextualize", action="store_false",
                       help="search and rerank the query exactly as typed, even with --recent")
    group.add_argument("--rewrite-timeout", type=positive_number, default=None, metavar="SECONDS",
                       help="seconds for the rewrite (default 10; 30 for a local server)")


def endpoint_from(args: argparse.Namespace, keys: KeyStore | None = None) -> Endpoint:
    preset = get_preset(args.endpoint)
    keys = keys or KeyStore()
    key = keys.get(args.endpoint)
    if not key and preset.needs_key:
        raise MissingKeyError(args.endpoint, keys.env_vars(args.endpoint))
    if args.endpoint == "custom" and not args.base_url:
        raise EngineError(msg("cli.llm.needs_url"))
    if not (args.model or preset.default_model):
        raise EngineError(msg("cli.llm.needs_model", server=preset.label_message()))
    return Endpoint.from_preset(args.endpoint, api_key=key, model=args.model, base_url=args.base_url)


def flash_reranker(args: argparse.Namespace, service, threshold=None):
    """`threshold`: the search's threshold settings, which a fallback keeps to (issue 23)."""
    from engine.api import FlashSettings

    endpoint = endpoint_from(args)
    settings = FlashSettings(model=endpoint.default_model, max_tool_calls=args.max_tool_calls,
                             total_timeout=args.timeout, turn1_share=args.turn1_share,
                             max_topics=args.max_topics, protocol=args.protocol,
                             reasoning_effort=None if args.reasoning == "none" else args.reasoning,
                             excerpts=args.excerpts, contextualize_query=args.contextualize,
                             rewrite_timeout=args.rewrite_timeout, max_tokens_read=args.max_tokens_read,
                             max_tokens_answer=args.max_tokens_answer, people_shown=args.people_shown,
                             artifacts_shown=args.artifacts_shown)
    return service.search.flash_reranker(endpoint, settings, recent_messages=args.recent, threshold=threshold)


def add_commands(commands: argparse._SubParsersAction, search_options) -> None:
    export = commands.add_parser("export", help="search, then write the selected context as Markdown or JSON")
    export.add_argument("query")
    export.add_argument("--format", default="md", choices=("md", "json"))
    export.add_argument("-o", "--output", type=Path, help="write to this file (default: stdout)")
    add_setting(export, "budget_tokens", dest="budget", metavar="TOKENS")
    search_options(export, "threshold")


def write_export(args: argparse.Namespace, service, outcome) -> int:
    from engine.api import to_json, to_markdown, write_private

    pack = service.search.context(outcome, args.budget)
    text = to_markdown(pack) if args.format == "md" else to_json(pack)
    if args.output:
        write_private(args.output, text)  # chat text: 0600 whatever the umask (engine/files.py)
        sys.stderr.write(words("cli.export.wrote", items=len(pack.items), tokens=pack.used_tokens,
                               path=str(args.output)) + "\n")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
