"""One settings schema (issue 22): the window and the CLI accept the same range for every numeric
setting they share (the CLI took 0 or more tool calls, the window 1-5), both derived from
engine.api.SETTINGS; a value read back from the settings file outside that range is the default."""

from __future__ import annotations

import argparse

import pytest
from PySide6.QtCore import QSettings

from app.cli import build_parser
from engine.api import SETTINGS
from tests.ui.conftest import FakeKeys
from ui.search import SearchPanel
from ui.search.settings_model import RANGES, SearchSettings, load


def schema_options() -> dict[str, list[argparse.Action]]:
    """The options `flashback` commands derive from the schema (app.cli_options.add_setting), by flag."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: dict[str, list[argparse.Action]] = {}
    for command in commands.choices.values():
        for flag, action in command._option_string_actions.items():
            if getattr(action.type, "__qualname__", "").startswith("_argparse_type"):
                found.setdefault(flag, []).append(action)
    return found


CLI = schema_options()
# Numeric settings with a control in the window and an option on the command line.
SHARED = sorted(key for key, spec in SETTINGS.items()
                if spec.window and spec.cli in CLI and spec.minimum is not None)


def cli_accepts(flag: str, value: float) -> bool:
    """Whether every command with `flag` takes `value`; AssertionError when they disagree."""
    verdicts = set()
    for action in CLI[flag]:
        try:
            action.type(f"{value:g}")
        except argparse.ArgumentTypeError:
            verdicts.add(False)
        else:
            verdicts.add(True)
    assert len(verdicts) == 1, f"the commands taking {flag} disagree on {value:g}"
    return verdicts.pop()


def window_range(panel: SearchPanel, key: str) -> tuple[float, float]:
    spin = panel.export_bar.budget if key == "budget_tokens" else panel.settings_panel.slider(key).spin
    return spin.minimum(), spin.maximum()


@pytest.fixture
def panel(qtbot, demo_service) -> SearchPanel:
    panel = SearchPanel(demo_service, FakeKeys())
    qtbot.addWidget(panel)
    return panel


def test_every_shared_setting_has_one_range_in_the_window_and_the_cli(panel):
    assert {"candidates", "threshold", "gap", "top_k", "timeout", "max_tool_calls", "max_topics",
            "budget_tokens"} <= set(SHARED)
    for key in SHARED:
        spec = SETTINGS[key]
        step = 10 ** -spec.decimals
        assert window_range(panel, key) == pytest.approx((spec.minimum, spec.maximum)), key
        if key != "budget_tokens":  # the export bar's spin box has no slider
            slider = panel.settings_panel.slider(key).slider
            scale = 10 ** spec.decimals
            assert (slider.minimum(), slider.maximum()) == (round(spec.minimum * scale), round(spec.maximum * scale))
        assert cli_accepts(spec.cli, spec.minimum) and cli_accepts(spec.cli, spec.maximum), key
        assert not cli_accepts(spec.cli, spec.minimum - step) and not cli_accepts(spec.cli, spec.maximum + step), key
        assert getattr(SearchSettings(), key) == spec.default, key


def test_values_read_back_outside_the_schema_range_are_the_defaults(qtbot):
    store = QSettings()
    store.setValue("search/max_tool_calls", 0)  # the CLI's old floor: the schema's is 1
    store.setValue("search/candidates", 5000)
    store.setValue("search/gap", "not a number")
    settings = load(store)
    assert settings.max_tool_calls == SETTINGS["max_tool_calls"].default
    assert settings.candidates == SETTINGS["candidates"].default
    assert settings.gap == SETTINGS["gap"].default
    assert set(RANGES) >= set(SHARED)
