"""What the search view's settings panel edits: one plain frozen dataclass, kept in QSettings.

Kept apart from the widgets so the panel, the tests and the main window all read one typed
object. The engine's own settings (RetrievalSettings, ThresholdSettings, FlashSettings,
Endpoint) are built from it only when a search or a Flash run starts, so the engine never
sees Qt and the widgets never hold engine defaults twice (they are read from the engine).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from PySide6.QtCore import QSettings

from engine.embeddings.base import EmbeddingConfig
from engine.llm.presets import PRESETS, Endpoint
from engine.rerank.threshold import ThresholdSettings
from engine.retrieval.search import RetrievalSettings, day_bounds

GROUP = "search"
MODES = ("vector", "threshold", "flash")
EFFORTS = ("none", "minimal", "low", "medium", "high")
PRESET_ORDER = ("openrouter", "openai", "ollama", "llamacpp", "lmstudio", "custom")
EMBEDDERS = ("builtin", "local")  # Settings → Embeddings; API embedders are set up from the command line

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

# (minimum, maximum, decimals) of every numeric setting: the sliders and spin boxes use
# these, and values read back from QSettings are clamped into them.
RANGES: dict[str, tuple[float, float, int]] = {
    "candidates": (3, 50, 0),
    "threshold": (0.10, 0.90, 2),
    "gap": (0.02, 0.50, 2),
    "top_k": (1, 10, 0),
    "max_topics": (1, 10, 0),
    "max_people": (0, 20, 0),
    "max_artifacts": (0, 20, 0),
    "timeout": (1, 300, 0),  # a CPU model on a local server needs minutes (docs/llm_servers.md)
    "max_tool_calls": (1, 5, 0),
    "budget_tokens": (500, 100_000, 0),
}


@dataclass(frozen=True)
class SearchSettings:
    mode: str = "threshold"  # vector | threshold | flash
    candidates: int = RetrievalSettings.candidates
    hybrid: bool = RetrievalSettings.hybrid
    threshold: float = ThresholdSettings.threshold
    gap: float = ThresholdSettings.gap
    top_k: int = ThresholdSettings.top_k
    # Flash: the defaults of engine.rerank.flash.FlashSettings (docs/interfaces.md); written
    # out because that package is imported only when a Flash run starts.
    preset: str = "openrouter"
    base_url: str = ""  # empty: the preset's URL
    model: str = PRESETS["openrouter"].default_model
    reasoning_effort: str = "low"
    timeout: int = 60
    max_tool_calls: int = 3
    max_topics: int = 5
    max_people: int = 10
    max_artifacts: int = 10
    # Seed 000 step 1: with recent messages, Flash first restates the query and stage 1
    # searches both (engine.service.arerank). Costs nothing without recent messages.
    rewrite_query: bool = True
    budget_tokens: int = 8000  # context export
    # Builds: seed 004's splitter and merger agents on this endpoint and model (API calls
    # per session chunk, so off until asked for).
    topics_llm: bool = False
    # Which model turns topics and questions into vectors: "builtin" (words, instant) or
    # "local" (multilingual-e5-small on this computer, flashback[local]). A change re-embeds.
    embedder: str = "builtin"
    # Filters of stage 1; not saved: a filter forgotten from last week would hide results.
    chat_id: int = 0  # 0: every chat
    date_from: str = ""  # "YYYY-MM-DD" (UTC day) or "": no bound
    date_to: str = ""

    # -- engine settings ----------------------------------------------------------------
    def retrieval(self) -> RetrievalSettings:
        date_from, date_to = day_bounds(self.date_from, self.date_to)
        return RetrievalSettings(candidates=self.candidates, hybrid=self.hybrid,
                                 chat_ids=(self.chat_id,) if self.chat_id else (), date_from=date_from, date_to=date_to)

    def threshold_settings(self) -> ThresholdSettings:
        return ThresholdSettings(threshold=self.threshold, gap=self.gap, top_k=self.top_k)

    def flash_settings(self):
        from engine.rerank.flash import FlashSettings  # only Flash runs need the LLM stack

        return FlashSettings(
            model=self.model, max_tool_calls=self.max_tool_calls, total_timeout=float(self.timeout),
            reasoning_effort=None if self.reasoning_effort == "none" else self.reasoning_effort,
            max_topics=self.max_topics, max_people=self.max_people, max_artifacts=self.max_artifacts,
            contextualize_query=self.rewrite_query)

    @staticmethod
    def default_timeout(preset: str) -> int:
        """The Flash time budget a preset starts with: a cloud model's, or a CPU model's minutes."""
        from engine.rerank.flash.settings import CLOUD, LOCAL

        return int((LOCAL if PRESETS[preset].local else CLOUD).total_timeout)

    def endpoint(self, api_key: str | None) -> Endpoint:
        return Endpoint.from_preset(self.preset, api_key=api_key, model=self.model.strip(),
                                    base_url=self.base_url.strip())

    def embedding_config(self) -> EmbeddingConfig:
        return EmbeddingConfig(provider=self.embedder)

    def needs_key(self) -> bool:
        return PRESETS[self.preset].needs_key

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


def _coerce(name: str, raw: object, default: object) -> object:
    try:
        if isinstance(default, bool):  # INI files give "true"/"false" back as strings
            return raw if isinstance(raw, bool) else str(raw).lower() in ("true", "1", "yes")
        if isinstance(default, int | float):
            value = type(default)(float(raw))
            low, high, _ = RANGES.get(name, (value, value, 0))
            return min(max(value, type(default)(low)), type(default)(high))
        value = str(raw)
    except (TypeError, ValueError):
        return default
    allowed = {"mode": MODES, "reasoning_effort": EFFORTS, "preset": PRESET_ORDER, "embedder": EMBEDDERS}.get(name)
    return value if allowed is None or value in allowed else default
