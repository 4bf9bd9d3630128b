"""`flashback key set|show|delete`: the API key, kept in the OS keyring, never in a file.

Every line says what is true on this machine: where the key in use comes from, that there
is no keyring at all (a headless Linux), and what to do instead.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from app.keys import KeyStore, KeyStoreError, masked

PROVIDERS = ("openrouter", "openai", "custom", "jina", "cohere", "voyage", "rerank")
_FROM = {"keyring": "the OS keyring", "session": "this session", "env": "the environment"}


def add_command(commands: argparse._SubParsersAction) -> None:
    key = commands.add_parser("key", help="manage the API key (kept in the OS keyring)",
                              description="set reads the key hidden from the terminal, or one line from "
                                          "standard input when it is a pipe (echo KEY | flashback key set)")
    key.add_argument("action", choices=("set", "show", "delete"))
    key.add_argument("--provider", default="openrouter", choices=PROVIDERS)


def _env_hint(keys: KeyStore, provider: str) -> str:
    return " or ".join(keys.env_vars(provider))


def _show(keys: KeyStore, provider: str) -> int:
    source = keys.source(provider)
    if source:
        sys.stdout.write(f"{provider}: {masked(keys.get(provider))} (from {_FROM.get(source, source)})\n")
        return 0
    if keys.backend_available():
        how = f"save one with `flashback key set --provider {provider}` or set {_env_hint(keys, provider)}"
    else:
        how = f"this system has no keyring, so set {_env_hint(keys, provider)} in the environment"
    sys.stdout.write(f"{provider}: not set: {how}\n")
    return 0


def _delete(keys: KeyStore, provider: str) -> int:
    try:
        removed = keys.delete(provider)
    except KeyStoreError:
        sys.stdout.write(f"{provider}: no keyring on this system; nothing stored\n")
        return 0
    line = "removed from the keyring" if removed else "nothing stored in the keyring"
    if keys.source(provider) == "env":  # still usable: say so, or the user thinks it is gone
        line += f"; a key is still set in the environment ({_env_hint(keys, provider)})"
    sys.stdout.write(f"{provider}: {line}\n")
    return 0


def _read_key(provider: str) -> str | None:
    """The key typed (hidden) at a terminal, or the first line of a piped standard input;
    None when there is nothing to read (stdin closed, e.g. `</dev/null`)."""
    try:
        if sys.stdin is None:
            return None
        if not sys.stdin.isatty():
            return sys.stdin.readline().strip() or None
        return getpass.getpass(f"API key for {provider} (input hidden): ").strip() or None
    except EOFError:  # Ctrl-D at the prompt
        return None


def _set(keys: KeyStore, provider: str) -> int:
    if not keys.backend_available():
        sys.stderr.write(f"flashback: this system has no keyring to keep the key in; set "
                         f"{_env_hint(keys, provider)} in the environment instead.\n")
        return 1
    key = _read_key(provider)
    if not key:
        sys.stderr.write("flashback: no key was entered (type it at the prompt, or pipe it in: "
                         f"echo KEY | flashback key set --provider {provider}); nothing changed.\n")
        return 1
    try:
        keys.save(provider, key)
    except KeyStoreError as exc:
        sys.stderr.write(f"flashback: {exc}\n")
        return 1
    sys.stdout.write(f"{provider}: saved {masked(key)} in the OS keyring\n")
    return 0


def run_key(args: argparse.Namespace) -> int:
    keys = KeyStore()
    if args.action == "show":
        return _show(keys, args.provider)
    if args.action == "delete":
        return _delete(keys, args.provider)
    return _set(keys, args.provider)
