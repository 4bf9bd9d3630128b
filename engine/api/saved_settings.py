"""The saved settings: one typed record (`UserSettings`), one coercion (`coerce`), one reader
(`read_settings`) and one writer (`write_settings`) of one file, for every face.

The file is `<data folder>/Flashback/Flashback.ini` (`settings_path`): the INI file the window's
QSettings has always kept there when a data folder was named, with the same sections and keys
(`[search] gap=0.15`, `[ui] language=ru`), so a person's settings carry over. The window, the
CLI (`flashback search`'s defaults, `tune --save`) and the MCP server all read this record;
each field's default, range and choices are `SETTINGS`' (engine/api/settings.py).

A value the file holds that the schema does not allow (a hand-edited or older file, an
out-of-range number) is read as the default and named in the log: it never stops a search,
and never silently becomes some other value.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, overload

from engine.api.settings import SAVED, SETTINGS, Setting, SettingError, WindowEmbedder
from engine.api.settings_file import format_value, read_sections, unescape, write_keys
from engine.files import private_folder, write_private
from engine.llm.presets import PRESETS, Endpoint
from engine.messages import Message
from engine.rerank.cross_encoder.presets import RERANK_PRESETS, RerankEndpoint
from engine.rerank.cross_encoder.settings import CrossEncoderSettings
from engine.rerank.flash.settings import FlashSettings
from engine.rerank.threshold import ThresholdSettings

log = logging.getLogger(__name__)
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def _default(key: str) -> Any:
    return SETTINGS[key].default


@dataclass(frozen=True)
class UserSettings:
    """Every saved setting, named by its key; defaults from the schema (a test checks the fields
    are exactly the schema's saved settings, with its types)."""

    mode: str = _default("mode")
    candidates: int = _default("candidates")
    hybrid: bool = _default("hybrid")
    threshold: float = _default("threshold")
    gap: float = _default("gap")
    top_k: int = _default("top_k")
    preset: str = _default("preset")
    base_url: str = _default("base_url")
    model: str = _default("model")
    timeout: int = _default("timeout")
    max_tool_calls: int = _default("max_tool_calls")
    max_topics: int = _default("max_topics")
    max_people: int = _default("max_people")
    max_artifacts: int = _default("max_artifacts")
    reasoning_effort: str = _default("reasoning_effort")
    rewrite_query: bool = _default("rewrite_query")
    budget_tokens: int = _default("budget_tokens")
    rerank_preset: str = _default("rerank_preset")
    rerank_url: str = _default("rerank_url")
    rerank_model: str = _default("rerank_model")
    ce_threshold: float = _default("ce_threshold")
    ce_top_k: int = _default("ce_top_k")
    ce_top_n: int = _default("ce_top_n")
    ce_passage_tokens: int = _default("ce_passage_tokens")
    ce_batch: int = _default("ce_batch")
    ce_skip_small: bool = _default("ce_skip_small")
    ce_skip_flat: bool = _default("ce_skip_flat")
    ce_timeout: int = _default("ce_timeout")
    chain_cross_encoder: bool = _default("chain_cross_encoder")
    ce_chain_keep: int = _default("ce_chain_keep")
    topics_llm: bool = _default("topics_llm")
    embedder: WindowEmbedder = _default("embedder")
    language: str = _default("language")

    # -- what the engine runs with, built from the saved values ---------------------------
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


Record = TypeVar("Record", bound=UserSettings)


def settings_path(data_dir: Path) -> Path:
    """The one settings file: where QSettings puts an INI file for organisation and application
    "Flashback" under the data folder (app/gui.py points the window's QSettings there too)."""
    return Path(data_dir) / "Flashback" / "Flashback.ini"


def coerce(spec: Setting, raw: str) -> Any:
    """A value as the file holds it (Qt's text) as `spec`'s type within its range or choices;
    SettingError when it is not one."""
    if spec.kind is bool:
        word = raw.strip().lower()
        if word not in _TRUE + _FALSE:
            raise SettingError(Message("settings.not_a_choice", {
                "name": spec.label, "choices": "true, false", "value": raw}))
        return word in _TRUE
    return spec.check(raw)


@overload
def read_settings(path: Path) -> UserSettings: ...
@overload
def read_settings(path: Path, record: type[Record]) -> Record: ...
def read_settings(path: Path, record: type[UserSettings] = UserSettings) -> UserSettings:
    """The saved settings in `path` as `record` (UserSettings or a face's subclass of it): the
    defaults for anything missing; a value the schema does not allow is the default too, and
    a log line names the key and what it held."""
    sections = read_sections(path)
    values: dict[str, Any] = {}
    for spec in SAVED:
        raw = sections.get(spec.section, {}).get(spec.key)
        if raw is None:
            continue
        text = unescape(raw)
        try:
            if text is None:
                raise SettingError(Message("settings.not_a_choice", {
                    "name": spec.label, "choices": "text", "value": raw}))
            values[spec.key] = coerce(spec, text)
        except SettingError:
            log.warning("settings: %s/%s=%s in %s is not allowed; using the default %r",
                        spec.section, spec.key, raw.strip(), path, spec.default)
    return record(**values)


def write_settings(path: Path, values: dict[str, Any]) -> None:
    """Save `values` (key → value) in the file, each checked against the schema first
    (SettingError names the first that is not allowed, and nothing is written); only those
    keys' lines change."""
    checked = {key: SETTINGS[key].check(value) for key, value in values.items()}
    for section in dict.fromkeys(SETTINGS[key].section for key in checked):
        write_keys(path, section, {key: format_value(value) for key, value in checked.items()
                                   if SETTINGS[key].section == section})


def migrate_settings(path: Path, legacy: Path | None) -> bool:
    """Copy the settings file an older Flashback kept elsewhere (the platform's config folder)
    to `path`, once: only while `path` does not exist. True when it copied."""
    if legacy is None or path.exists() or not legacy.is_file():
        return False
    write_private(private_folder(path.parent) / path.name, legacy.read_bytes())
    log.info("settings: copied %s to %s (the settings now live in the data folder)", legacy, path)
    return True
