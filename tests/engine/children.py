"""Children for tests of the child-process harness (`engine.child_process`): each is a
`function(channel)` the harness runs in a fresh Python, as it runs the engine's own."""

from __future__ import annotations

import importlib
import os
import time

from engine.errors import EngineError, ImportCancelled


def sleep(channel) -> None:
    """Never answers (a child stuck in its work)."""
    time.sleep(60)


def exit_at_once(channel) -> None:
    """Ends before sending anything (a child that cannot run here)."""
    os._exit(3)


def echo(channel):
    """Sends back progress for each message it gets until the parent closes its stdin; the result is their count."""
    count = 0
    while (message := channel.receive()) is not None:
        channel.progress(message)
        count += 1
    return count


def raise_this(channel) -> None:
    """Raises the error the parent names: ("raise", module, class name, args, attributes)."""
    _, module, name, args, attributes = channel.receive()
    error = getattr(importlib.import_module(module), name)(*args)
    for key, value in attributes.items():
        setattr(error, key, value)
    raise error


def until_cancelled(channel) -> None:
    """Reports progress until the parent cancels, then raises its cancel."""
    token = channel.cancel_token(ImportCancelled)
    while True:
        channel.progress("working")
        token.raise_if_cancelled()
        time.sleep(0.02)


def ignores_cancel(channel) -> None:
    """Keeps reporting and never looks at the cancel: only a kill stops it."""
    channel.cancel_token()
    while True:
        channel.progress("still working")
        time.sleep(0.05)


def noisy(channel) -> str:
    """Prints, from Python and below it, where the frames go: none of it may reach them."""
    print("a stray print")
    os.write(1, b"\x00\x00\x00\x00bytes a C library wrote")
    return "clean"


class NotTheEnginesError(Exception):
    """An exception of a module the parent does not rebuild classes from."""


class AnEngineErrorFromElsewhere(EngineError):
    """An engine error whose class the parent does not rebuild (it lives outside engine/)."""

    code = "build.cancelled"


def topic_build_cancelled(channel) -> None:
    """A cancel that carries a report of what was committed (a dataclass with a Counter)."""
    from collections import Counter

    from engine.topics.builder import TopicBuildReport
    from engine.topics.errors import TopicBuildCancelled

    raise TopicBuildCancelled(TopicBuildReport(topics_created=3, created_ids=[4, 5, 6],
                                               fallbacks=Counter(timeout=2)))


def build_ignoring_cancel(channel) -> None:
    """Speaks the import/build child's protocol but never looks at the cancel (a stuck build)."""
    channel.receive()
    channel.cancel_token()
    channel.send(("phase", "build"))
    while True:
        channel.progress({"phase": "build", "name": "embeddings", "done": 1, "total": 9})
        time.sleep(0.05)
