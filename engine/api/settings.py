"""One definition per setting a person can change (name, type, default, range, unit, help),
from which every face derives its controls: the CLI's argparse options (`app/cli_options.py`),
the window's sliders and spin boxes and its QSettings keys (`ui/search/settings_model.py`),
and the validation both apply (`Setting.check`). A test checks the CLI and the window accept
the same range for every setting they share.

Below the schema, `SavedSearchChoices`: what both faces that save these settings (the window's
`SearchSettings`, the MCP server's `SavedSettings`) build from them, written once."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.errors import EngineError
from engine.llm.presets import PRESETS, Endpoint
from engine.messages import Message
from engine.rerank.cross_encoder.presets import RERANK_PRESETS, RerankEndpoint
from engine.rerank.cross_encoder.settings import CrossEncoderSettings
from engine.rerank.flash.settings import CLOUD, FlashSettings
from engine.rerank.threshold import ThresholdSettings
from engine.retrieval.settings import RetrievalSettings


class SettingError(EngineError):
    """A value outside what a setting allows; the message names the setting and its range."""


@dataclass(frozen=True)
class Setting:
    key: str  # the window's QSettings key (under search/) and SearchSettings attribute
    kind: type  # int | float | bool | str
    default: Any
    minimum: float | None = None
    maximum: float | None = None
    decimals: int = 0  # the spin box's decimals (0 for whole numbers)
    unit: str = ""  # " s", " tokens": shown after the number
    choices: tuple[str, ...] = ()
    cli: str = ""  # the CLI flag, "" where the CLI has none
    window: bool = True  # the window's settings panel has a control for it
    help: str = ""  # one line for --help and the control's tooltip (English; the window translates its own)

    @property
    def label(self) -> str:
        return self.cli or self.key

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

    def clamp(self, value: Any) -> Any:
        """For values read back from a settings file: the nearest allowed value, never an error."""
        try:
            return self.check(value)
        except SettingError:
            if self.kind in (int, float):
                try:
                    number = float(value)
                except (TypeError, ValueError):
                    return self.default
                if math.isfinite(number):
                    low = self.minimum if self.minimum is not None else number
                    high = self.maximum if self.maximum is not None else number
                    return self.kind(min(max(number, low), high))
            return self.default


def _plain(number: float | None) -> str:
    if number is None:
        return "∞"
    return f"{number:g}" if not float(number).is_integer() else f"{int(number):,}"


EFFORTS = ("none", "minimal", "low", "medium", "high")  # "none": no reasoning field is sent
_FLASH = FlashSettings()
_RETRIEVAL = RetrievalSettings()
_THRESHOLD = ThresholdSettings()
_CROSS_ENCODER = CrossEncoderSettings()

SETTINGS: dict[str, Setting] = {s.key: s for s in (
    Setting("candidates", int, _RETRIEVAL.candidates, 1, 200, cli="--candidates", help="stage-1 candidates"),
    Setting("safety_threshold", float, _RETRIEVAL.safety_threshold, 0.0, 1.0, 2, cli="--safety", window=False,
            help="stage-1 minimum calibrated score, 0 to 1"),
    Setting("threshold", float, _THRESHOLD.threshold, 0.0, 1.0, 2, cli="--threshold",
            help="similarity threshold, 0 to 1"),
    Setting("gap", float, _THRESHOLD.gap, 0.0, 1.0, 2, cli="--gap", help="score-gap cut, 0 to 1"),
    Setting("top_k", int, _THRESHOLD.top_k, 1, 50, cli="--top-k", help="final top-K"),
    Setting("hybrid", bool, _RETRIEVAL.hybrid, cli="--hybrid", help="fuse BM25 with the vector ranking"),
    Setting("timeout", float, CLOUD.total_timeout, 1, 600, 0, " s", cli="--timeout",
            help="total seconds for the whole Flash rerank (default 60; 180 for a local server)"),
    Setting("max_tool_calls", int, _FLASH.max_tool_calls, 1, 10, cli="--max-tool-calls",
            help="get_topics_content calls Flash may make"),
    Setting("max_topics", int, _FLASH.max_topics, 1, 25, cli="--max-topics", help="topics Flash may keep"),
    Setting("max_people", int, _FLASH.max_people, 0, 20, cli="--max-people", help="people Flash may keep"),
    Setting("max_artifacts", int, _FLASH.max_artifacts, 0, 20, cli="--max-artifacts", help="files Flash may keep"),
    Setting("reasoning_effort", str, _FLASH.reasoning_effort or "none", choices=EFFORTS,
            cli="--reasoning", help="reasoning effort of the Flash model"),
    Setting("budget_tokens", int, 8000, 100, 200_000, unit=" tokens", cli="--budget",
            help="context budget of an export, in tokens"),
    # issue 23: `flashback tune --budget` (characters of kept topics recall@budget counts), the
    # export's range so every command's --budget takes the same numbers; the default is
    # engine.evaluation.sweep.DEFAULT_BUDGET (not imported: it would load the store for --help)
    Setting("evidence_budget", int, 8000, 100, 200_000, unit=" characters", cli="--budget", window=False,
            help="characters of kept topics, taken whole, that --objective recall@budget counts"),
    Setting("turn1_share", float, _FLASH.turn1_share, 0.05, 1.0, 2, cli="--turn1-share", window=False,
            help="share of --timeout turn 1 (reading every candidate) may take"),
    # engine/rerank/cross_encoder (seed 002 §7): Settings → Cross-encoder in the window (issue 25)
    Setting("ce_threshold", float, _CROSS_ENCODER.threshold, 0.0, 1.0, 2, cli="--ce-threshold",
            help="cross-encoder score to keep a topic, 0 to 1"),
    Setting("ce_top_k", int, _CROSS_ENCODER.top_k, 1, 50, cli="--ce-top-k",
            help="topics the cross-encoder keeps"),
    Setting("ce_top_n", int, _CROSS_ENCODER.top_n, 1, 200, cli="--ce-top-n",
            help="stage-1 topics sent to the cross-encoder"),
    Setting("ce_passage_tokens", int, _CROSS_ENCODER.passage_tokens, 16, 4096, unit=" tokens",
            cli="--ce-passage-tokens", help="each topic's passage cut to about this many tokens"),
    Setting("ce_batch", int, _CROSS_ENCODER.batch, 1, 128, cli="--ce-batch",
            help="passages per rerank request"),
    Setting("ce_skip_small", bool, _CROSS_ENCODER.skip_small, cli="--ce-skip-small",
            help=f"skip the cross-encoder when stage 1 finds ≤ {_CROSS_ENCODER.small_limit} topics (with "
                 "--ce-skip-flat: only if their scores are also clearly apart)"),
    Setting("ce_skip_flat", bool, _CROSS_ENCODER.skip_flat, cli="--ce-skip-flat",
            help="skip the cross-encoder when stage 1's top scores are clearly apart; run it when they are flat"),
    Setting("ce_timeout", float, _CROSS_ENCODER.timeout, 1, 600, 0, " s", cli="--rerank-timeout",
            help="total seconds for the cross-encoder's requests"),
    Setting("ce_chain_keep", int, _CROSS_ENCODER.chain_keep, 1, 50, cli="--chain-keep",
            help="topics Flash reads after the cross-encoder (--chain-cross-encoder)"),
)}


def setting(key: str) -> Setting:
    return SETTINGS[key]


class SavedSearchChoices:
    """What the window's `SearchSettings` and the MCP server's `SavedSettings` (frozen dataclasses of
    the same saved fields, same names) build from those fields, written once for both: the
    threshold filter's, Flash's and the cross-encoder's settings, the LLM and rerank endpoints,
    and what the chosen presets ask of the key store. The annotations are what it reads."""

    threshold: float
    gap: float
    top_k: int
    preset: str
    base_url: str
    model: str
    reasoning_effort: str
    timeout: int
    max_tool_calls: int
    max_topics: int
    max_people: int
    max_artifacts: int
    rewrite_query: bool
    rerank_preset: str
    rerank_url: str
    rerank_model: str
    ce_threshold: float
    ce_top_k: int
    ce_top_n: int
    ce_passage_tokens: int
    ce_batch: int
    ce_skip_small: bool
    ce_skip_flat: bool
    ce_timeout: int  # whole seconds, like Flash's
    ce_chain_keep: int

    def threshold_settings(self) -> ThresholdSettings:
        return ThresholdSettings(threshold=self.threshold, gap=self.gap, top_k=self.top_k)

    def flash_settings(self) -> FlashSettings:
        return FlashSettings(
            model=self.model, max_tool_calls=self.max_tool_calls, total_timeout=float(self.timeout),
            reasoning_effort=None if self.reasoning_effort == "none" else self.reasoning_effort,
            max_topics=self.max_topics, max_people=self.max_people, max_artifacts=self.max_artifacts,
            contextualize_query=self.rewrite_query)

    def endpoint(self, api_key: str | None) -> Endpoint:
        return Endpoint.from_preset(self.preset, api_key=api_key, model=self.model.strip(),
                                    base_url=self.base_url.strip())

    def needs_key(self) -> bool:
        return PRESETS[self.preset].needs_key

    def cross_encoder_settings(self) -> CrossEncoderSettings:
        return CrossEncoderSettings(
            threshold=self.ce_threshold, top_k=self.ce_top_k, top_n=self.ce_top_n,
            passage_tokens=self.ce_passage_tokens, batch=self.ce_batch, skip_small=self.ce_skip_small,
            skip_flat=self.ce_skip_flat, timeout=float(self.ce_timeout), chain_keep=self.ce_chain_keep)

    def rerank_endpoint(self, api_key: str | None) -> RerankEndpoint:
        """The saved rerank server (edge spaces of its URL and model dropped; the key as given)."""
        return RerankEndpoint(self.rerank_preset, self.rerank_url.strip(), api_key, self.rerank_model.strip())

    def rerank_key_name(self) -> str:
        """The key store's entry the rerank server's key is read from (jina, cohere, voyage, rerank)."""
        return RERANK_PRESETS[self.rerank_preset].key_name

    def rerank_needs_key(self) -> bool:
        return RERANK_PRESETS[self.rerank_preset].needs_key
