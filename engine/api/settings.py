"""One definition of every setting a person can change (section, key, type, default, range or
choices, unit, help), from which every face derives what it shows and accepts: the CLI's
argparse options (`app/cli_options.py`), the window's controls (`ui/search/settings_panel.py`),
and the one record of saved values the engine reads and writes for all of them
(`engine/api/saved_settings.py`, in the data folder's settings file).

Help is a message code (`settings.help.<key>`, engine/messages/en.py and ru.py), so the CLI's
--help and the window's tooltips say the same in the person's language."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.errors import EngineError
from engine.llm.presets import PRESETS
from engine.messages import Message
from engine.rerank.cross_encoder.presets import RERANK_PRESETS
from engine.rerank.cross_encoder.settings import CrossEncoderSettings
from engine.rerank.flash.settings import CLOUD, FlashSettings
from engine.rerank.threshold import ThresholdSettings
from engine.retrieval.settings import RetrievalSettings


class SettingError(EngineError):
    """A value outside what a setting allows; the message names the setting and its range."""


@dataclass(frozen=True)
class Setting:
    key: str  # the key in the settings file (under `section`) and the record's attribute
    kind: type  # int | float | bool | str
    default: Any
    minimum: float | None = None
    maximum: float | None = None
    decimals: int = 0  # the spin box's decimals (0 for whole numbers)
    unit: str = ""  # " s", " tokens": shown after the number
    choices: tuple[str, ...] = ()  # a closed set, in the order the window offers it
    cli: str = ""  # the CLI flag, "" where the CLI has none
    window: bool = True  # saved in the settings file (the window edits it); False: a CLI-only option
    section: str = "search"  # the settings file's [section]
    help_params: dict[str, int | float | str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.cli or self.key

    @property
    def help(self) -> Message:
        """One line for --help and the control's tooltip, in the reader's language."""
        return Message(f"settings.help.{self.key}", self.help_params)

    def check(self, value: Any) -> Any:
        """`value` as this setting's type, or SettingError naming the range."""
        if self.choices:
            if str(value) not in self.choices:
                raise SettingError(Message("settings.not_a_choice", {
                    "name": self.label, "choices": ", ".join(self.choices), "value": str(value)}))
            return str(value)
        if self.kind is bool:
            return bool(value)
        if self.kind is str:
            return str(value)
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise SettingError(Message("settings.not_a_number", {"name": self.label, "value": str(value)})) from None
        whole = self.kind is int
        if not math.isfinite(number) or (whole and not number.is_integer()) \
                or (self.minimum is not None and number < self.minimum) \
                or (self.maximum is not None and number > self.maximum):
            raise SettingError(Message("settings.out_of_range", {
                "name": self.label, "minimum": _plain(self.minimum), "maximum": _plain(self.maximum),
                "unit": self.unit, "value": str(value)}))
        return int(number) if whole else number


def _plain(number: float | None) -> str:
    if number is None:
        return "∞"
    return f"{number:g}" if not float(number).is_integer() else f"{int(number):,}"


EFFORTS = ("none", "minimal", "low", "medium", "high")  # "none": no reasoning field is sent
MODES = ("vector", "threshold", "cross-encoder", "flash")  # the window's reranker
WindowEmbedder = Literal["builtin", "local"]  # the window's; API embedders are set up from the command line
EMBEDDERS: tuple[WindowEmbedder, ...] = ("builtin", "local")
LANGUAGE_CHOICES = ("system", "en", "ru")  # "system": the OS locale's when it is one of ours
_FLASH = FlashSettings()
_RETRIEVAL = RetrievalSettings()
_THRESHOLD = ThresholdSettings()
_CROSS_ENCODER = CrossEncoderSettings()

