"""What the Ask mode says, in the window's language: step names, why there is no answer, why a
claim is marked, what a run changed against an earlier one.

The engine names what happened (a step, a fallback reason such as "answer_timeout", a claim's
method and support figure); the names of steps and reasons are rendered from the engine's
catalogue (one list for the window, the CLI and MCP, issue 31), the window's own sentences
around them are `translate("AskView", …)`. The verifier's own note is added from its code when it has one, else (its
English text) only in an English window.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import QCoreApplication

from engine.api import PRESETS, Message, msg, reason_message, render, step_message
from ui.i18n import current_language, engine_words

translate = QCoreApplication.translate  # lupdate reads translate("AskView", "…") calls
ASK_RERANKER = "ask"  # engine.ask's RERANKER_NAME: how Ask runs are recorded in the run history
STEP_ORDER = ("plan", "search", "rerank", "compose", "answer", "verify")


def duration(milliseconds: float | None) -> str:
    if milliseconds is None:
        return "—"
    if milliseconds < 1000:
        return translate("SearchPanel", "{0:.0f} ms").format(milliseconds)
    return translate("SearchPanel", "{0:.2f} s").format(milliseconds / 1000)


def step_name(step: str) -> str:
    """An Ask step (engine STEPS) in the window's language, from the engine's catalogue."""
    return engine_words(step_message(step))


def model_missing(settings, keys) -> str | None:
    """Why Ask has no chat model with these settings (one sentence), or None when it has one."""
    preset = PRESETS[settings.preset]
    if settings.preset == "custom" and not settings.base_url.strip():
        return render(msg("ask.no_model"), current_language()) + " " + engine_words(msg("hint.window.llm_url"))
    if not settings.model.strip():
        return engine_words(msg("ask.no_model"))  # with the window's hint of where to choose one
    if preset.needs_key and not (keys is not None and keys.get(settings.preset)):
        return translate("AskView", "No API key for {0}, so there is no written answer, only what the sources "
                                    "say: add one in the API key dialog.").format(
            engine_words(preset.label_message()))
    return None


def fallback_sentence(reason: str | None) -> str:
    """Why the outcome has no answer (AskOutcome.fallback), or "" when it has one."""
    if not reason or reason == "no_model":
        return ""  # no_model is said by `model_missing`, which knows what to set
    if reason == "search_error":
        return translate("AskView", "The search failed, so there is nothing to answer from.")
    if reason == "compose_error":
        return translate("AskView", "The messages found could not be read, so there is no answer.")
    return translate("AskView", "No answer ({0}); the sources found are below.").format(
        engine_words(reason_message(reason.removeprefix("answer_"))))


def step_fallback(reason: str | None) -> str:
    """Why a step did not do its own work, in words; "" for none (or a step turned off)."""
    if not reason or reason == "off":
        return ""
    if reason == "no_model":
        return engine_words(reason_message(reason))
    return translate("AskView", "fell back: {0}").format(engine_words(reason_message(reason)))


def step_tip(record) -> str:
    """A step's tooltip: its time and, when it did not do its own work, why, with the error as
    the engine said it (issue 31: "Could not reach … at http://…", not "answered with an error")."""
    why = step_fallback(record.fallback)
    tip = duration(record.ms) + (" · " + why if why else "")
    if record.fallback:
        detail = record.detail or {}
        report = detail.get("report")
        said = Message.from_json(detail.get("error_message")) or \
            (Message.from_json(report.get("error_message")) if isinstance(report, dict) else None)
        if said is not None:
            tip += "\n" + engine_words(said)
    return tip


def unreachable_sentence(outcome) -> str:
    """Why there is no written answer when the chat model's server could not be reached, naming
    its address (the engine's note); "" when that is not why."""
    said = next((n for n in outcome.notes if isinstance(n, Message) and n.code == "ask.unreachable"), None)
    return engine_words(said) if said is not None else ""


def claim_tip(claim) -> str:
    """Why a claim is marked: the verifier's verdict in words, and its own note (rendered from its
    code in the window's language; English text only in an English window)."""
    if claim.supported is None:
        text = translate("AskView", "Not checked: the offline check cannot compare a claim written in another "
                                    "language than its sources.")
    elif not claim.citations:
        text = translate("AskView", "Cites no source, so nothing supports it.")
    else:
        how = translate("AskView", "checked by the model") if claim.method == "llm" else \
            translate("AskView", "checked offline")
        text = translate("AskView", "Not supported by the messages it cites ({0}; support {1:.2f} of 1).").format(
            how, claim.support)
    said = getattr(claim, "note_message", None)  # the verifier's note as a code, where the engine gives one
    if said is not None:
        text += "\n" + engine_words(said)
    elif current_language() == "en" and claim.note:
        text += "\n" + claim.note
    return text


def endpoint_host(settings) -> str:
    url = settings.effective_url()
    return urlsplit(url).hostname or url


def summary(outcome) -> str:
    """The status line after an answer: time, the model's share, tokens, cost."""
    timings, usage = outcome.timings_ms or {}, outcome.usage or {}
    parts = [translate("AskView", "Asked in {0}").format(duration(timings.get("total")))]
    if timings.get("model"):
        parts.append(translate("AskView", "model {0}").format(duration(timings["model"])))
    if usage.get("prompt_tokens"):
        parts.append(translate("SearchPanel", "{0:,} + {1:,} tokens").format(
            usage["prompt_tokens"], usage.get("completion_tokens") or 0))
    if usage.get("cost") is not None:
        parts.append(translate("SearchPanel", "cost ${0:.4f}").format(float(usage["cost"])))
    if outcome.refined:
        parts.append(translate("AskView", "answered in a second round"))
    return " · ".join(parts)


def comparison(previous: dict[str, Any], previous_id: int, outcome) -> str:
    """One line comparing a re-run with the recorded run it repeats (`RunRecord.report`)."""
    before = {(s.get("topic_id"), tuple(s.get("message_ids") or ())) for s in previous.get("sources") or []}
    after = {(s.topic_id, tuple(s.message_ids)) for s in outcome.sources}
    answer_before = previous.get("answer") or {}
    claims_after = [c.as_dict() for c in outcome.answer.claims] if outcome.answer is not None else []

    def supported(claims: list[dict]) -> str:
        return f"{sum(1 for c in claims if c.get('supported'))}/{len(claims)}"

    same = (answer_before.get("text") or "") == (outcome.answer.text if outcome.answer is not None else "")
    return translate("AskView", "Compared with run {run}: {same} of {sources} sources the same ({before} "
                                "before); supported claims {claims_before} → {claims_after}; {time_before} → "
                                "{time_after}; {answer}.").format(
        run=previous_id, same=len(before & after), sources=len(after), before=len(before),
        claims_before=supported(answer_before.get("claims") or []), claims_after=supported(claims_after),
        time_before=duration((previous.get("timings_ms") or {}).get("total")),
        time_after=duration((outcome.timings_ms or {}).get("total")),
        answer=translate("AskView", "the same answer") if same else translate("AskView", "a different answer"))
