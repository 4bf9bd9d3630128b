"""Topics: messages grouped into summarised conversation segments (seed 004).

build_topics archives sessions into topics (splitter agent or extractive summaries, with
coverage validation); consolidate merges topics that are one conversation; content.py
gives the texts the index and the reranker read.
"""

from engine.topics.agents import AgentLoop, MergeDecision, MergerAgent, SplitterAgent
from engine.topics.builder import TopicBuildReport, build_topics
from engine.topics.consolidation import ConsolidationReport, consolidate
from engine.topics.content import embedding_text, format_log, topic_messages, topic_text
from engine.topics.errors import AgentError, TopicBuildCancelled, TopicsError
from engine.topics.message_row import MessageRow
from engine.topics.settings import TopicSettings

__all__ = [
    "AgentError", "AgentLoop", "ConsolidationReport", "MergeDecision", "MergerAgent", "MessageRow", "SplitterAgent",
    "TopicBuildCancelled", "TopicBuildReport", "TopicSettings", "TopicsError", "build_topics", "consolidate",
    "embedding_text", "format_log", "topic_messages", "topic_text",
]
