"""Shared fixtures: every test runs against a temporary data dir and in UTC."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

os.environ["TZ"] = "UTC"  # naive export timestamps are read as local time: pin it
time.tzset()
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SHARED = Path(__file__).resolve().parents[2] / "shared"
EXPORTS = SHARED / "data" / "exports"


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("FLASHBACK_DATA_DIR", str(tmp_path / "data"))
    yield


@pytest.fixture
def exports_dir() -> Path:
    if not EXPORTS.exists():
        pytest.skip("shared/data/exports is not beside the checkout")
    return EXPORTS


@pytest.fixture(scope="module")
def built_demo(tmp_path_factory) -> Path:
    """The demo imported and built by the real CLI, once per test module; copy it with
    `tests.cli_run.copy_data` before changing it."""
    from tests.cli_run import DEMO, flashback

    folder = tmp_path_factory.mktemp("built") / "data"
    assert flashback("import", str(DEMO), data_dir=folder).returncode == 0
    assert flashback("build", data_dir=folder).returncode == 0
    return folder
