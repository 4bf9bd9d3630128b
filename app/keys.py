"""API keys: the OS keyring first, then environment variables; never the store or the logs.

Where no keyring backend exists (a headless Linux without Secret Service), reading simply
finds nothing and the environment variable is used; `store_key` then raises `KeyStoreError`
with what to do instead.
"""

from __future__ import annotations

import os
from types import ModuleType

from engine.api import EngineError

SERVICE = "flashback"
ENV_VARS = {
    "openrouter": ("FLASHBACK_API_KEY", "OPENROUTER_API_KEY"),
    "openai": ("FLASHBACK_API_KEY", "OPENAI_API_KEY"),
    "custom": ("FLASHBACK_API_KEY",),
    # rerank servers (issue 25): the APIs' own variables; a local one started with a key has its own,
    # so the chat key is never sent to a rerank server
    "jina": ("JINA_API_KEY",), "cohere": ("COHERE_API_KEY", "CO_API_KEY"), "voyage": ("VOYAGE_API_KEY",),
    "rerank": ("FLASHBACK_RERANK_API_KEY",),
}
KEYLESS = ("builtin", "ollama", "llamacpp", "lmstudio")
# Every key this process has read, so the crash log (app.crash) can scrub exactly these
# besides anything key-shaped. Process-wide on purpose: a key may come from any KeyStore.
_IN_USE: set[str] = set()


def _keyring() -> tuple[ModuleType, ModuleType]:
    """keyring and its errors module, imported on first use: a command that needs no key (a
    plain search) does not load the keyring's backends (~25 ms of a cold `flashback search`)."""
    import keyring
    import keyring.errors

    return keyring, keyring.errors


def _used(key: str | None) -> str | None:
    if key:
        _IN_USE.add(key)
    return key


def keys_in_use() -> list[str]:
    return sorted(_IN_USE)


class KeyStoreError(EngineError):
    """The key could not be saved in the OS keyring."""


class MissingKeyError(EngineError):
    """A remote LLM endpoint was asked for and no key is known for it."""

    def __init__(self, provider: str, env_vars: tuple[str, ...] = ()) -> None:
        names = " or ".join(env_vars) or "FLASHBACK_API_KEY"
        super().__init__(f"No API key for {provider}. Save one with `flashback key set --provider {provider}` "
                         f"(kept in the OS keyring), or set {names} in the environment.")


def api_key_for(provider: str) -> str | None:
    if provider in KEYLESS:
        return None
    keyring, errors = _keyring()
    try:
        stored = keyring.get_password(SERVICE, provider)
    except errors.KeyringError:
        stored = None  # no usable backend: fall through to the environment
    if stored:
        return _used(stored)
    for name in ENV_VARS.get(provider, ("FLASHBACK_API_KEY",)):
        if os.environ.get(name):
            return _used(os.environ[name])
    return None


def store_key(provider: str, key: str) -> None:
    keyring, errors = _keyring()
    try:
        keyring.set_password(SERVICE, provider, key)
    except errors.KeyringError as exc:
        raise KeyStoreError(
            "This system has no keyring to keep the key in. Set the FLASHBACK_API_KEY environment "
            "variable instead, or use the key for this session only.") from exc


def masked(key: str | None) -> str:
    """What may be shown of a key: its last four characters."""
    return f"…{key[-4:]}" if key and len(key) > 8 else ("set" if key else "not set")


class KeyStore:
    """What the window's key dialog talks to. A key is read from the OS keyring, else a
    session-only key (for a machine without a keyring), else the environment; it is saved
    only to the keyring or to the session, never to a file."""

    def __init__(self) -> None:
        self._session: dict[str, str] = {}

    def get(self, provider: str) -> str | None:
        if provider in KEYLESS:
            return None
        return _used(self._stored(provider) or self._session.get(provider) or self._from_env(provider))

    def source(self, provider: str) -> str | None:
        """Where the key in use comes from: "keyring", "session", "env" or None."""
        if provider in KEYLESS:
            return None
        if self._stored(provider):
            return "keyring"
        if self._session.get(provider):
            return "session"
        return "env" if self._from_env(provider) else None

    def backend_available(self) -> bool:
        keyring, errors = _keyring()
        try:
            backend = keyring.get_keyring()
        except errors.KeyringError:
            return False
        priority = getattr(backend, "priority", 0)
        return priority is not None and priority > 0 and "fail" not in type(backend).__module__

    def save(self, provider: str, key: str) -> None:
        """Into the OS keyring; raises `KeyStoreError` (saying what to do) when there is none."""
        store_key(provider, key.strip())

    def set_session(self, provider: str, key: str) -> None:
        self._session[provider] = key.strip()

    def delete(self, provider: str) -> bool:
        """Remove the keyring's key; True when there was one. Raises `KeyStoreError` when the
        system has no keyring (nothing can be stored there, so nothing was removed)."""
        self._session.pop(provider, None)
        if not self.backend_available():
            raise KeyStoreError("This system has no keyring; nothing is stored in one.")
        keyring, errors = _keyring()
        try:
            keyring.delete_password(SERVICE, provider)
        except errors.PasswordDeleteError:
            return False
        except errors.KeyringError as exc:
            raise KeyStoreError(f"The keyring refused to remove the key: {exc}") from exc
        return True

    def forget(self, provider: str) -> None:
        self._session.pop(provider, None)
        keyring, errors = _keyring()
        try:
            keyring.delete_password(SERVICE, provider)
        except errors.KeyringError:
            pass  # nothing stored, or no backend: either way the keyring holds no key now

    @staticmethod
    def env_vars(provider: str) -> tuple[str, ...]:
        return ENV_VARS.get(provider, ("FLASHBACK_API_KEY",))

    def _stored(self, provider: str) -> str | None:
        keyring, errors = _keyring()
        try:
            return keyring.get_password(SERVICE, provider) or None
        except errors.KeyringError:
            return None

    def _from_env(self, provider: str) -> str | None:
        for name in self.env_vars(provider):
            if os.environ.get(name):
                return os.environ[name]
        return None
