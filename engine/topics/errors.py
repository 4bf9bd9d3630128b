"""Errors of the topics layer: one base, messages written for the person using the app."""

from __future__ import annotations

from engine.errors import Cancelled, EngineError


class TopicsError(EngineError):
    """Base of every error engine.topics raises on purpose."""


class TopicBuildCancelled(TopicsError, Cancelled):
    """The user stopped topic building. Batches already committed stay (they are valid
    topics); the next build continues with the messages that still have no topic."""

    def __init__(self, report: object = None) -> None:
        self.report = report  # the TopicBuildReport of what was committed before the cancel
        super().__init__("Topic building cancelled; topics built so far are kept and the rest "
                         "will be built next time.")


class AgentError(TopicsError):
    """A splitter or merger answer could not be used; `reason` is a short machine tag
    (llm_error, timeout, empty_response, parse_error, invalid_shape, no_valid_topics)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"The language model's answer could not be used ({reason}){': ' + detail if detail else ''}")
