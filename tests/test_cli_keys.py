"""`flashback key` says what is true: on a machine without a keyring, and with a working one
(a file-backed test backend chosen through keyring's own PYTHON_KEYRING_BACKEND)."""

from __future__ import annotations

import subprocess

import pytest

from tests.cli_run import flashback, one_sentence

KEY = "sk-or-v1-keys-test-key-0123456789"
NO_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}


@pytest.fixture
def keyring_file(tmp_path):
    path = tmp_path / "keyring.json"
    return {"PYTHON_KEYRING_BACKEND": "tests.file_keyring.FileKeyring", "FLASHBACK_TEST_KEYRING": str(path)}


def test_without_a_keyring_show_and_delete_say_so(tmp_path):
    shown = flashback("key", "show", data_dir=tmp_path, env=NO_KEYRING)
    assert shown.returncode == 0 and "from none" not in shown.stdout
    assert "not set" in shown.stdout and "no keyring" in shown.stdout and "FLASHBACK_API_KEY" in shown.stdout
    deleted = flashback("key", "delete", data_dir=tmp_path, env=NO_KEYRING)
    assert deleted.stdout == "openrouter: no keyring on this system; nothing stored\n"
    saved = flashback("key", "set", data_dir=tmp_path, env=NO_KEYRING, stdin=None)
    assert saved.returncode == 1 and one_sentence(saved.stderr) and "FLASHBACK_API_KEY" in saved.stderr


def test_a_key_from_the_environment_says_where_it_comes_from(tmp_path):
    shown = flashback("key", "show", data_dir=tmp_path, env={**NO_KEYRING, "FLASHBACK_API_KEY": KEY})
    assert shown.stdout == "openrouter: …6789 (from the environment)\n"


def test_set_with_nothing_on_standard_input_changes_nothing(tmp_path, keyring_file):
    result = flashback("key", "set", data_dir=tmp_path, env=keyring_file, stdin=subprocess.DEVNULL)
    assert result.returncode == 1 and one_sentence(result.stderr) and "no key was entered" in result.stderr


def test_set_show_delete_with_a_keyring(tmp_path, keyring_file):
    saved = flashback("key", "set", data_dir=tmp_path, env=keyring_file, input=f"{KEY}\n")  # echo KEY | …
    assert saved.returncode == 0 and saved.stdout == "openrouter: saved …6789 in the OS keyring\n", saved.stderr
    shown = flashback("key", "show", data_dir=tmp_path, env=keyring_file)
    assert shown.stdout == "openrouter: …6789 (from the OS keyring)\n"
    assert flashback("key", "delete", data_dir=tmp_path, env=keyring_file).stdout == \
        "openrouter: removed from the keyring\n"
    again = flashback("key", "delete", data_dir=tmp_path, env={**keyring_file, "FLASHBACK_API_KEY": KEY})
    assert again.stdout == ("openrouter: nothing stored in the keyring; a key is still set in the environment "
                            "(FLASHBACK_API_KEY or OPENROUTER_API_KEY)\n")

