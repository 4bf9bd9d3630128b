"""What the engine says to a person, as codes with parameters, rendered by each face.

The engine never writes a sentence for the window or the terminal: an error or a note
carries a `Message` (a code such as ``"store.read_only"`` and its parameters), and a face
renders it in the person's language from one catalogue per language (`en.py`, `ru.py`),
as Anki's core hands the Qt shell Fluent ids instead of English text. A code that lacks a
rendering in either language fails `tests/engine/test_messages.py`.

Templates are `str.format` strings. Two extras: a parameter that is itself a `Message` is
rendered in the same language, and ``{n:plural:topic|topics}`` (English: one|other;
Russian: one|few|many) writes the number followed by the right form of the word.

A message says WHAT is missing or wrong (a key, a model, an address); WHERE a person sets it
is each face's to say, since only the face knows its own controls: `render(…, face="cli")`
adds the CLI's hint (its real option), `face="window"` the window's (its real panel or
dialog), `face="mcp"` the MCP server's (the window's settings), from ``hint.<face>.<setting>``
in the same catalogue. The closed sets a person reads the names of (why a reranker or an Ask
step fell back, an Ask step, a reranker, a build stage) have their words here too:
`reason_message`, `step_message`, `reranker_message`, `stage_message`; no face shows such a
name as it is stored.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

LANGUAGES = ("en", "ru")
DEFAULT_LANGUAGE = "en"
FACES = ("window", "cli", "mcp")

# The setting a message is about, for the messages a person gets past by changing one: the
# face adds where that setting is (`hint.<face>.<setting>`). Keep the message itself free of
# any face's words (issue 31: the catalogue named a "Settings → LLM" the window does not have).
SETTING_OF: dict[str, str] = {
    "llm.needs_key": "llm_key", "llm.key_rejected": "llm_key", "llm.key_rejected_none_set": "llm_key",
    "llm.no_model": "llm_model", "llm.bad_scheme": "llm_url", "ask.no_model": "llm_setup",
    "embeddings.unknown_provider": "embedder", "embeddings.failed": "embedder",
    "embeddings.no_address": "embedder_url", "embeddings.no_model": "embedder_model",
    "embeddings.unusable_answer": "embedder_model",
    "embeddings.key_missing": "embedding_key", "embeddings.key_rejected": "embedding_key",
    "embeddings.timeout": "embedding_timeout",
}
# Where the words of a fallback reason are, by the code's family: a reranker's, the
# cross-encoder's own, an Ask step's (engine/rerank/base.py, cross_encoder/errors.py, engine/ask).
_REASON_FAMILIES = ("rerank.fallback.", "rerank.cross_encoder.fallback.", "ask.fallback.")


@dataclass(frozen=True)
class Message:
    """A code and its parameters: what the engine means, in no language yet."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return render(self, language)

    def __str__(self) -> str:
        return render(self, DEFAULT_LANGUAGE)

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe: the code, its parameters (nested messages as their English text) and the text."""
        params = {key: (str(value) if isinstance(value, Message) else value) for key, value in self.params.items()}
        return {"code": self.code, "params": params, "text": str(self)}

    def to_json(self) -> dict[str, Any]:
        """JSON-safe and lossless: nested messages stay {"code", "params"} (what `from_json` reads
        back), for a message stored with a run or sent beside a report's English text."""
        params = {key: (value.to_json() if isinstance(value, Message) else value) for key, value in self.params.items()}
        return {"code": self.code, "params": params}

    @classmethod
    def from_json(cls, data: Any) -> Message | None:
        """The message `to_json` (or `as_dict`) wrote; None for anything else (an old record without one)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("code"), str):
            return None
        raw = data.get("params")
        params = {str(key): (cls.from_json(value) or value) if isinstance(value, Mapping) else value
                  for key, value in (raw.items() if isinstance(raw, Mapping) else ())}
        return cls(data["code"], params)


def msg(code: str, **params: Any) -> Message:
    return Message(code, params)


def catalogue(language: str) -> Mapping[str, str]:
    if language == "ru":
        from engine.messages.ru import CATALOGUE as RUSSIAN

        return RUSSIAN
    from engine.messages.en import CATALOGUE as ENGLISH

    return ENGLISH


def normalise_language(language: str | None) -> str:
    """"ru_RU.UTF-8", "ru-RU", "RU" → "ru"; anything unknown → English."""
    short = (language or "").replace("-", "_").split("_")[0].split(".")[0].lower()
    return short if short in LANGUAGES else DEFAULT_LANGUAGE


def render(message: Message | str, language: str = DEFAULT_LANGUAGE, face: str | None = None) -> str:
    """`message` in `language`; a code missing there falls back to English, then to the code
    itself with its parameters (never an exception: a face must always have something to show).
    `face` ("window", "cli", "mcp") adds that face's hint of where to set what the message
    (or a message inside it) says is missing; without it the message alone."""
    if isinstance(message, str):
        return message
    text = _render(message, normalise_language(language))
    if face is None:
        return text
    english = catalogue(DEFAULT_LANGUAGE)  # a face with nothing to add for a setting has no hint code for it
    hints = [_render(Message(code), normalise_language(language))
             for code in (f"hint.{face}.{setting}" for setting in settings_named(message)) if code in english]
    return " ".join([text, *dict.fromkeys(hints)])


def settings_named(message: Message) -> list[str]:
    """The settings (`SETTING_OF`) that `message` and the messages inside it are about, in order."""
    found = [SETTING_OF[message.code]] if message.code in SETTING_OF else []
    for value in message.params.values():
        if isinstance(value, Message):
            found.extend(settings_named(value))
    return list(dict.fromkeys(found))


def reason_message(reason: str) -> Message:
    """Why a reranker or an Ask step fell back (a stored name such as "timeout", "endpoint_error",
    "no_model" or "answer_parse_error"), in words; a name this catalogue does not know is
    "another reason", never the name itself."""
    if reason.startswith("answer_"):
        return Message("ask.fallback.answer", {"reason": reason_message(reason.removeprefix("answer_"))})
    english = catalogue(DEFAULT_LANGUAGE)
    code = next((family + reason for family in _REASON_FAMILIES if family + reason in english), None)
    return Message(code or "fallback.other")


def step_message(step: str) -> Message:
    """An Ask step's name (engine/ask/types.py STEPS) in words."""
    code = f"ask.step.{step}"
    return Message(code if code in catalogue(DEFAULT_LANGUAGE) else "ask.step.other")


