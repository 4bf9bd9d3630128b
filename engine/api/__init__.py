"""The one surface the faces import (the window, the CLI, the MCP server): `Flashback` and the
dataclasses its sub-services take and return, the settings schema, message codes and their
rendering, and what a write changed. `ui/` and `app/` import nothing else from the engine
(import-linter contracts in pyproject.toml; mypy checks this package and its callers)."""

from __future__ import annotations

from engine.api.context import StoreContext
from engine.api.facade import Flashback
from engine.api.memory import IndexLost, MemoryStatus
from engine.api.search import EmptyQueryError, SearchOutcome, clean_query, make_reranker
from engine.api.settings import SETTINGS, Setting, SettingError, setting
from engine.api.views import RunRecord
from engine.browse import ChatInfo, PersonInfo, TopicDetail, TopicInfo
from engine.changes import Changes, ChangeToken
from engine.embeddings.base import EmbeddingConfig
from engine.errors import Cancelled, CancelToken, EngineError, ImportFormatError, StoreError, is_cancel
from engine.importers.runner import ImportReport
from engine.llm.presets import PRESETS, Endpoint, get_preset
from engine.memory.build import BuildOptions, BuildReport
from engine.messages import LANGUAGES, Message, msg, normalise_language, render
from engine.rerank.base import Candidate, RerankResult, Selection
from engine.rerank.threshold import ThresholdSettings
from engine.retrieval.search import RetrievalSettings, Stage1Result, day_bounds
from engine.store.lock import LockHolder
from engine.store.stats import StoreStats
from engine.traces.runs import RunSummary

__all__ = [
    "LANGUAGES", "PRESETS", "SETTINGS", "BuildOptions", "BuildReport", "CancelToken", "Cancelled", "Candidate",
    "ChangeToken", "Changes", "ChatInfo", "EmbeddingConfig", "EmptyQueryError", "Endpoint", "EngineError",
    "Flashback", "ImportFormatError", "ImportReport", "IndexLost", "LockHolder", "MemoryStatus", "Message",
    "PersonInfo", "RerankResult", "RetrievalSettings", "RunRecord", "RunSummary", "SearchOutcome", "Selection",
    "Setting", "SettingError", "Stage1Result", "StoreContext", "StoreError", "StoreStats", "ThresholdSettings",
    "TopicDetail", "TopicInfo", "clean_query", "day_bounds", "get_preset", "is_cancel", "make_reranker", "msg",
    "normalise_language", "render", "setting",
]
