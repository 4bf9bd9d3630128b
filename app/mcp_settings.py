"""The window's saved search settings, read for the MCP server without Qt.

The window keeps its settings in QSettings, group "search" (ui/search/settings_model.py). Where
the file lives is app/gui.py's choice: an INI file in the data folder when --data-dir or
$FLASHBACK_DATA_DIR names one (`<data>/Flashback/Flashback.ini`), else the platform's place,
which on Linux and the BSDs is an INI file too (`$XDG_CONFIG_HOME/Flashback/Flashback.conf`).
Both are read here with a small scanner of the one group (loading Qt into an assistant's
server costs ~250 MB and a second or two per start). On macOS (a plist) and Windows (the
registry) the server uses the schema's defaults and says so in docs/mcp.md.

Values are brought into the engine's ranges the way the window does it (`Setting.clamp`): a
hand-edited or older file never stops a search. The file is read again when it changes, so
what the person tunes in the window applies to the next call.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from engine.api import (
    PRESETS,
    RERANK_PRESETS,
    SETTINGS,
    RetrievalSettings,
    SavedSearchChoices,
)

GROUP = "search"
log = logging.getLogger(__name__)


def _default(key: str):
    return SETTINGS[key].default


@dataclass(frozen=True)
class SavedSettings(SavedSearchChoices):
    """The window's `SearchSettings` fields an assistant's search uses (same names, same defaults)."""

    candidates: int = _default("candidates")
    hybrid: bool = _default("hybrid")
    threshold: float = _default("threshold")
    gap: float = _default("gap")
    top_k: int = _default("top_k")
    preset: str = "openrouter"
    base_url: str = ""
    model: str = PRESETS["openrouter"].default_model
    reasoning_effort: str = _default("reasoning_effort")
    timeout: int = int(_default("timeout"))
    max_tool_calls: int = _default("max_tool_calls")
    max_topics: int = _default("max_topics")
    max_people: int = _default("max_people")
    max_artifacts: int = _default("max_artifacts")
    rewrite_query: bool = True
    budget_tokens: int = _default("budget_tokens")
    # Settings → Cross-encoder (issue 25): the rerank server and its rules, as the window saves them.
    rerank_preset: str = "llamacpp"
    rerank_url: str = ""
    rerank_model: str = ""
    ce_threshold: float = _default("ce_threshold")
    ce_top_k: int = _default("ce_top_k")
    ce_top_n: int = _default("ce_top_n")
    ce_passage_tokens: int = _default("ce_passage_tokens")
    ce_batch: int = _default("ce_batch")
    ce_skip_small: bool = _default("ce_skip_small")
    ce_skip_flat: bool = _default("ce_skip_flat")
    ce_timeout: int = int(_default("ce_timeout"))
    ce_chain_keep: int = _default("ce_chain_keep")  # read like the rest; an assistant never chains Flash after it
    source: str = ""  # the file they were read from; "" for the defaults

    def retrieval(self, chat_ids: tuple[int, ...] = (), date_from: float | None = None,
                  date_to: float | None = None) -> RetrievalSettings:
        return RetrievalSettings(candidates=self.candidates, hybrid=self.hybrid, chat_ids=chat_ids,
                                 date_from=date_from, date_to=date_to)

def settings_file(data_dir: Path, in_data_dir: bool, environ=os.environ, platform: str = sys.platform) -> Path | None:
    """Where the window keeps its settings (app/gui.py's choice), or None where they are not a file."""
    if in_data_dir:
        return Path(data_dir) / "Flashback" / "Flashback.ini"
    if platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        config = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        return Path(config) / "Flashback" / "Flashback.conf"
    return None


def unescape(raw: str) -> str | None:
    """A QSettings INI value as the string Qt wrote; None for what no setting here holds (a list,
    a @Variant or @ByteArray). Qt quotes a value with commas or edge spaces and escapes
    quotes, backslashes and control characters."""
    raw = raw.strip()
    if raw.startswith("@"):
        return raw[len("@String("):-1] if raw.startswith("@String(") and raw.endswith(")") else None
    out: list[str] = []
    quoted, index = False, 0
    simple = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
    while index < len(raw):
        char = raw[index]
        index += 1
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            return None  # a string list
        elif char == "\\" and index < len(raw):
            code = raw[index]
            index += 1
            if code == "x":  # \xHHHH: a UTF-16 code unit
                digits = ""
                while index < len(raw) and len(digits) < 4 and raw[index] in "0123456789abcdefABCDEF":
                    digits, index = digits + raw[index], index + 1
                out.append(chr(int(digits, 16)) if digits else "x")
            else:
                out.append(simple.get(code, code))
        else:
            out.append(char)
    return "".join(out)


def read_group(path: Path) -> dict[str, str]:
    """The [search] group's keys and unescaped values; {} when the file is missing or unreadable."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    values: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == GROUP and "=" in line and not line.startswith((";", "#")):
            key, _, raw = line.partition("=")
            value = unescape(raw)
            if value is not None:
                values[key.strip()] = value
    return values


def _coerce(name: str, raw: str, default: Any) -> Any:
    """As the window's settings_model._coerce: the schema's range, else the default. Typed
    Any: the value has the type of the field `name` names (int, float, bool or str)."""
    if isinstance(default, bool):
        return raw.lower() in ("true", "1", "yes")
    spec = SETTINGS.get(name)
    if spec is not None and spec.window:
        try:
            return type(default)(spec.clamp(raw))
        except (TypeError, ValueError):
            return default
    if name == "preset":
        return raw if raw in PRESETS else default
    if name == "rerank_preset":
        return raw if raw in RERANK_PRESETS else default
    return raw


def load(path: Path | None) -> SavedSettings:
    defaults = SavedSettings()
    if path is None:
        return defaults
    group = read_group(path)
    values = {spec.name: _coerce(spec.name, group[spec.name], getattr(defaults, spec.name))
              for spec in fields(SavedSettings) if spec.name != "source" and spec.name in group}
    return replace(defaults, **values, source=str(path) if group else "")


class SettingsWatcher:
    """The saved settings, read again whenever the file's modification time or size changes."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._stamp: tuple[float, int] | None = None
        self._settings = SavedSettings()

    def current(self) -> SavedSettings:
        if self.path is None:
            return self._settings
        try:
            status = self.path.stat()
            stamp: tuple[float, int] | None = (status.st_mtime, status.st_size)
        except OSError:
            stamp = None
        if stamp != self._stamp:
            self._stamp = stamp
            self._settings = load(self.path) if stamp is not None else SavedSettings()
            log.info("search settings %s", f"read from {self.path}" if self._settings.source else "at their defaults")
        return self._settings
