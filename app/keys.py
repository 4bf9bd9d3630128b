"""API keys: the OS keyring first, then environment variables; never the store or the logs.

Where no keyring backend exists (a headless Linux without Secret Service), reading simply
finds nothing and the environment variable is used; `store_key` then raises `KeyStoreError`
with what to do instead.
"""

from __future__ import annotations

import os

import keyring
from keyring.errors import KeyringError

from engine.errors import EngineError

SERVICE = "flashback"
ENV_VARS = {
    "openrouter": ("FLASHBACK_API_KEY", "OPENROUTER_API_KEY"),
    "openai": ("FLASHBACK_API_KEY", "OPENAI_API_KEY"),
    "custom": ("FLASHBACK_API_KEY",),
}
KEYLESS = ("builtin", "ollama", "llamacpp", "lmstudio")


class KeyStoreError(EngineError):
    """The key could not be saved in the OS keyring."""


def api_key_for(provider: str) -> str | None:
    if provider in KEYLESS:
        return None
    try:
        stored = keyring.get_password(SERVICE, provider)
    except KeyringError:
        stored = None  # no usable backend: fall through to the environment
    if stored:
        return stored
    for name in ENV_VARS.get(provider, ("FLASHBACK_API_KEY",)):
        if os.environ.get(name):
            return os.environ[name]
    return None


def store_key(provider: str, key: str) -> None:
    try:
        keyring.set_password(SERVICE, provider, key)
    except KeyringError as exc:
        raise KeyStoreError(
            "This system has no keyring to keep the key in. Set the FLASHBACK_API_KEY environment "
            "variable instead, or use the key for this session only.") from exc


def masked(key: str | None) -> str:
    """What may be shown of a key: its last four characters."""
    return f"…{key[-4:]}" if key and len(key) > 8 else ("set" if key else "not set")
