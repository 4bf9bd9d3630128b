"""Why a reranker kept a candidate, why Flash fell back, why a rewrite was not used: in the
window's language.

The engine writes each of these as a message code beside its English text (a threshold cut
or a keep-all rank as `Selection.reason_message`, a fallback's name as `reason_message`,
the rewrite's reason as `QueryRewrite.reason_message`); the window renders the code. Where
there is none (a Flash selection's reason is the model's own words; a run recorded before
the codes existed) the text is shown as written.
"""

from __future__ import annotations

from typing import Any

from engine.api import Message, Selection, reason_message
from ui.i18n import engine_words


def selection_reason(selection: Selection) -> str:
    if selection.reason_message is not None:
        return engine_words(selection.reason_message)
    return selection.reason


def recorded_reasons(selected: list[dict[str, Any]]) -> list[str]:
    """The reasons of a recorded run's selections (`RunRecord.selected`)."""
    return [selection_reason(Selection.from_dict(data)) for data in selected]


def fallback_name(reason: str | None) -> str:
    """Why a reranker or an Ask step fell back (a FALLBACK_REASONS name, the cross-encoder's, an Ask
    step's) in a few words from the engine's catalogue; "" for none. Never the name itself."""
    return engine_words(reason_message(reason)) if reason else ""


def fallback_explained(report: dict[str, Any]) -> str:
    """Why Flash fell back and what it kept instead, from a recorded run's report (`RunRecord.report`):
    the reason's sentence ("Could not reach Ollama … Check that the server is
    running.") and the rule the kept topics came by (issue 23); "" when neither was said."""
    said = []
    for key, text in (("error_message", report.get("error")),
                      ("fallback_kept_message", (report.get("fallback_kept") or {}).get("text"))):
        message = Message.from_json(report.get(key))
        said.append(message if message is not None else Message("error.text", {"text": str(text or "")}))
    return fallback_said(*said)


def fallback_said(error: Message | None, kept: Message | None) -> str:
    """`fallback_explained` from a search's typed report (`FlashReport.error`, `.fallback_kept`)."""
    said = []
    for message in (error, kept):
        words = engine_words(message) if message is not None else ""
        if words:
            said.append(words.rstrip("."))
    return "; ".join(said)


def rewrite_reason(rewrite) -> str:
    """Why the query rewrite (seed 000 step 1) was not used (an engine QueryRewrite)."""
    if rewrite.reason_message is not None:
        return engine_words(rewrite.reason_message)
    return rewrite.reason or ""
