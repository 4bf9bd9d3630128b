"""The one scrubber: secrets out of anything stored, exported, logged or shown in an error.

Used by the run traces (every string of a run before it reaches the disk), the Flash trace,
the HTTP clients' error messages (a server may echo the key it rejected), the context
export and the crash log. One placeholder, `REDACTED`, everywhere. Three rules:

- each known secret (the API key in use) is replaced wherever it occurs, inside longer
  strings too; secrets shorter than `MIN_SECRET_CHARS` are ignored, because replacing a
  one-letter "secret" would shred the trace and such a value protects nothing anyway;
- anything shaped like a credential is replaced even when nobody said it was one:
  `Bearer <token>` (an Authorization header pasted into an error message), and OpenAI /
  OpenRouter style keys `sk-…`, `sk-or-v1-…`, `sk-proj-…` (16+ key characters after `sk-`,
  so words like "sk-learn" survive);
- values under keys that name a credential (`authorization`, `api_key`, `x-api-key`,
  `password`, …) are replaced whole, whatever they look like.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 6

# No \b or look-behind in the pattern: they make it four to eight times slower on the
# 200 KB of topic text a trace carries; the word start is checked per match instead.
_BEARER = re.compile(r"(?i)(bearer)\s+[A-Za-z0-9._~+/=-]{8,}")
_KEY_SHAPED = re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}")
_CREDENTIAL_KEYS = frozenset({
    "authorization", "proxy_authorization", "api_key", "apikey", "x_api_key", "api_token",
    "access_token", "refresh_token", "password", "secret", "client_secret",
})


def _usable(secrets: Iterable[str | None]) -> list[str]:
    # Longest first, so a key that contains another known secret is removed whole.
    return sorted({s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True)


def scrub_text(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with every secret and every credential-shaped token replaced by REDACTED."""
    return _scrub_text(text, _usable(secrets))


def _scrub_text(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    text = _BEARER.sub(_bearer, text)
    return _KEY_SHAPED.sub(REDACTED, text) if "sk-" in text else text


def _bearer(match: re.Match[str]) -> str:
    start = match.start()
    if start and match.string[start - 1].isalnum():  # "forbearer …" is not a header
        return match.group(0)
    return f"{match.group(1)} {REDACTED}"


def _is_credential_key(key: str) -> bool:
    return key.strip().lower().replace("-", "_") in _CREDENTIAL_KEYS


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return _scrub_text(value, secrets)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            name = _scrub_text(str(key), secrets)
            hide = _is_credential_key(name) and isinstance(item, str) and item != ""
            out[name] = REDACTED if hide else _scrub(item, secrets)
        return out
    if isinstance(value, list):
        return [_scrub(item, secrets) for item in value]
    return value


def _plain(value: Any) -> Any:
    """json.dumps fallback: dataclasses as dicts, sets and tuples as lists, bytes by size,
    anything else by its str() (which is then scrubbed like every other string)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    return str(value)


def scrub(value: Any, secrets: Iterable[str | None] = ()) -> Any:
    """A JSON-able deep copy of `value` with secrets removed from every string and key."""
    plain = json.loads(json.dumps(value, default=_plain, ensure_ascii=False))
    return _scrub(plain, _usable(secrets))


def scrubbed_json(value: Any, secrets: Iterable[str | None] = ()) -> str:
    """`value` as JSON text, scrubbed. The text is checked once more for the raw secrets,
    in case one only appeared after serialisation (a key split across two values cannot
    be caught, but a key that JSON escaping left intact is)."""
    usable = _usable(secrets)
    text = json.dumps(scrub(value, usable), ensure_ascii=False, separators=(",", ":"))
    for secret in usable:
        text = text.replace(secret, REDACTED)
    return text
