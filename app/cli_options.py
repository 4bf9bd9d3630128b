"""CLI options derived from the engine's one settings schema (engine.api.SETTINGS): the flag,
type, default, range and help (a message code, in $FLASHBACK_LANG's language) of `--threshold`,
`--max-tool-calls`, … are written once, in the engine, and the window's controls come from the
same definitions; an option marked `saved` defaults to the engine's saved record
(app/saved_settings.py), as the window and the MCP server read it."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from engine.api import SETTINGS, Message, Setting, SettingError, normalise_language, render


def cli_language() -> str:
    """The language every line is printed in: $FLASHBACK_LANG ("ru"), else English (the CLI's own
    words come from the same catalogue as the engine's, issue 31)."""
    return normalise_language(os.environ.get("FLASHBACK_LANG") or "en")


def say(message: Message | str) -> str:
    """`message` in the CLI's language, with the CLI's hint (its real option) of where to set what
    it says is missing (engine.messages SETTING_OF)."""
    return render(message, cli_language(), face="cli")


def _argparse_type(setting: Setting):
    def parse(text: str) -> Any:
        try:
            return setting.check(text)
        except SettingError as exc:
            raise argparse.ArgumentTypeError(exc.render(cli_language())) from None

    parse.__name__ = setting.kind.__name__  # argparse names the type in its own errors
    return parse


class Saved:
    """An option's default until `fill_saved` runs: the saved value (the schema's default where unsaved)."""

    def __init__(self, key: str, value: Any) -> None:
        self.key, self.value = key, value

    def __repr__(self) -> str:
        return f"{self.value} (or as saved)"


def _help(setting: Setting, default: Any, saved: bool = False) -> str:
    where = "as the window saved it (or `tune --save`), else " if saved else ""
    words = say(setting.help).replace("%", "%%")  # argparse formats help with %
    if setting.kind is bool:
        return f"{words} (default {where}{'on' if default else 'off'})"
    span = "" if setting.choices else (
        f"; {setting.minimum:g} to {setting.maximum:g}" if setting.minimum is not None else "")
    shown = "the endpoint's" if default is None else default
    return f"{words} (default {where}{shown}{span})"


def add_setting(parser: argparse.ArgumentParser | argparse._ArgumentGroup, key: str, *,
                default: Any = ..., dest: str | None = None, metavar: str | None = None,
                saved: bool = False) -> None:
    """Add the option of SETTINGS[key]; `default` overrides the schema's (None: "the endpoint's
    own", as Flash's time budget differs for a local server). `saved`: without the flag, the
    value the window saved is used (`fill_saved`; app/saved_settings.py)."""
    setting = SETTINGS[key]
    value = setting.default if default is ... else default
    help_text = _help(setting, value, saved)
    if saved:
        value = Saved(key, value)
    names: dict[str, Any] = {"dest": dest} if dest else {}
    if setting.kind is bool:
        parser.add_argument(setting.cli, action=argparse.BooleanOptionalAction, default=value,
                            help=help_text, **names)
    elif setting.choices:
        parser.add_argument(setting.cli, default=value, choices=setting.choices, help=help_text, **names)
    else:
        parser.add_argument(setting.cli, type=_argparse_type(setting), default=value, metavar=metavar,
                            help=help_text, **names)


def fill_saved(args: argparse.Namespace, read_saved: Callable[[], dict[str, Any]]) -> None:
    """Each option left at a `Saved` default takes the saved value (`read_saved()`: key → value,
    read only when some option needs it), else the schema's."""
    waiting = {name: value for name, value in vars(args).items() if isinstance(value, Saved)}
    saved = read_saved() if waiting else {}
    for name, value in waiting.items():
        setattr(args, name, saved.get(value.key, value.value))