SETTINGS: dict[str, Setting] = {s.key: s for s in (
    # [search]: what a search runs with
    Setting("mode", str, "threshold", choices=MODES),
    Setting("candidates", int, _RETRIEVAL.candidates, 1, 200, cli="--candidates"),
    Setting("safety_threshold", float, _RETRIEVAL.safety_threshold, 0.0, 1.0, 2, cli="--safety", window=False),
    Setting("threshold", float, _THRESHOLD.threshold, 0.0, 1.0, 2, cli="--threshold"),
    Setting("gap", float, _THRESHOLD.gap, 0.0, 1.0, 2, cli="--gap"),
    Setting("top_k", int, _THRESHOLD.top_k, 1, 50, cli="--top-k"),
    Setting("hybrid", bool, _RETRIEVAL.hybrid, cli="--hybrid"),
    # Flash: the LLM endpoint (empty URL: the preset's) and its limits
    Setting("preset", str, "openrouter", choices=tuple(PRESETS)),
    Setting("base_url", str, ""),
    Setting("model", str, PRESETS["openrouter"].default_model),
    # whole seconds (the spin box shows none); the CLI's default is the endpoint's own
    Setting("timeout", int, int(CLOUD.total_timeout), 1, 600, 0, " s", cli="--timeout"),
    Setting("max_tool_calls", int, _FLASH.max_tool_calls, 1, 10, cli="--max-tool-calls"),
    Setting("max_topics", int, _FLASH.max_topics, 1, 25, cli="--max-topics"),
    Setting("max_people", int, _FLASH.max_people, 0, 20, cli="--max-people"),
    Setting("max_artifacts", int, _FLASH.max_artifacts, 0, 20, cli="--max-artifacts"),
    Setting("reasoning_effort", str, _FLASH.reasoning_effort or "none", choices=EFFORTS, cli="--reasoning"),
    # seed 000 step 1: with recent messages, Flash first restates the query (nothing sent without them)
    Setting("rewrite_query", bool, _FLASH.contextualize_query),
    Setting("budget_tokens", int, 8000, 100, 200_000, unit=" tokens", cli="--budget"),
    # issue 23: `flashback tune --budget` (characters of kept topics recall@budget counts), the
    # export's range so every command's --budget takes the same numbers; the default is
    # engine.evaluation.sweep.DEFAULT_BUDGET (not imported: it would load the store for --help)
    Setting("evidence_budget", int, 8000, 100, 200_000, unit=" characters", cli="--budget", window=False),
    Setting("turn1_share", float, _FLASH.turn1_share, 0.05, 1.0, 2, cli="--turn1-share", window=False),
    # engine/rerank/cross_encoder (seed 002 §7): Settings → Cross-encoder in the window (issue 25);
    # empty URL and model: the preset's
    Setting("rerank_preset", str, "llamacpp", choices=tuple(RERANK_PRESETS)),
    Setting("rerank_url", str, ""),
    Setting("rerank_model", str, ""),
    Setting("ce_threshold", float, _CROSS_ENCODER.threshold, 0.0, 1.0, 2, cli="--ce-threshold"),
    Setting("ce_top_k", int, _CROSS_ENCODER.top_k, 1, 50, cli="--ce-top-k"),
    Setting("ce_top_n", int, _CROSS_ENCODER.top_n, 1, 200, cli="--ce-top-n"),
    Setting("ce_passage_tokens", int, _CROSS_ENCODER.passage_tokens, 16, 4096, unit=" tokens",
            cli="--ce-passage-tokens"),
    Setting("ce_batch", int, _CROSS_ENCODER.batch, 1, 128, cli="--ce-batch"),
    Setting("ce_skip_small", bool, _CROSS_ENCODER.skip_small, cli="--ce-skip-small",
            help_params={"limit": _CROSS_ENCODER.small_limit}),
    Setting("ce_skip_flat", bool, _CROSS_ENCODER.skip_flat, cli="--ce-skip-flat"),
    Setting("ce_timeout", int, int(_CROSS_ENCODER.timeout), 1, 600, 0, " s", cli="--rerank-timeout"),
    # Flash reads only the cross-encoder's best `ce_chain_keep` topics (fewer tokens)
    Setting("chain_cross_encoder", bool, False),
    Setting("ce_chain_keep", int, _CROSS_ENCODER.chain_keep, 1, 50, cli="--chain-keep"),
    # builds: seed 004's splitter and merger agents on the Flash endpoint (API calls, so off until asked)
    Setting("topics_llm", bool, False),
    # which model turns topics and questions into vectors; a change re-embeds
    Setting("embedder", str, "builtin", choices=EMBEDDERS),
    # [ui]: the window's language, taking effect at its next start
    Setting("language", str, "system", choices=LANGUAGE_CHOICES, section="ui"),
)}

SAVED: tuple[Setting, ...] = tuple(spec for spec in SETTINGS.values() if spec.window)


def setting(key: str) -> Setting:
    return SETTINGS[key]
