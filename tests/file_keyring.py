"""A keyring backend for CLI tests: a JSON file named by $FLASHBACK_TEST_KEYRING.

Selected in a child process with PYTHON_KEYRING_BACKEND=tests.file_keyring.FileKeyring
(keyring's own switch), so `flashback key set/show/delete` run against a real, working
backend on a machine that has none, and the test can look at what was stored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class FileKeyring(KeyringBackend):
    priority = 1

    def _path(self) -> Path:
        return Path(os.environ["FLASHBACK_TEST_KEYRING"])

    def _load(self) -> dict:
        path = self._path()
        return json.loads(path.read_text()) if path.exists() else {}

    def _save(self, data: dict) -> None:
        self._path().write_text(json.dumps(data))

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}/{username}"] = password
        self._save(data)

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError("no such password")
        self._save(data)
