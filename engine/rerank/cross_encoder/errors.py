"""What the rerank client raises, each error carrying the fallback name the reranker reports.

Every failure of the cross-encoder step ends in the same fallback (stage 1's order), but the
person and the run history should know which kind it was:

    endpoint_error   the server answered 4xx/5xx after the retries, or could not be reached
    timeout          the step's time ran out
    parse_error      a 2xx whose body is not JSON or holds no scores list
    missing_scores   scores missing, duplicated, out of range or not numbers
"""

from __future__ import annotations

from engine.errors import EngineError, RemoteServiceError
from engine.messages import Message, msg

CROSS_ENCODER_FALLBACKS = ("endpoint_error", "timeout", "parse_error", "missing_scores")


def cross_encoder_fallback_message(reason: str) -> Message:
    """A cross-encoder fallback name in words (English keeps the name: the CLI and run
    history count by it)."""
    if reason in CROSS_ENCODER_FALLBACKS:
        return msg(f"rerank.cross_encoder.fallback.{reason}")
    return Message("error.text", {"text": reason})


class CrossEncoderError(RemoteServiceError):
    """Base of the rerank client's failures; `reason` is the fallback name."""

    reason = "endpoint_error"

    def __init__(self, message: Message, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class RerankEndpointError(CrossEncoderError):
    """4xx/5xx after the retries, a refused key, or nobody listening."""


class RerankTimeout(CrossEncoderError):
    reason = "timeout"


class RerankResponseError(CrossEncoderError):
    """A 2xx whose body cannot be read as a scores list."""

    reason = "parse_error"


class RerankScoresError(CrossEncoderError):
    """A scores list that does not give each passage sent exactly one finite score."""

    reason = "missing_scores"


class CrossEncoderSettingsError(EngineError):
    """Settings or an endpoint the reranker cannot run with (the faces check ranges first)."""
