"""`flashback mcp`: the person's chat memory for assistants, over the Model Context Protocol.

Built on the official `mcp` SDK (2.x `MCPServer`). stdio by default: the SDK keeps stdout for
the protocol alone (it points file descriptor 1 at stderr while it serves); this process logs
to `<data>/logs/flashback.log` (API keys scrubbed), never to stdout. `--http PORT` serves
streamable HTTP on 127.0.0.1 only, behind a bearer token printed once on stderr; a request
without it, or from a browser page of another origin (DNS rebinding, which the MCP
specification warns about), is refused before the SDK sees it, and a request's headers and
body are bounded in time and size (app/mcp_http.py).

Read-only: no tool imports or builds. Tool failures are MCP tool errors (`is_error`) of one
sentence in the client's language (`FlashbackMCP.call_tool`)."""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import socket
import sys
from pathlib import Path
from typing import Any

import app

log = logging.getLogger(__name__)
TOKEN_VARIABLE = "FLASHBACK_MCP_TOKEN"  # a fixed token, for a client configuration that outlives one start
PATH = "/mcp"


def add_command(commands: argparse._SubParsersAction) -> None:
    mcp = commands.add_parser("mcp", help="serve your chat memory to assistants over the Model Context Protocol "
                                          "(stdio; read-only)")
    mcp.add_argument("--http", type=int, metavar="PORT", default=None,
                     help="serve streamable HTTP on 127.0.0.1:PORT instead (0: any free port), behind a bearer "
                          f"token printed once on stderr (or ${TOKEN_VARIABLE})")


def run_mcp(args: argparse.Namespace, data_dir: Path, settings_in_data_dir: bool) -> int:
    from app import crash
    from app.mcp_settings import SettingsWatcher, settings_file

    log_file = crash.install_window_log(data_dir)
    logging.getLogger("mcp").setLevel(logging.WARNING)  # the SDK's per-request notes would drown ours
    watcher = SettingsWatcher(settings_file(data_dir, settings_in_data_dir))
    server = build_server(data_dir, watcher, log_file)
    log.info("flashback mcp %s for %s (%s); settings from %s", app.__version__, data_dir,
             "stdio" if args.http is None else "streamable HTTP", watcher.path or "the defaults")
    if args.http is None:
        import anyio

        anyio.run(server.run_stdio_async)
        return 0
    return serve_http(server, args.http)


def build_server(data_dir: Path, watcher, log_file: Path | None):
    """The MCPServer with Flashback's tools (imported here: other commands never load the SDK)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from pydantic import ValidationError

    from app.mcp_memory import MemoryTools
    from app.mcp_tools import language_of, register
    from app.mcp_words import say

    class FlashbackMCP(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
            """Every failure as one sentence in the caller's language (the SDK would prefix "Error
            executing tool …" and give pydantic's multi-line report for a bad argument)."""
            language = language_of(context)
            tool = self._tool_manager.get_tool(name)
            known = tool.parameters.get("properties", {}) if tool is not None else {}
            if tool is not None:
                stray = [key for key in arguments if key not in known]
                if stray:
                    shown = stray[0][:_SHOWN_CHARS]  # a name is the client's text: a megabyte of it stays out
                    if not known:
                        raise ToolError(say("unknown_argument_none", language, tool=name, name=shown))
                    raise ToolError(say("unknown_argument", language, tool=name, name=shown,
                                        known=", ".join(known)))
            try:
                return await super().call_tool(name, arguments, context)
            except UnexpectedToolError as exc:
                log.error("%s failed unexpectedly", name, exc_info=exc.__cause__ or exc)
                raise ToolError(say("unexpected", language, log=log_file or "the log")) from None
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(cause, ValidationError):
                    raise ToolError(_argument_sentence(cause, known, language)) from None
                if isinstance(cause, ToolError):
                    raise ToolError(str(cause)) from None
                raise

    server = FlashbackMCP("flashback", title="Flashback", version=app.__version__,
                          instructions="The person's own chat history (imported Telegram, WhatsApp and ChatGPT "
                                       "exports), searched the way they tuned it in Flashback. Read-only.")
    register(server, MemoryTools(data_dir, watcher))
    return server


_SHOWN_CHARS = 60  # of an argument's name a refusal repeats
# pydantic's error types for a number outside its bounds, or not a whole one (1e30 is a float
# too big for any integer type); these are said with the parameter's range, in the client's language.
_RANGE_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal", "int_parsing_size",
                 "int_from_float", "int_parsing", "int_type"}


def _argument_sentence(error, parameters: dict[str, Any], language: str) -> str:
    """pydantic's first complaint about an argument as one sentence: a number out of its range and
    a text too long from the parameter's schema (in the client's language), anything else
    with pydantic's own words."""
    from app.mcp_words import say

    first = error.errors()[0]
    location = first.get("loc", ())
    name = ".".join(str(part) for part in location)[:_SHOWN_CHARS] or "?"
    kind = first.get("type")
    if kind == "missing":
        return say("missing_argument", language, name=name)
    schema = _schema_of(parameters.get(str(location[0])) if location else None)
    if kind in _RANGE_ERRORS and "minimum" in schema and "maximum" in schema:
        return say("argument_range", language, name=name, minimum=schema["minimum"], maximum=schema["maximum"])
    if kind == "string_too_long" and "maxLength" in schema:
        return say("argument_too_long", language, name=name, limit=schema["maxLength"])
    problem = str(first.get("msg", "")).rstrip(".")[:200]
    return say("bad_argument", language, name=name, problem=problem[:1].lower() + problem[1:])


def _schema_of(parameter: dict[str, Any] | None) -> dict[str, Any]:
    """A parameter's own schema: the non-null branch of an optional one (`anyOf: [{…}, {null}]`)."""
    for branch in (parameter or {}).get("anyOf", [parameter or {}]):
        if branch.get("type") != "null":
            return branch
    return {}


def serve_http(server, port: int) -> int:
    import anyio
    import uvicorn

    from app.mcp_http import MAX_BODY_BYTES, MAX_SESSIONS, HeaderDeadline, HttpGuard, QuietClosedSessions
    from engine.api import EngineError

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise EngineError(f"Port {port} on 127.0.0.1 cannot be used ({exc.strerror or exc}): "
                          "choose another with --http PORT.") from None
    # Listening before the address is printed: a client that reads it and connects at once
    # waits in the backlog until uvicorn accepts, instead of being refused (seen on a loaded
    # machine: the start-up between the print and uvicorn's own listen() took long enough).
    sock.listen(128)
    port = sock.getsockname()[1]
    token = os.environ.get(TOKEN_VARIABLE) or secrets.token_urlsafe(32)
    sdk_app = server.streamable_http_app(streamable_http_path=PATH, host="127.0.0.1", max_sessions=MAX_SESSIONS,
                                         max_request_body_size=MAX_BODY_BYTES)
    app = HttpGuard(sdk_app, token, port)
    shown = "the one in $" + TOKEN_VARIABLE if os.environ.get(TOKEN_VARIABLE) else token
    log.info("serving http://127.0.0.1:%d%s", port, PATH)  # never the token: the log outlives this start
    sys.stderr.write(f"flashback mcp: serving http://127.0.0.1:{port}{PATH}\n"
                     f"flashback mcp: token {shown} (send 'Authorization: Bearer <token>'; shown only now)\n")
    sys.stderr.flush()
    logging.getLogger("mcp.server.streamable_http").addFilter(QuietClosedSessions())
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on", http=HeaderDeadline)
    anyio.run(uvicorn.Server(config).serve, [sock])
    return 0
