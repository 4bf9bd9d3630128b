"""CLI options derived from the engine's one settings schema (engine.api.SETTINGS): the flag,
type, default, range and help of `--threshold`, `--max-tool-calls`, … are written once, in the
engine, and the window's controls come from the same definitions."""

from __future__ import annotations

import argparse
import os
from typing import Any

from engine.api import SETTINGS, Message, Setting, SettingError, normalise_language, render


def cli_language() -> str:
    """The language engine messages are printed in: $FLASHBACK_LANG ("ru"), else English (the
    CLI's own words are English; a Russian sentence inside them would read worse than either)."""
    return normalise_language(os.environ.get("FLASHBACK_LANG") or "en")


def say(message: Message | str) -> str:
    return render(message, cli_language())


def _argparse_type(setting: Setting):
    def parse(text: str) -> Any:
        try:
            return setting.check(text)
        except SettingError as exc:
            raise argparse.ArgumentTypeError(exc.render(cli_language())) from None

    parse.__name__ = setting.kind.__name__  # argparse names the type in its own errors
    return parse


def _help(setting: Setting, default: Any) -> str:
    if setting.kind is bool:
        return f"{setting.help} (default {'on' if default else 'off'})"
    span = "" if setting.choices else (
        f"; {setting.minimum:g} to {setting.maximum:g}" if setting.minimum is not None else "")
    shown = "the endpoint's" if default is None else default
    return f"{setting.help} (default {shown}{span})"


def add_setting(parser: argparse.ArgumentParser | argparse._ArgumentGroup, key: str, *,
                default: Any = ..., dest: str | None = None, metavar: str | None = None) -> None:
    """Add the option of SETTINGS[key]; `default` overrides the schema's (None: "the endpoint's
    own", as Flash's time budget differs for a local server)."""
    setting = SETTINGS[key]
    value = setting.default if default is ... else default
    names: dict[str, Any] = {"dest": dest} if dest else {}
    if setting.kind is bool:
        parser.add_argument(setting.cli, action=argparse.BooleanOptionalAction, default=value,
                            help=_help(setting, value), **names)
    elif setting.choices:
        parser.add_argument(setting.cli, default=value, choices=setting.choices, help=_help(setting, value), **names)
    else:
        parser.add_argument(setting.cli, type=_argparse_type(setting), default=value, metavar=metavar,
                            help=_help(setting, value), **names)
