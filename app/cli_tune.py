"""`flashback tune [QRELS]`: the threshold reranker's settings that serve the judged queries best,
with the score expected on queries it was not tuned on (k-fold cross-validation).

Without QRELS the store's own labels (made in the window) are the judged queries. Prints
one JSON object with --json: {"objective", "settings", "before", "after", "cross_validated", …}.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app import cli_memory
from app.cli_output import at_least, fraction, plural
from engine.api import DEFAULT_BUDGET, OBJECTIVES, EngineError, RetrievalSettings, ThresholdSettings

SHOWN = ("kept_precision", "kept_recall", "kept_f1", "recall@budget", "kept_topics")


def add_command(commands: argparse._SubParsersAction) -> None:
    tune = commands.add_parser("tune", help="find the threshold, gap and top-K that serve judged queries best")
    tune.add_argument("qrels", type=Path, nargs="?", help="a QRELS file (default: the labels made in the window)")
    tune.add_argument("--objective", default="f1", choices=OBJECTIVES,
                      help="f1: mean kept F1 (default); recall@budget: mean recall of the kept topics that fit "
                           "--budget characters whole")
    tune.add_argument("--budget", type=at_least(1), default=DEFAULT_BUDGET,
                      help=f"characters (default {DEFAULT_BUDGET})")
    tune.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    tune.add_argument("--seed", type=int, default=0, help="how the queries are dealt into folds (default 0)")
    tune.add_argument("--no-lexical", action="store_true", help="keep the lexical weight as it is")
    tune.add_argument("--candidates", type=at_least(1), default=50, help="stage-1 candidates (default 50)")
    tune.add_argument("--safety", type=fraction, default=0.30, help="stage-1 minimum calibrated score (default 0.30)")
    tune.add_argument("--hybrid", action=argparse.BooleanOptionalAction, default=True)
    tune.add_argument("--threshold", type=fraction, default=0.50, help="the current threshold (default 0.50)")
    tune.add_argument("--gap", type=fraction, default=0.15, help="the current score-gap cut (default 0.15)")
    tune.add_argument("--top-k", type=at_least(1), default=3, help="the current top-K (default 3)")
    tune.add_argument("--json", action="store_true", help="print one JSON object")
    cli_memory._embedding_options(tune)


def _targets(args: argparse.Namespace, service):
    if args.qrels is None:
        targets = service.evaluation.labelled_targets()
        if not targets:
            raise EngineError("There are no labels yet: mark results relevant in the window's search view, "
                              "or give a QRELS file (`flashback tune qrels.json`).")
        return targets, 0
    return service.evaluation.qrels_targets(args.qrels)


def run_tune(args: argparse.Namespace, data_dir: Path) -> int:
    from engine.api import load_qrels

    if args.qrels is not None:
        load_qrels(args.qrels)  # a broken file is the first thing to hear about, before any build
    if args.folds < 2:
        raise EngineError("--folds must be 2 or more: each query is scored by settings tuned on the others.")
    service = cli_memory._service(args, data_dir)
    cli_memory.ensure_built(args, service)
    targets, unmatched = _targets(args, service)
    retrieval = RetrievalSettings(candidates=args.candidates, safety_threshold=args.safety, hybrid=args.hybrid)
    current = ThresholdSettings(args.threshold, args.gap, args.top_k)
    result = service.evaluation.tune(targets, retrieval, current, args.objective, args.budget, args.folds,
                          lexical=not args.no_lexical, seed=args.seed)
    shaped = result.as_dict()
    shaped["unmatched_messages"] = unmatched
    if args.json:
        sys.stdout.write(json.dumps(shaped, ensure_ascii=False) + "\n")
        return 0
    settings = shaped["settings"]
    weight = settings["lexical_weight"]
    sys.stdout.write(f"tuned for {args.objective} over {plural(result.before['queries'], 'query', 'queries')}, "
                     f"{result.folds}-fold cross-validated: threshold {settings['threshold']:.2f}, "
                     f"gap {settings['gap']:.2f}, top-K {settings['top_k']}"
                     + (f", lexical weight {weight}" if weight is not None else "") + "\n")
    sys.stdout.write(f"{'':<16}" + "".join(f"{key:>16}" for key in SHOWN) + "\n")
    for name in ("before", "after", "cross_validated"):
        sys.stdout.write(f"{name:<16}" + "".join(f"{shaped[name][key]:>16}" for key in SHOWN) + "\n")
    noise = result.noise
    if "standard_error" in noise:
        sys.stdout.write(f"cross-validated minus before: {noise['cross_validated_minus_before']:+.4f} "
                         f"(standard error {noise['standard_error']:.4f})\n")
    if unmatched:
        sys.stdout.write(f"{plural(unmatched, 'judged message')} not in this store (left out)\n")
    return 0
