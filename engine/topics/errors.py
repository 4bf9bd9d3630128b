"""Errors of the topics layer: one base, messages written for the person using the app."""

from __future__ import annotations

from engine.errors import Cancelled, EngineError
from engine.messages import Message, msg


class TopicsError(EngineError):
    """Base of every error engine.topics raises on purpose."""


class TopicBuildCancelled(TopicsError, Cancelled):
    """The user stopped topic building. Batches already committed stay (they are valid
    topics); the next build continues with the messages that still have no topic."""

    code = "topics.build_cancelled"

    def __init__(self, report: object = None) -> None:
        self.report = report  # the TopicBuildReport of what was committed before the cancel
        super().__init__()


# The tags an AgentError names, said in words (English keeps the tag itself: logs and reports count by it).
AGENT_REASONS = {"llm_error": msg("topics.agent_reason.llm_error"), "timeout": msg("topics.agent_reason.timeout"),
                 "empty_response": msg("topics.agent_reason.empty_response"),
                 "parse_error": msg("topics.agent_reason.parse_error"),
                 "invalid_shape": msg("topics.agent_reason.invalid_shape"),
                 "no_valid_topics": msg("topics.agent_reason.no_valid_topics"),
                 "cancelled": msg("topics.agent_reason.cancelled")}


class AgentError(TopicsError):
    """A splitter or merger answer could not be used; `reason` is a short machine tag
    (llm_error, timeout, empty_response, parse_error, invalid_shape, no_valid_topics).
    `detail` is the English text of what went wrong (counted in reports, kept in traces);
    `detail_message` the same as a code when the engine wrote it (None for a model's own text)."""

    def __init__(self, reason: str, detail: str | Message = "") -> None:
        self.reason = reason
        self.detail_message = detail if isinstance(detail, Message) else None
        self.detail = str(detail)
        said = AGENT_REASONS.get(reason, reason)
        if self.detail:
            super().__init__(msg("topics.agent_failed_because", reason=said, detail=detail))
        else:
            super().__init__(msg("topics.agent_failed", reason=said))
