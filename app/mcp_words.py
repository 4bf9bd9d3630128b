"""What the MCP server says, and which language a client asked for.

Its own sentences are the catalogue's `mcp.*` codes (engine/messages/en.py, ru.py), rendered
like the engine's messages, with the MCP face's hints of where a setting is (the window's
settings): one catalogue for every face (issue 31).

MCP has no locale field. A client says a language the way HTTP clients do, with
`Accept-Language` on the streamable-HTTP transport; over stdio the client's configuration can
set `FLASHBACK_LANG` in the server's environment. Anything else gets English.
"""

from __future__ import annotations

import os
from typing import Any

from engine.api import LANGUAGES, Message, msg, normalise_language, render

FACE = "mcp"


def say(key: str, language: str, **params: Any) -> str:
    """The server's own sentence `mcp.<key>` in `language`."""
    return render(msg(f"mcp.{key}", **params), language, face=FACE)


def said(message: Message | str, language: str) -> str:
    """An engine message (a code, or the plain English of an older error) in `language`, with the
    window's settings named where a setting is missing."""
    return render(message, language, face=FACE)


def from_accept_language(header: str | None) -> str | None:
    """The first language of an Accept-Language header that Flashback speaks, by weight; None if none."""
    if not header:
        return None
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        short = tag.strip().replace("_", "-").split("-")[0].lower()
        if short in LANGUAGES and weight > 0:
            ranked.append((-weight, position, short))
    return min(ranked)[2] if ranked else None


def environment_language(environ=os.environ) -> str:
    """FLASHBACK_LANG from the client's configuration of this server; English otherwise."""
    return normalise_language(environ.get("FLASHBACK_LANG") or "en")
