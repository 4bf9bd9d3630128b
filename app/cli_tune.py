"""`flashback tune [QRELS]`: the threshold reranker's settings that serve the judged queries best,
with the score expected on queries it was not tuned on (k-fold cross-validation).

Without QRELS the store's own labels (made in the window) are the judged queries. Prints
one JSON object with --json: {"objective", "settings", "before", "after", "cross_validated", …}.
The current settings it starts from are the window's saved ones unless flags say otherwise,
and `--save` writes the tuned threshold, gap and top-K there (app/saved_settings.py), where
the window and a plain `flashback search` read them (issue 23). The gain is said against its
noise: within or beyond two standard errors of the paired per-query difference.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app import cli_memory
from app.cli_options import add_setting, say
from app.cli_output import aligned_table, words
from app.saved_settings import SHARED, save_values
from app.settings import data_dir_given
from engine.api import NOISE_SES, OBJECTIVES, EngineError, Message, RetrievalSettings, ThresholdSettings, msg

SHOWN = ("kept_precision", "kept_recall", "kept_f1", "recall@budget", "kept_topics")
_OBJECTIVE_WORDS = {"f1": "F1", "recall@budget": "recall@budget"}


def add_command(commands: argparse._SubParsersAction) -> None:
    tune = commands.add_parser("tune", help="find the threshold, gap and top-K that serve judged queries best")
    tune.add_argument("qrels", type=Path, nargs="?", help="a QRELS file (default: the labels made in the window)")
    tune.add_argument("--objective", default="f1", choices=OBJECTIVES,
                      help="f1: mean kept F1 (default); recall@budget: mean recall of the kept topics that fit "
                           "--budget characters whole")
    add_setting(tune, "evidence_budget")
    tune.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    tune.add_argument("--seed", type=int, default=0, help="how the queries are dealt into folds (default 0)")
    tune.add_argument("--no-lexical", action="store_true", help="keep the lexical weight as it is")
    for key in ("candidates", "safety_threshold", "hybrid", "threshold", "gap", "top_k"):
        add_setting(tune, key, saved=key in SHARED)  # the current settings: the window's saved ones
    tune.add_argument("--save", action="store_true",
                      help="write the tuned threshold, gap and top-K where the window and `flashback search` read "
                           "them (the window's settings file)")
    tune.add_argument("--json", action="store_true", help="print one JSON object")
    cli_memory._embedding_options(tune)


def _targets(args: argparse.Namespace, service):
    if args.qrels is None:
        targets = service.evaluation.labelled_targets()
        if not targets:
            raise EngineError(msg("cli.tune.no_labels"))
        return targets, 0
    return service.evaluation.qrels_targets(args.qrels)


def run_tune(args: argparse.Namespace, data_dir: Path) -> int:
    from engine.api import load_qrels

    if args.qrels is not None:
        load_qrels(args.qrels)  # a broken file is the first thing to hear about, before any build
    if args.folds < 2:
        raise EngineError(msg("cli.tune.folds"))
    service = cli_memory._service(args, data_dir)
    cli_memory.ensure_built(args, service, whole=True)
    targets, unmatched = _targets(args, service)
    retrieval = RetrievalSettings(candidates=args.candidates, safety_threshold=args.safety, hybrid=args.hybrid)
    current = ThresholdSettings(args.threshold, args.gap, args.top_k)
    result = service.evaluation.tune(targets, retrieval, current, args.objective, args.budget, args.folds,
                          lexical=not args.no_lexical, seed=args.seed)
    shaped = result.as_dict()
    shaped["unmatched_messages"] = unmatched
    saved = _save(args, data_dir, result) if args.save else None
    if saved is not None:
        shaped["saved_to"] = saved[0]
    if args.json:
        sys.stdout.write(json.dumps(shaped, ensure_ascii=False) + "\n")
        return 0
    settings = shaped["settings"]
    weight = settings["lexical_weight"]
    line = words("cli.tune.tuned", objective=_OBJECTIVE_WORDS.get(args.objective, args.objective),
                 queries=result.before["queries"], folds=result.folds, threshold=settings["threshold"],
                 gap=settings["gap"], top_k=settings["top_k"])
    sys.stdout.write((words("cli.tune.lexical", line=line, weight=weight) if weight is not None else line) + "\n")
    table = aligned_table(list(SHOWN), [(name, [shaped[name][key] for key in SHOWN])
                                        for name in ("before", "after", "cross_validated")])
    sys.stdout.write("\n".join(table) + "\n")
    sys.stdout.write(noise_words(result.noise, args.objective) + "\n")
    if unmatched:
        sys.stdout.write(words("cli.tune.unmatched", count=unmatched) + "\n")
    if saved is not None:
        sys.stdout.write(saved[1] + "\n")
    else:
        sys.stdout.write(words("cli.tune.not_saved") + "\n")
    return 0


def noise_words(noise: dict, objective: str) -> str:
    """The cross-validated gain over the current settings, against its noise, in words:
    "+0.04 F1 …, within noise (±0.05)" or "… beyond noise"."""
    if "standard_error" not in noise:
        note = Message.from_json(noise.get("note_message"))
        return say(note) if note is not None else words("cli.tune.too_few")
    gain, margin = noise["cross_validated_minus_before"], NOISE_SES * noise["standard_error"]
    what = words("cli.tune.gain", gain=gain, objective=_OBJECTIVE_WORDS.get(objective, objective))
    if gain == 0 and margin == 0:
        return words("cli.tune.same", what=what)
    if abs(gain) <= margin:
        return words("cli.tune.within_noise", what=what, margin=margin)
    return words("cli.tune.beyond_noise" if gain > 0 else "cli.tune.worse", what=what, margin=margin)


def _save(args: argparse.Namespace, data_dir: Path, result) -> tuple[str, str]:
    """Write the tuned settings; (where, the sentence that says so)."""
    tuned = result.tuned.settings
    try:
        where = save_values(data_dir, data_dir_given(args.data_dir),
                            {"threshold": tuned.threshold, "gap": tuned.gap, "top_k": tuned.top_k})
    except OSError as exc:
        raise EngineError(msg("cli.tune.save_failed", file=str(exc.filename or words("cli.tune.settings_file")),
                              problem=exc.strerror or str(exc))) from exc
    line = words("cli.tune.saved", threshold=tuned.threshold, gap=tuned.gap, top_k=tuned.top_k, where=where)
    if result.tuned.lexical_weight is not None:
        line = words("cli.tune.lexical_not_saved", line=line, weight=result.tuned.lexical_weight)
    return where, line