def stage_message(stage: str) -> Message:
    """A build or check stage ("embeddings", "index topic", engine/build) in words; a stage this
    catalogue does not know is "Working", never the stage's stored name."""
    code = f"build.stage.{stage}"
    return Message(code if code in catalogue(DEFAULT_LANGUAGE) else "build.stage.other")


def duration_message(ms: float | None) -> Message:
    """Milliseconds for a person: "850 ms", "1.2 s", "2 min 5 s"; "–" when unknown."""
    if ms is None:
        return msg("unit.unknown")
    if ms < 1000:
        return msg("unit.ms", value=ms)
    if ms < 60_000:
        return msg("unit.s", value=ms / 1000)
    minutes, seconds = divmod(round(ms / 1000), 60)
    return msg("unit.min_s", minutes=minutes, seconds=seconds)


def kind_message(kind: str) -> Message:
    """A candidate's kind ("topic", "person", "artifact", "message": engine.retrieval.candidate) in words."""
    code = f"runs.kind.{kind}"
    return Message(code if code in catalogue(DEFAULT_LANGUAGE) else "runs.kind.other")


def reranker_message(name: str) -> Message:
    """A recorded run's reranker ("threshold", "flash", "cross-encoder", "ask", "none") in words."""
    code = f"reranker.{name}"
    return Message(code if code in catalogue(DEFAULT_LANGUAGE) else "reranker.other")


def _render(message: Message, language: str) -> str:
    template = catalogue(language).get(message.code) or catalogue(DEFAULT_LANGUAGE).get(message.code)
    if template is None:
        return f"{message.code} {dict(message.params)}"
    params = {key: (_render(value, language) if isinstance(value, Message) else value)
              for key, value in message.params.items()}
    try:
        return _Formatter(language).format(template, **params)
    except (KeyError, IndexError, ValueError):
        return f"{template} {params}"


def plural_form(count: float, forms: list[str], language: str) -> str:
    """The form of a word for `count`: English one|other, Russian one|few|many."""
    number = abs(int(count)) if float(count).is_integer() else None
    if language == "ru" and len(forms) >= 3:
        if number is None:
            return forms[1]
        if number % 10 == 1 and number % 100 != 11:
            return forms[0]
        if 2 <= number % 10 <= 4 and not 12 <= number % 100 <= 14:
            return forms[1]
        return forms[2]
    return forms[0] if number == 1 else forms[-1]


class _Formatter(string.Formatter):
    def __init__(self, language: str) -> None:
        super().__init__()
        self.language = language

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec.startswith("plural:"):
            forms = format_spec[len("plural:"):].split("|")
            number = f"{value:,}" if isinstance(value, int) else str(value)
            if self.language == "ru":
                number = number.replace(",", "\u00a0")
            return f"{number} {plural_form(value, forms, self.language)}"
        return super().format_field(value, format_spec)


__all__ = ["DEFAULT_LANGUAGE", "FACES", "LANGUAGES", "SETTING_OF", "Message", "catalogue", "msg", "normalise_language",
           "plural_form", "reason_message", "render", "reranker_message", "settings_named", "stage_message",
           "step_message"]
