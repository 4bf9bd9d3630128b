"""The one surface the faces import (the window, the CLI, the MCP server): `Flashback` and the
dataclasses its sub-services take and return, the settings schema, message codes and their
rendering, and what a write changed. `ui/` and `app/` import nothing else from the engine
(import-linter contracts in pyproject.toml; mypy checks this package and its callers).

Names load when first used (PEP 562): `flashback --version` or an argparse error should not
pay for numpy, SQLAlchemy and the rerankers. To add a name: one line in `_EXPORTS` and the
same import under TYPE_CHECKING (type checkers read that)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    # the facade and its records
    "Flashback": "engine.api.facade",
    "IndexLost": "engine.api.memory", "MemoryStatus": "engine.api.memory",
    "EmptyQueryError": "engine.api.search", "SearchRequest": "engine.api.search_records",
    "SearchResult": "engine.api.search_records", "Timings": "engine.api.search_records",
    "CandidateKind": "engine.retrieval.candidate",
    "clean_query": "engine.api.search", "make_reranker": "engine.api.search",
    "RunRecord": "engine.api.views",
    "EvaluationFigures": "engine.api.figures", "MetricSet": "engine.api.figures", "RunMetrics": "engine.api.figures",
    # what each reranker reports, typed (SearchResult.report)
    "StageCounts": "engine.api.reports",
    "Usage": "engine.api.reports",
    "ScoredTopic": "engine.api.reports",
    "ChainInfo": "engine.api.reports",
    "EndpointLabel": "engine.api.reports",
    "ThresholdReport": "engine.api.reports",
    "KeepAllReport": "engine.api.reports",
    "FlashReport": "engine.api.reports",
    "CrossEncoderReport": "engine.api.reports",
    "RerankReport": "engine.api.reports",
    "AskOutcome": "engine.ask", "AskSettings": "engine.ask", "StepRecord": "engine.ask", "Source": "engine.ask",
    "Claim": "engine.ask", "Answer": "engine.ask", "Plan": "engine.ask", "AskCancelled": "engine.ask",
    "DateRange": "engine.ask.dates", "read_dates": "engine.ask.plan",
    "SETTINGS": "engine.api.settings", "Setting": "engine.api.settings", "SettingError": "engine.api.settings",
    "setting": "engine.api.settings",
    "UserSettings": "engine.api.saved_settings", "read_settings": "engine.api.saved_settings",
    "write_settings": "engine.api.saved_settings", "settings_path": "engine.api.saved_settings",
    "migrate_settings": "engine.api.saved_settings",
    "Changes": "engine.changes", "ChangeToken": "engine.changes",
    # messages
    "LANGUAGES": "engine.messages", "kind_message": "engine.messages", "Message": "engine.messages",
    "msg": "engine.messages",
    "normalise_language": "engine.messages", "render": "engine.messages", "reason_message": "engine.messages",
    "step_message": "engine.messages", "reranker_message": "engine.messages", "SETTING_OF": "engine.messages",
    "stage_message": "engine.messages",
    "catalogue": "engine.messages", "runs_summary": "engine.traces.runs", "duration_message": "engine.messages",
    # errors and cancelling
    "CancelToken": "engine.errors", "Cancelled": "engine.errors", "EngineError": "engine.errors",
    "ImportFormatError": "engine.errors", "StoreError": "engine.errors", "is_cancel": "engine.errors",
    # what the sub-services take and return
    "ChatInfo": "engine.browse", "PersonInfo": "engine.browse", "TopicDetail": "engine.browse",
    "TopicInfo": "engine.browse",
    "EmbeddingConfig": "engine.embeddings.base",
    "ImportReport": "engine.importers.runner", "FORMATS": "engine.importers.formats",
    "ImportProgress": "engine.importers.base",
    "ForgetReport": "engine.memory.forget", "SourceInfo": "engine.memory.forget",  # issue 23: forget
    "names_list": "engine.importers.runner",
    "PRESETS": "engine.llm.presets", "Endpoint": "engine.llm.presets", "get_preset": "engine.llm.presets",
    "BuildOptions": "engine.memory.build", "BuildReport": "engine.memory.build",
    "Candidate": "engine.rerank.base", "RerankResult": "engine.rerank.base",
    "Reranker": "engine.rerank.base", "Selection": "engine.rerank.base",
    "ThresholdSettings": "engine.rerank.threshold", "ThresholdReranker": "engine.rerank.threshold",
    "FlashSettings": "engine.rerank.flash.settings",
    "RetrievalSettings": "engine.retrieval.search", "Stage1Result": "engine.retrieval.search",
    "day_bounds": "engine.retrieval.search",
    # issue 23: filters, people, CLI
    "EmptyDateRange": "engine.retrieval.search", "check_date_range": "engine.retrieval.search",
    "OwnerInfo": "engine.api.people", "OwnerAlias": "engine.api.people", "OwnerNameUnknown": "engine.api.people",
    "PersonActivity": "engine.api.people", "PersonSummary": "engine.api.people", "PersonTopic": "engine.api.people",
    "SourceMessage": "engine.api.people", "FactMatch": "engine.api.people", "PersonNotFound": "engine.api.people",
    "SamePerson": "engine.api.people", "PersonSide": "engine.api.people", "MergeReport": "engine.api.people",
    "CannotMerge": "engine.api.people",
    "NOISE_SES": "engine.evaluation.tune",
    "LockHolder": "engine.store.lock", "StoreStats": "engine.store.stats", "RunSummary": "engine.traces.runs",
    "load_qrels": "engine.evaluation.qrels", "QueryFilters": "engine.evaluation.qrels",
    "DEFAULT_BUDGET": "engine.evaluation.sweep", "OBJECTIVES": "engine.evaluation.tune",
    "to_json": "engine.export.render", "to_markdown": "engine.export.render",
    "scrub_text": "engine.scrub",
    "write_private": "engine.files",  # issue 35: what a face writes for the user (an export) is 0600 too
    # the window (ui/): its pipeline, embedder choice, progress, Flash presets and Evaluate's arithmetic
    "PIPELINE_CHANGES": "engine.api.store", "PipelineSummary": "engine.api.pipeline",
    "Step": "engine.api.pipeline", "EMBEDDING_PRESETS": "engine.api.memory", "INSTALL_HINT": "engine.api.memory",
    "local_model_available": "engine.api.memory", "WriterBusy": "engine.store.lock",
    "PROGRESS_INTERVAL_S": "engine.progress", "ProgressThrottle": "engine.progress",
    "CLOUD": "engine.rerank.flash.settings", "LOCAL": "engine.rerank.flash.settings",
    "filters_of": "engine.evaluation.frozen", "FrozenQuery": "engine.evaluation.frozen",
    "QueryReport": "engine.evaluation.report", "averages": "engine.evaluation.report",
    "report_keep_all": "engine.evaluation.report", "report_threshold": "engine.evaluation.report",
    "SweepData": "engine.evaluation.sweep", "tune": "engine.evaluation.tune",
    "FlashOutcome": "engine.evaluation.flash_compare", "CostEstimate": "engine.evaluation.flash_compare",
    "ImportSummary": "engine.evaluation.labels",
    # the cross-encoder reranker (issue 25): its endpoints, settings and the Evaluate comparison
    "RERANK_PRESETS": "engine.rerank.cross_encoder.presets", "RerankEndpoint": "engine.rerank.cross_encoder.presets",
    "CrossEncoderSettings": "engine.rerank.cross_encoder.settings",
    "Comparison": "engine.evaluation.flash_compare", "RerankerRun": "engine.evaluation.flash_compare",
    "side_by_side": "engine.evaluation.flash_compare",
    # the Archivist (issue 33): facts, the owner's profile, extraction
    "FactInfo": "engine.facts.records", "FactChangeInfo": "engine.facts.records", "Profile": "engine.facts.records",
    "ExtractionEstimate": "engine.facts.records", "ExtractionReport": "engine.facts.records",
    "FactMissing": "engine.facts.store",
    "evaluate_facts": "engine.api.evaluation",  # eval-facts (its result is read by attribute: not re-exported)
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # what type checkers and editors see; at run time __getattr__ (engine/lazy.py) loads them
    from engine.api.evaluation import evaluate_facts as evaluate_facts
    from engine.api.facade import Flashback as Flashback
    from engine.api.figures import EvaluationFigures as EvaluationFigures
    from engine.api.figures import MetricSet as MetricSet
    from engine.api.figures import RunMetrics as RunMetrics
    from engine.api.memory import EMBEDDING_PRESETS as EMBEDDING_PRESETS
    from engine.api.memory import INSTALL_HINT as INSTALL_HINT
    from engine.api.memory import IndexLost as IndexLost
    from engine.api.memory import MemoryStatus as MemoryStatus
    from engine.api.memory import local_model_available as local_model_available
    from engine.api.people import CannotMerge as CannotMerge
    from engine.api.people import FactMatch as FactMatch
    from engine.api.people import MergeReport as MergeReport
    from engine.api.people import OwnerAlias as OwnerAlias
    from engine.api.people import OwnerInfo as OwnerInfo
    from engine.api.people import OwnerNameUnknown as OwnerNameUnknown
    from engine.api.people import PersonActivity as PersonActivity
    from engine.api.people import PersonNotFound as PersonNotFound
    from engine.api.people import PersonSide as PersonSide
    from engine.api.people import PersonSummary as PersonSummary
    from engine.api.people import PersonTopic as PersonTopic
    from engine.api.people import SamePerson as SamePerson
    from engine.api.people import SourceMessage as SourceMessage
    from engine.api.pipeline import PipelineSummary as PipelineSummary
    from engine.api.pipeline import Step as Step
    from engine.api.reports import ChainInfo as ChainInfo
    from engine.api.reports import CrossEncoderReport as CrossEncoderReport
    from engine.api.reports import EndpointLabel as EndpointLabel
    from engine.api.reports import FlashReport as FlashReport
    from engine.api.reports import KeepAllReport as KeepAllReport
    from engine.api.reports import RerankReport as RerankReport
    from engine.api.reports import ScoredTopic as ScoredTopic
    from engine.api.reports import StageCounts as StageCounts
    from engine.api.reports import ThresholdReport as ThresholdReport
    from engine.api.reports import Usage as Usage
    from engine.api.saved_settings import UserSettings as UserSettings
    from engine.api.saved_settings import migrate_settings as migrate_settings
    from engine.api.saved_settings import read_settings as read_settings
    from engine.api.saved_settings import settings_path as settings_path
    from engine.api.saved_settings import write_settings as write_settings
    from engine.api.search import EmptyQueryError as EmptyQueryError
    from engine.api.search import clean_query as clean_query
    from engine.api.search import make_reranker as make_reranker
    from engine.api.search_records import SearchRequest as SearchRequest
    from engine.api.search_records import SearchResult as SearchResult
    from engine.api.search_records import Timings as Timings
    from engine.api.settings import SETTINGS as SETTINGS
    from engine.api.settings import Setting as Setting
    from engine.api.settings import SettingError as SettingError
    from engine.api.settings import setting as setting
    from engine.api.store import PIPELINE_CHANGES as PIPELINE_CHANGES
    from engine.api.views import RunRecord as RunRecord
    from engine.ask import Answer as Answer
    from engine.ask import AskCancelled as AskCancelled
    from engine.ask import AskOutcome as AskOutcome
    from engine.ask import AskSettings as AskSettings
    from engine.ask import Claim as Claim
    from engine.ask import Plan as Plan
    from engine.ask import Source as Source
    from engine.ask import StepRecord as StepRecord
    from engine.ask.dates import DateRange as DateRange
    from engine.ask.plan import read_dates as read_dates
    from engine.browse import ChatInfo as ChatInfo
    from engine.browse import PersonInfo as PersonInfo
    from engine.browse import TopicDetail as TopicDetail
    from engine.browse import TopicInfo as TopicInfo
    from engine.changes import Changes as Changes
    from engine.changes import ChangeToken as ChangeToken
    from engine.embeddings.base import EmbeddingConfig as EmbeddingConfig
    from engine.errors import Cancelled as Cancelled
    from engine.errors import CancelToken as CancelToken
    from engine.errors import EngineError as EngineError
    from engine.errors import ImportFormatError as ImportFormatError
    from engine.errors import StoreError as StoreError
    from engine.errors import is_cancel as is_cancel
    from engine.evaluation.flash_compare import Comparison as Comparison
    from engine.evaluation.flash_compare import CostEstimate as CostEstimate
    from engine.evaluation.flash_compare import FlashOutcome as FlashOutcome
    from engine.evaluation.flash_compare import RerankerRun as RerankerRun
    from engine.evaluation.flash_compare import side_by_side as side_by_side
    from engine.evaluation.frozen import FrozenQuery as FrozenQuery
    from engine.evaluation.frozen import filters_of as filters_of
    from engine.evaluation.labels import ImportSummary as ImportSummary
    from engine.evaluation.qrels import QueryFilters as QueryFilters
    from engine.evaluation.qrels import load_qrels as load_qrels
    from engine.evaluation.report import QueryReport as QueryReport
    from engine.evaluation.report import averages as averages
    from engine.evaluation.report import report_keep_all as report_keep_all
    from engine.evaluation.report import report_threshold as report_threshold
    from engine.evaluation.sweep import DEFAULT_BUDGET as DEFAULT_BUDGET
    from engine.evaluation.sweep import SweepData as SweepData
    from engine.evaluation.tune import NOISE_SES as NOISE_SES
    from engine.evaluation.tune import OBJECTIVES as OBJECTIVES
    from engine.evaluation.tune import tune as tune
    from engine.export.render import to_json as to_json
    from engine.export.render import to_markdown as to_markdown
    from engine.facts.records import ExtractionEstimate as ExtractionEstimate
    from engine.facts.records import ExtractionReport as ExtractionReport
    from engine.facts.records import FactChangeInfo as FactChangeInfo
    from engine.facts.records import FactInfo as FactInfo
    from engine.facts.records import Profile as Profile
    from engine.facts.store import FactMissing as FactMissing
    from engine.files import write_private as write_private
    from engine.importers.base import ImportProgress as ImportProgress
    from engine.importers.formats import FORMATS as FORMATS
    from engine.importers.runner import ImportReport as ImportReport
    from engine.importers.runner import names_list as names_list
    from engine.llm.presets import PRESETS as PRESETS
    from engine.llm.presets import Endpoint as Endpoint
    from engine.llm.presets import get_preset as get_preset
    from engine.memory.build import BuildOptions as BuildOptions
    from engine.memory.build import BuildReport as BuildReport
    from engine.memory.forget import ForgetReport as ForgetReport
    from engine.memory.forget import SourceInfo as SourceInfo
    from engine.messages import LANGUAGES as LANGUAGES
    from engine.messages import SETTING_OF as SETTING_OF
    from engine.messages import Message as Message
    from engine.messages import catalogue as catalogue
    from engine.messages import duration_message as duration_message
    from engine.messages import kind_message as kind_message
    from engine.messages import msg as msg
    from engine.messages import normalise_language as normalise_language
    from engine.messages import reason_message as reason_message
    from engine.messages import render as render
    from engine.messages import reranker_message as reranker_message
    from engine.messages import stage_message as stage_message
    from engine.messages import step_message as step_message
    from engine.progress import PROGRESS_INTERVAL_S as PROGRESS_INTERVAL_S
    from engine.progress import ProgressThrottle as ProgressThrottle
    from engine.rerank.base import Candidate as Candidate
    from engine.rerank.base import Reranker as Reranker
    from engine.rerank.base import RerankResult as RerankResult
    from engine.rerank.base import Selection as Selection
    from engine.rerank.cross_encoder.presets import RERANK_PRESETS as RERANK_PRESETS
    from engine.rerank.cross_encoder.presets import RerankEndpoint as RerankEndpoint
    from engine.rerank.cross_encoder.settings import CrossEncoderSettings as CrossEncoderSettings
    from engine.rerank.flash.settings import CLOUD as CLOUD
    from engine.rerank.flash.settings import LOCAL as LOCAL
    from engine.rerank.flash.settings import FlashSettings as FlashSettings
    from engine.rerank.threshold import ThresholdReranker as ThresholdReranker
    from engine.rerank.threshold import ThresholdSettings as ThresholdSettings
    from engine.retrieval.candidate import CandidateKind as CandidateKind
    from engine.retrieval.search import EmptyDateRange as EmptyDateRange
    from engine.retrieval.search import RetrievalSettings as RetrievalSettings
    from engine.retrieval.search import Stage1Result as Stage1Result
    from engine.retrieval.search import check_date_range as check_date_range
    from engine.retrieval.search import day_bounds as day_bounds
    from engine.scrub import scrub_text as scrub_text
    from engine.store.lock import LockHolder as LockHolder
    from engine.store.lock import WriterBusy as WriterBusy
    from engine.store.stats import StoreStats as StoreStats
    from engine.traces.runs import RunSummary as RunSummary
    from engine.traces.runs import runs_summary as runs_summary
