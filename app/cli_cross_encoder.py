"""The cross-encoder's side of the CLI (issue 25): `search --reranker cross-encoder
--rerank-endpoint PRESET --rerank-url URL [--rerank-model NAME]`, and Flash after it with
`--reranker flash --chain-cross-encoder`. The settings come from engine.api.SETTINGS; the key
from the keyring or the environment, like every other endpoint's (`flashback key set
--provider jina|cohere|voyage|rerank`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from app.cli_options import add_setting, say
from app.cli_output import duration, words
from app.keys import KeyStore, MissingKeyError
from engine.api import RERANK_PRESETS, CrossEncoderSettings, RerankEndpoint, kind_message, reason_message

if TYPE_CHECKING:  # a search's records: loaded by the search itself, not by every command's parser
    from engine.api import CrossEncoderReport, FlashReport, Message, SearchResult

SETTING_KEYS = ("ce_threshold", "ce_top_k", "ce_top_n", "ce_passage_tokens", "ce_batch", "ce_skip_small",
                "ce_skip_flat", "ce_timeout", "ce_chain_keep")
_METAVARS = {"ce_threshold": "SCORE", "ce_passage_tokens": "TOKENS", "ce_timeout": "SECONDS"}


def add_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("cross-encoder (--reranker cross-encoder, or --chain-cross-encoder)")
    group.add_argument("--rerank-endpoint", default="llamacpp", choices=tuple(RERANK_PRESETS),
                       help="rerank server: llamacpp (llama-server --reranking), tei, infinity, vllm (on this "
                            "computer, no key), jina, cohere, voyage (APIs with a key) or custom (default llamacpp; "
                            "docs/rerankers.md)")
    group.add_argument("--rerank-url", default="", metavar="URL",
                       help="the server's address, e.g. http://127.0.0.1:8080 (default: the preset's)")
    group.add_argument("--rerank-model", default="", metavar="NAME", help="reranker model (default: the preset's)")
    for key in SETTING_KEYS:
        add_setting(group, key, metavar=_METAVARS.get(key, "N"))
    group.add_argument("--chain-cross-encoder", action="store_true",
                       help="with --reranker flash: the cross-encoder narrows the topics Flash reads to --chain-keep")


def endpoint_from(args: argparse.Namespace, keys: KeyStore | None = None) -> RerankEndpoint:
    spec = RERANK_PRESETS[args.rerank_endpoint]
    keys = keys or KeyStore()
    key = keys.get(spec.key_name)
    if not key and spec.needs_key:
        raise MissingKeyError(spec.key_name, keys.env_vars(spec.key_name))
    endpoint = RerankEndpoint(args.rerank_endpoint, args.rerank_url, key, args.rerank_model)
    endpoint.check()  # a custom server without an address: one sentence, before anything is built
    return endpoint


def settings_from(args: argparse.Namespace) -> CrossEncoderSettings:
    return CrossEncoderSettings(threshold=args.ce_threshold, top_k=args.ce_top_k, top_n=args.ce_top_n,
                                passage_tokens=args.ce_passage_tokens, batch=args.ce_batch,
                                skip_small=args.ce_skip_small, skip_flat=args.ce_skip_flat,
                                timeout=args.rerank_timeout, chain_keep=args.chain_keep)


def reranker(args: argparse.Namespace, service, others):
    """The cross-encoder over the store; people and files by the threshold options."""
    return service.search.cross_encoder_reranker(endpoint_from(args), settings_from(args), others)


def chained(args: argparse.Namespace, service, flash):
    """Flash reading only the cross-encoder's best topics (people and files as Flash chooses)."""
    return service.search.chained_reranker(service.search.cross_encoder_reranker(endpoint_from(args),
                                                                                 settings_from(args)), flash)


def write_summary(outcome: SearchResult, report: CrossEncoderReport) -> None:
    """The cross-encoder's line under the candidates: what it kept and why, or its fallback."""
    result = outcome.result
    for selection in result.selected:
        reason = say(selection.reason_message) if selection.reason_message is not None else selection.reason
        sys.stdout.write(f"  {say(kind_message(selection.kind))} {selection.id}: {reason}\n")
    note = _said(report.note)
    if note:
        sys.stdout.write(f"  {note}\n")
    if result.fallback:
        cause = _said(report.error)
        fallback = words("cli.fallback.because" if cause else "cli.fallback.reason",
                         reason=say(reason_message(result.fallback)), cause=cause)
    else:
        fallback = words("cli.fallback.none")
    if report.skipped:
        sys.stdout.write(words("cli.cross_encoder.not_asked", label=report.endpoint.label) + "\n")
        return
    sys.stdout.write(words("cli.cross_encoder.scored", label=report.endpoint.label, scored=len(report.scores),
                           batches=report.batches, fallback=fallback, duration=duration(report.total_ms))
                     + "\n")


def _said(message: Message | None) -> str:
    """A report's note or error in the CLI's language."""
    return say(message) if message is not None else ""


def write_chain(report: FlashReport) -> None:
    chain = report.chain
    if chain is not None:
        note = _said(chain.note)
        if chain.fallback:
            sys.stdout.write(words("cli.chained_fallback", note=note, reason=say(reason_message(chain.fallback)))
                             + "\n")
        else:
            sys.stdout.write(words("cli.chained", note=note) + "\n")
