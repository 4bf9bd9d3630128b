"""Topics: messages grouped into summarised conversation segments (seed 004).

build_topics archives sessions into topics (splitter agent or extractive summaries, with
coverage validation); consolidate merges topics that are one conversation; content.py
gives the texts the index and the reranker read.
"""

from typing import TYPE_CHECKING

from engine.lazy import lazy_exports

if TYPE_CHECKING:
    from engine.topics.agents import AgentLoop, MergeDecision, MergerAgent, SplitterAgent
    from engine.topics.builder import TopicBuildReport, build_topics
    from engine.topics.consolidation import ConsolidationReport, consolidate
    from engine.topics.content import embedding_text, format_log, topic_messages, topic_text
    from engine.topics.errors import AgentError, TopicBuildCancelled, TopicsError
    from engine.topics.message_row import MessageRow
    from engine.topics.settings import TopicSettings

# Loaded on first use (PEP 562): a search reads topic texts (content.py) without the agents' LLM
# client or the builder (issue 26: a cold `flashback search`).
_WHERE: dict[str, str] = {name: module for module, names in (
    ("engine.topics.agents", ("AgentLoop", "MergeDecision", "MergerAgent", "SplitterAgent")),
    ("engine.topics.builder", ("TopicBuildReport", "build_topics")),
    ("engine.topics.consolidation", ("ConsolidationReport", "consolidate")),
    ("engine.topics.content", ("embedding_text", "format_log", "topic_messages", "topic_text")),
    ("engine.topics.errors", ("AgentError", "TopicBuildCancelled", "TopicsError")),
    ("engine.topics.message_row", ("MessageRow",)),
    ("engine.topics.settings", ("TopicSettings",)),
) for name in names}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)


__all__ = [
    "AgentError", "AgentLoop", "ConsolidationReport", "MergeDecision", "MergerAgent", "MessageRow", "SplitterAgent",
    "TopicBuildCancelled", "TopicBuildReport", "TopicSettings", "TopicsError", "build_topics", "consolidate",
    "embedding_text", "format_log", "topic_messages", "topic_text",
]
