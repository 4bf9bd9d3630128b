"""Small pieces of the CLI's human output: counted nouns, durations, aligned tables, stage progress.

Progress goes to stderr (stdout stays one clean JSON object with --json). At a terminal it
is one line redrawn with \\r; anywhere else (a log, a pipe, CI) a redrawn line would be one
endless run-on line, so each stage gets one plain line when it ends.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from app.cli_options import say
from engine.api import duration_message, msg, stage_message

_IRREGULAR = {"person": "people", "index": "indexes", "query": "queries", "reply": "replies"}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """"1 chat", "7 chats", "1,024 messages"; `many` for a plural the table does not know."""
    word = noun if count == 1 else (many or _IRREGULAR.get(noun) or noun + "s")
    return f"{count:,} {word}"


def words(code: str, **params: Any) -> str:
    """The catalogue's `code` in the CLI's language (FLASHBACK_LANG): every line a person reads."""
    return say(msg(code, **params))


def duration(ms: float | None) -> str:
    """Milliseconds for a person: "850 ms", "1.2 s", "2 min 5 s"; "–" when unknown."""
    return say(duration_message(ms))


def stage_name(stage: str) -> str:
    """A build or check stage ("embeddings", "index topic") in words (the window's are the same)."""
    return say(stage_message(stage))


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def aligned_table(headers: list[str], rows: list[tuple[str, list]]) -> list[str]:
    """Lines of a table whose columns line up and never run together (issue 23): each column
    as wide as its longest header or value, two spaces apart; names left, figures right."""
    cells = [[name, *(_cell(value) for value in values)] for name, values in rows]
    table = [["", *headers], *cells]
    widths = [max(len(row[column]) for row in table) for column in range(len(table[0]))]
    return ["  ".join([row[0].ljust(widths[0]), *(cell.rjust(width) for cell, width in zip(row[1:], widths[1:],
                                                                                           strict=True))]).rstrip()
            for row in table]


def money(usd: float | None) -> str:
    if not usd:
        return "$0"
    return f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"


class StageProgress:
    """`(stage, done, total)` callbacks → stderr; call `finish()` once the work is over."""

    def __init__(self, stream: TextIO | None = None, interval: float = 0.1) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval
        self._stage: str | None = None
        self._last: tuple[int, int] = (0, 0)
        self._drawn = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self._stage and self._stage is not None and not self.tty:
            self._line(self._stage, *self._last)
        self._stage, self._last = stage, (done, total)
        now = time.monotonic()
        if self.tty and (now - self._drawn >= self.interval or done >= total):
            self._drawn = now
            self.stream.write(f"\r{stage_name(stage):<16} {done:>9,} / {total:,}   ")
            self.stream.flush()

    def _line(self, stage: str, done: int, total: int) -> None:
        # A stage that ended without a final count (a one-step fit, an empty stage) is just done.
        counts = words("cli.progress.counts", done=done, total=total) if total > 1 and done == total else \
            words("cli.progress.done")
        self.stream.write(words("cli.progress.stage", stage=stage_name(stage), counts=counts) + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self._stage is None:
            return
        if self.tty:
            self.stream.write("\n")
        else:
            self._line(self._stage, *self._last)
        self.stream.flush()
        self._stage = None


def at_least(low: int) -> Callable[[str], int]:
    """An argparse type: a whole number ≥ `low` (`--candidates -5` was accepted, issue 12)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(words("cli.arg.not_whole", text=text)) from None
        if value < low:
            raise argparse.ArgumentTypeError(words("cli.arg.too_small", value=value, low=low))
        return value

    return parse


def fraction(text: str) -> float:
    """An argparse type: a number from 0 to 1 (`--threshold nan` was accepted, issue 12)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(words("cli.arg.not_number", text=text)) from None
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(words("cli.arg.not_fraction", text=text))
    return value


def positive_number(text: str) -> float:
    """An argparse type: a finite number above 0 (seconds; `--timeout nan` or `-1` was accepted)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(words("cli.arg.not_number", text=text)) from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(words("cli.arg.not_positive", text=text))
    return value


def share(text: str) -> float:
    """An argparse type: a share above 0 and at most 1 (`--turn1-share`)."""
    value = fraction(text)
    if value == 0:
        raise argparse.ArgumentTypeError(words("cli.arg.no_time"))
    return value


def waiting_note(stream: TextIO | None = None) -> Callable[[object], None]:
    """An `on_wait(holder)` for a writer: one line on stderr when the wait starts, and again
    only if the holder changes (the next writer in line)."""
    said: list[str] = []

    def note(holder) -> None:
        text = say(holder.message())
        if not said or said[-1] != text:
            said.append(text)
            out = stream or sys.stderr
            out.write(words("cli.waiting", holder=text) + "\n")
            out.flush()

    return note
