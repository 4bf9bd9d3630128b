"""The flash reranker's exceptions; all are EngineError, the engine layer's one base.

`arerank` itself never raises them for LLM or protocol trouble (that becomes a fallback):
they surface only for bad settings, and inside the package while parsing an answer.
"""

from __future__ import annotations

from engine.errors import EngineError
from engine.messages import Message


class FlashRerankError(EngineError):
    """Base of the flash reranker's errors."""


class FlashSettingsError(FlashRerankError, ValueError):
    """A FlashSettings value out of range (also a ValueError, as bad arguments are)."""


class AnswerError(FlashRerankError):
    """The model's answer cannot be used; `reason` is the fallback reason (parse_error, empty_response)."""

    def __init__(self, reason: str, detail: Message) -> None:
        super().__init__(detail)
        self.reason = reason
