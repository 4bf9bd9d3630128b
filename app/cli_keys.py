"""`flashback key set|show|delete`: the API key, kept in the OS keyring, never in a file.

Every line says what is true on this machine: where the key in use comes from, that there
is no keyring at all (a headless Linux), and what to do instead.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from app.cli_output import words
from app.keys import KeyStore, KeyStoreError, masked

PROVIDERS = ("openrouter", "openai", "custom", "jina", "cohere", "voyage", "rerank")


def add_command(commands: argparse._SubParsersAction) -> None:
    key = commands.add_parser("key", help="manage the API key (kept in the OS keyring)",
                              description="set reads the key hidden from the terminal, or one line from "
                                          "standard input when it is a pipe (echo KEY | flashback key set)")
    key.add_argument("action", choices=("set", "show", "delete"))
    key.add_argument("--provider", default="openrouter", choices=PROVIDERS)


def _env_hint(keys: KeyStore, provider: str) -> str:
    names = keys.env_vars(provider)
    return words("cli.keys.env_or", first=names[0], second=names[1]) if len(names) == 2 else " / ".join(names)


def _show(keys: KeyStore, provider: str) -> int:
    source = keys.source(provider)
    if source:
        origin = words(f"cli.keys.from.{source}") if source in ("keyring", "session", "env") else source
        sys.stdout.write(words("cli.keys.shown", provider=provider, masked=masked(keys.get(provider)),
                               source=origin) + "\n")
        return 0
    code = "cli.keys.not_set" if keys.backend_available() else "cli.keys.not_set_no_keyring"
    sys.stdout.write(words(code, provider=provider, env=_env_hint(keys, provider)) + "\n")
    return 0


def _delete(keys: KeyStore, provider: str) -> int:
    try:
        removed = keys.delete(provider)
    except KeyStoreError:
        sys.stdout.write(words("cli.keys.no_keyring_nothing", provider=provider) + "\n")
        return 0
    line = words("cli.keys.removed" if removed else "cli.keys.nothing_stored", provider=provider)
    if keys.source(provider) == "env":  # still usable: say so, or the user thinks it is gone
        line = words("cli.keys.still_in_env", line=line, env=_env_hint(keys, provider))
    sys.stdout.write(line + "\n")
    return 0


def _read_key(provider: str) -> str | None:
    """The key typed (hidden) at a terminal, or the first line of a piped standard input;
    None when there is nothing to read (stdin closed, e.g. `</dev/null`)."""
    try:
        if sys.stdin is None:
            return None
        if not sys.stdin.isatty():
            return sys.stdin.readline().strip() or None
        return getpass.getpass(words("cli.keys.prompt", provider=provider)).strip() or None
    except EOFError:  # Ctrl-D at the prompt
        return None


def _set(keys: KeyStore, provider: str) -> int:
    if not keys.backend_available():
        sys.stderr.write(words("cli.keys.no_keyring_set", env=_env_hint(keys, provider)) + "\n")
        return 1
    key = _read_key(provider)
    if not key:
        sys.stderr.write(words("cli.keys.none_entered", provider=provider) + "\n")
        return 1
    try:
        keys.save(provider, key)
    except KeyStoreError as exc:
        sys.stderr.write(words("cli.note", text=str(exc)) + "\n")
        return 1
    sys.stdout.write(words("cli.keys.saved", provider=provider, masked=masked(key)) + "\n")
    return 0


def run_key(args: argparse.Namespace) -> int:
    keys = KeyStore()
    if args.action == "show":
        return _show(keys, args.provider)
    if args.action == "delete":
        return _delete(keys, args.provider)
    return _set(keys, args.provider)
