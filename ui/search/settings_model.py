"""What the search view's settings panel edits: the engine's one record of saved settings
(`engine.api.UserSettings`) plus the stage-1 filters the window never saves.

The engine defines every setting (`engine.api.SETTINGS`: default, range, decimals, unit,
choices) and reads and writes the one settings file (`read_settings`, `write_settings`), so
the window, the CLI and the MCP server see the same values; here is only what the window adds:
its filters, the model names it suggests, and where its QSettings keeps that file. The
engine's own settings (RetrievalSettings, FlashSettings, Endpoint, …) are built from it only
when a search or a rerank run starts, so the engine never sees Qt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
    UserSettings,
    check_date_range,
    day_bounds,
    read_settings,
    write_settings,
)
from ui.settings_file import settings_file

EFFORTS = SETTINGS["reasoning_effort"].choices
PRESET_ORDER = SETTINGS["preset"].choices
# Rerank servers (issue 25): the ones on this computer first (no key, nothing leaves it), then the APIs.
RERANK_PRESET_ORDER = SETTINGS["rerank_preset"].choices

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


@dataclass(frozen=True)
class SearchSettings(UserSettings):
    """The saved settings (every field of `UserSettings`, same names) and the stage-1 filters."""

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
    """What was saved, read by the engine (a missing or malformed value is its default)."""
    return read_settings(settings_file(store), SearchSettings)


def save(store: QSettings, values: dict[str, Any]) -> None:
    """Save the changed fields `values` (name → value) through the engine; the filters are never saved."""
    saved = {name: value for name, value in values.items() if name not in UNSAVED}
    if saved:
        write_settings(settings_file(store), saved)
