"""What the search view's settings panel edits: one plain frozen dataclass, kept in QSettings.

Kept apart from the widgets so the panel, the tests and the main window all read one typed
object. Each setting the engine defines (`engine.api.SETTINGS`: default, range, decimals,
unit, choices) is taken from there, so the window, the CLI and the engine agree on what is
allowed; values read back from QSettings are brought into that range by `Setting.clamp`.
The engine's own settings (RetrievalSettings, ThresholdSettings, FlashSettings, Endpoint,
CrossEncoderSettings, RerankEndpoint) are built from it only when a search or a rerank run
starts, so the engine never sees Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from PySide6.QtCore import QSettings

from engine.api import (
    CLOUD,
    LOCAL,
    PRESETS,
    SETTINGS,
    EmbeddingConfig,
    EmptyDateRange,
    Message,
    RetrievalSettings,
    SavedSearchChoices,
    check_date_range,
    day_bounds,
)

GROUP = "search"
MODES = ("vector", "threshold", "cross-encoder", "flash")
EFFORTS = SETTINGS["reasoning_effort"].choices
PRESET_ORDER = ("openrouter", "openai", "ollama", "llamacpp", "lmstudio", "custom")
# Rerank servers (issue 25): the ones on this computer first (no key, nothing leaves it), then the APIs.
RERANK_PRESET_ORDER = ("llamacpp", "tei", "infinity", "vllm", "jina", "cohere", "voyage", "custom")
WindowEmbedder = Literal["builtin", "local"]  # Settings → Embeddings; API embedders are set up from the command line
EMBEDDERS: tuple[WindowEmbedder, ...] = ("builtin", "local")

# A few well-known model names per endpoint; the combo box stays editable for any other.
MODEL_CHOICES: dict[str, tuple[str, ...]] = {
    "openrouter": ("google/gemini-3-flash-preview", "google/gemini-2.5-flash", "openai/gpt-5-mini",
                   "anthropic/claude-haiku-4.5", "qwen/qwen3-235b-a22b-2507"),
    "openai": ("gpt-5-mini", "gpt-5-nano", "gpt-4.1-mini"),
    "ollama": ("qwen3:8b", "llama3.1:8b", "gemma3:12b"),
    "llamacpp": ("local",),
    "lmstudio": ("local-model", "qwen/qwen3-8b"),
    "custom": (),
}

# (minimum, maximum, decimals) of every numeric setting the window shows, from the engine's
# schema: the sliders and spin boxes use these (the CLI accepts the same range).
RANGES: dict[str, tuple[float, float, int]] = {
    key: (float(spec.minimum), float(spec.maximum), spec.decimals) for key, spec in SETTINGS.items()
    if spec.window and spec.kind in (int, float) and spec.minimum is not None and spec.maximum is not None}


def _default(key: str):
    return SETTINGS[key].default


@dataclass(frozen=True)
class SearchSettings(SavedSearchChoices):
    mode: str = "threshold"  # vector | threshold | cross-encoder | flash
    candidates: int = _default("candidates")
    hybrid: bool = _default("hybrid")
    threshold: float = _default("threshold")
    gap: float = _default("gap")
    top_k: int = _default("top_k")
    # Flash (docs/interfaces.md)
    preset: str = "openrouter"
    base_url: str = ""  # empty: the preset's URL
    model: str = PRESETS["openrouter"].default_model
    reasoning_effort: str = _default("reasoning_effort")
    timeout: int = int(_default("timeout"))  # whole seconds: the spin box shows no decimals
    max_tool_calls: int = _default("max_tool_calls")
    max_topics: int = _default("max_topics")
    max_people: int = _default("max_people")
    max_artifacts: int = _default("max_artifacts")
    # Seed 000 step 1: with recent messages, Flash first restates the query and stage 1
    # searches both (Flashback.search.arerank). Costs nothing without recent messages.
    rewrite_query: bool = True
    budget_tokens: int = _default("budget_tokens")  # context export
    # Cross-encoder (issue 25, seed 002 §7; docs/rerankers.md): a rerank server scores stage 1's
    # best topics. Its own cut (score ≥, top-K) re-filters the scores it sent back instantly;
    # the rest changes what is sent, so the server is asked again.
    rerank_preset: str = "llamacpp"
    rerank_url: str = ""  # empty: the preset's address
    rerank_model: str = ""  # empty: the preset's model
    ce_threshold: float = _default("ce_threshold")
    ce_top_k: int = _default("ce_top_k")
    ce_top_n: int = _default("ce_top_n")
    ce_passage_tokens: int = _default("ce_passage_tokens")
    ce_batch: int = _default("ce_batch")
    ce_skip_small: bool = _default("ce_skip_small")
    ce_skip_flat: bool = _default("ce_skip_flat")
    ce_timeout: int = int(_default("ce_timeout"))  # whole seconds, like Flash's
    # Flash reads only the cross-encoder's best `ce_chain_keep` topics (fewer tokens).
    chain_cross_encoder: bool = False
    ce_chain_keep: int = _default("ce_chain_keep")
    # Builds: seed 004's splitter and merger agents on this endpoint and model (API calls
    # per session chunk, so off until asked for).
    topics_llm: bool = False
    # Which model turns topics and questions into vectors: "builtin" (words, instant) or
    # "local" (multilingual-e5-small on this computer, flashback[local]). A change re-embeds.
    embedder: WindowEmbedder = "builtin"
    # Filters of stage 1; not saved: a filter forgotten from last week would hide results.
    chat_id: int = 0  # 0: every chat
    date_from: str = ""  # "YYYY-MM-DD" (UTC day) or "": no bound
    date_to: str = ""

    # -- engine settings ----------------------------------------------------------------
    def retrieval(self) -> RetrievalSettings:
        date_from, date_to = day_bounds(self.date_from, self.date_to)
        return RetrievalSettings(candidates=self.candidates, hybrid=self.hybrid,
                                 chat_ids=(self.chat_id,) if self.chat_id else (), date_from=date_from, date_to=date_to)

    def date_problem(self) -> Message | None:
        """Why the From/To days match nothing (From after To), or None: the filter says it and
        no search runs (issue 23)."""
        try:
            check_date_range(*day_bounds(self.date_from, self.date_to))
        except EmptyDateRange as error:
            return error.message
        return None

    @staticmethod
    def default_timeout(preset: str) -> int:
        """The Flash time budget a preset starts with: a cloud model's, or a CPU model's minutes."""
        return int((LOCAL if PRESETS[preset].local else CLOUD).total_timeout)

    def embedding_config(self) -> EmbeddingConfig:
        return EmbeddingConfig(provider=self.embedder)

    def effective_url(self) -> str:
        return self.base_url.strip() or PRESETS[self.preset].base_url


UNSAVED = frozenset({"chat_id", "date_from", "date_to"})


def load(store: QSettings) -> SearchSettings:
    """Read what was saved, falling back to the default for anything missing or malformed
    (a hand-edited or older settings file must never stop the window from opening)."""
    defaults = SearchSettings()
    values = {}
    for spec in fields(SearchSettings):
        default = getattr(defaults, spec.name)
        raw = None if spec.name in UNSAVED else store.value(f"{GROUP}/{spec.name}")
        values[spec.name] = default if raw is None else _coerce(spec.name, raw, default)
    return replace(defaults, **values)


def save(store: QSettings, settings: SearchSettings) -> None:
    for spec in fields(SearchSettings):
        if spec.name not in UNSAVED:
            store.setValue(f"{GROUP}/{spec.name}", getattr(settings, spec.name))


def _coerce(name: str, raw: Any, default: Any) -> Any:
    """A value read back from the settings file as the field's type: what the engine's schema
    allows (`Setting.clamp`: out of range → the nearest end, unreadable → the default). Typed
    Any: QSettings gives back any type, and the value has the type of the field `name` names."""
    if isinstance(default, bool):  # INI files give "true"/"false" back as strings
        return raw if isinstance(raw, bool) else str(raw).lower() in ("true", "1", "yes")
    spec = SETTINGS.get(name)
    if spec is not None and spec.window:
        value = spec.clamp(raw)
        try:
            return type(default)(value)  # the schema's float timeout is the window's whole seconds
        except (TypeError, ValueError):
            return default
    if isinstance(default, int | float):
        try:
            return type(default)(float(raw))
        except (TypeError, ValueError):
            return default
    allowed = {"mode": MODES, "preset": PRESET_ORDER, "embedder": EMBEDDERS,
               "rerank_preset": RERANK_PRESET_ORDER}.get(name)
    value = str(raw)
    return value if allowed is None or value in allowed else default
