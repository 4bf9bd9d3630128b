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
