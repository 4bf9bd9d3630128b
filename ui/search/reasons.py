"""Why a reranker kept a candidate, in the UI's language.

The engine writes its reasons in English ("score 0.66 ≥ 0.50, 0.09 below the previous …",
engine/rerank/threshold.py; "vector rank 2, score 0.61" for keep-all; "fallback (timeout):
vector rank 1, …" when Flash fell back) for the CLI, the traces and the exports. The window
says the same thing from the same numbers (the candidate's rank and score, the threshold and
gap the run used, the score of the kind's previous selection, why Flash fell back) through
tr(), so a Russian window reads Russian. Flash's own reasons are the model's words and are
shown as they are.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

translate = QCoreApplication.translate  # lupdate reads translate("SearchPanel", "…") calls


def threshold_reason(score: float, threshold: float, previous: float | None = None, gap: float = 0.0) -> str:
    if previous is None:
        return translate("SearchPanel", "score {0:.2f} ≥ {1:.2f}").format(score, threshold)
    return translate("SearchPanel", "score {0:.2f} ≥ {1:.2f}, {2:.2f} below the previous (gap limit {3:.2f})").format(
        score, threshold, previous - score, gap)


def threshold_reasons(selected: list[tuple[str, int]], scores: dict[tuple[str, int], float],
                      settings: dict) -> list[str | None]:
    """One reason per (kind, id) in `selected` (the reranker's order: each kind best first), or
    None where the score is unknown (the caller keeps the engine's text). `settings` is the
    run's own {"threshold", "gap"}, not the sliders' current values."""
    threshold, gap = float(settings.get("threshold", 0.0)), float(settings.get("gap", 0.0))
    previous: dict[str, float] = {}
    reasons: list[str | None] = []
    for kind, id_ in selected:
        score = scores.get((kind, id_))
        if score is None:
            reasons.append(None)
            continue
        reasons.append(threshold_reason(score, threshold, previous.get(kind), gap))
        previous[kind] = score
    return reasons


def vector_reason(rank: int, score: float) -> str:
    """Keep-all ("vector only"): every candidate in stage-1 order."""
    return translate("SearchPanel", "vector rank {0}, score {1:.2f}").format(rank, score)


def fallback_name(reason: str | None) -> str:
    """Why Flash fell back (engine.rerank.base.FALLBACK_REASONS), in a few words."""
    words = {
        "llm_error": translate("SearchPanel", "the model's server answered with an error"),
        "timeout": translate("SearchPanel", "the time ran out"),
        "turn_timeout": translate("SearchPanel", "a turn took too long"),
        "empty_response": translate("SearchPanel", "the model answered nothing"),
        "protocol_violation": translate("SearchPanel", "the model did not follow the protocol"),
        "parse_error": translate("SearchPanel", "the answer could not be read"),
        "all_hallucinated": translate("SearchPanel", "every id in the answer was made up"),
        "max_tool_calls": translate("SearchPanel", "the tool call limit was reached"),
        "model_empty": translate("SearchPanel", "the model found nothing relevant"),
    }
    return words.get(reason or "", reason or "")


def fallback_reason(reason: str, requested: bool, rank: int, score: float) -> str:
    """What a Flash fallback kept: a topic the model asked to read, or stage 1's best."""
    if requested:
        text = translate("SearchPanel", "fallback ({0}): requested by the model, vector rank {1}, score {2:.2f}")
    else:
        text = translate("SearchPanel", "fallback ({0}): vector rank {1}, score {2:.2f}")
    return text.format(fallback_name(reason), rank, score)


def rewrite_reason(reason: str | None) -> str:
    """Why the query rewrite (seed 000 step 1) was not used; the engine's reason is English."""
    reason = reason or ""
    known = {
        "no chat model configured": translate("SearchPanel", "no chat model is set up"),
        "no recent messages": translate("SearchPanel", "no recent messages"),
        "unchanged": translate("SearchPanel", "the rewrite was the same query"),
        "cut off at the reply bound": translate("SearchPanel", "the rewrite was cut off"),
    }
    if reason in known:
        return known[reason]
    if reason.startswith("failed ("):  # "failed (LLMTimeout): …": the error's kind, not its English detail
        kind = reason[len("failed ("):].split(")", 1)[0]
        return translate("SearchPanel", "the call failed: {0}").format(kind)
    return translate("SearchPanel", "the model's rewrite was refused")


def shown_reasons(reranker: str, fallback: str | None, selected: list[tuple[str, int]],
                  candidates: dict[tuple[str, int], tuple[int, float]], run_settings: dict,
                  requested: set[int], engine: list[str]) -> list[str]:
    """Each selection's reason as the window says it: the threshold and keep-all rerankers'
    and a Flash fallback's from their numbers, Flash's own as the model wrote them.
    `candidates`: (kind, id) → (stage-1 rank, score); `engine`: the reasons the engine wrote."""
    if reranker == "threshold":
        scores = {key: score for key, (_rank, score) in candidates.items()}
        ours = threshold_reasons(selected, scores, run_settings)
        return [mine or theirs for mine, theirs in zip(ours, engine, strict=True)]
    if reranker in ("none", "flash"):
        if reranker == "flash" and not fallback:
            return engine
        reasons = []
        for key, theirs in zip(selected, engine, strict=True):
            found = candidates.get(key)
            if found is None or (reranker == "flash" and not theirs.startswith("fallback (")):
                reasons.append(theirs)
            elif reranker == "none":
                reasons.append(vector_reason(*found))
            else:
                reasons.append(fallback_reason(fallback or "", key[1] in requested, *found))
        return reasons
    return engine
