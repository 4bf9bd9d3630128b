"""Shared fixtures: every test runs against a temporary data dir and in UTC."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from bench.llama_server import LocalServer

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


@pytest.fixture(scope="module")
def llama_server() -> Iterator[LocalServer]:
    """A real llama-server with SmolLM2 (bench/llama_server.py), one per test module; skipped with
    the reason where the cache `python -m bench.llama_server build` makes is absent."""
    from bench import llama_server as cache

    if not cache.server_binary().exists() or not cache.model_path().exists():
        pytest.skip(f"no llama-server + SmolLM2 in {cache.cache_dir()}: run `python -m bench.llama_server build`")
    with cache.llama_server() as server:
        yield server
