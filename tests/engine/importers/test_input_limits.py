"""Issue 34: what the user points at is bounded before anything is read or unpacked.

A zip's exports are checked together (a bomb split into members each under the per-member
floor; more than the bound in all; more than the disk holds) before the first is written;
devices, pipes and sockets are refused without being opened; an empty file and a zip cut
short each get their own sentence; a folder or zip of more than 200 exports gives them all."""

from __future__ import annotations

import os
import socket
import zipfile
from pathlib import Path

import pytest

from engine.errors import ImportFormatError
from engine.importers import inputs
from engine.importers.inputs import resolve_inputs


def zip_of(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as bundle:
        for name, data in members.items():
            bundle.writestr(name, data)
    return path


def test_members_that_are_a_bomb_together_are_refused_before_one_is_unpacked(tmp_path):
    archive = zip_of(tmp_path / "bomb.zip", {f"chat{n}.txt": b"\0" * (3 * 1024 * 1024) for n in range(30)})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with pytest.raises(ImportFormatError) as caught:
        inputs._zip_inputs(archive, scratch)
    assert caught.value.source == "bomb.zip" and "zip bomb" in caught.value.problem
    assert list(scratch.iterdir()) == []  # nothing was unpacked


def test_exports_past_the_bound_in_all_are_refused_before_one_is_unpacked(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs, "_MAX_UNPACKED", 3000)  # the bound is 8 GiB; the rule is the same
    archive = zip_of(tmp_path / "big.zip", {"a.json": os.urandom(2000), "b.json": os.urandom(2000)},
                     zipfile.ZIP_STORED)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with pytest.raises(ImportFormatError) as caught:
        inputs._zip_inputs(archive, scratch)
    assert caught.value.source == "big.zip"
    assert caught.value.problem.startswith("its exports would unpack to 4 KB in all, more than the 3 KB")
    assert list(scratch.iterdir()) == []


def test_a_zip_is_unpacked_only_when_all_its_exports_fit_the_disk(tmp_path, monkeypatch):
    """Measured against the free space once, for all of them: each alone would fit."""
    archive = zip_of(tmp_path / "export.zip", {"a.json": os.urandom(2000), "b.json": os.urandom(2000)},
                     zipfile.ZIP_STORED)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    real = inputs.shutil.disk_usage
    monkeypatch.setattr(inputs.shutil, "disk_usage", lambda where: real(where)._replace(free=3000))
    with pytest.raises(ImportFormatError) as caught:
        inputs._zip_inputs(archive, scratch)
    assert "unpacks to 4 KB" in caught.value.problem and "3 KB free" in caught.value.problem
    assert list(scratch.iterdir()) == []


def test_more_than_200_exports_in_a_zip_are_all_given(tmp_path):
    archive = zip_of(tmp_path / "many.zip", {f"chats/{n:03d}.txt": b"x" for n in range(250)})
    with resolve_inputs(archive) as found:
        assert len(found) == 250


def test_more_than_200_exports_in_a_folder_are_all_given(tmp_path):
    for n in range(250):
        (tmp_path / f"{n:03d}.txt").write_text("x")
    with resolve_inputs(tmp_path) as found:
        assert len(found) == 250


def refusal(path: Path) -> ImportFormatError:
    with pytest.raises(ImportFormatError) as caught, resolve_inputs(path):
        pass
    return caught.value


def test_a_device_is_refused_without_being_read():
    assert refusal(Path("/dev/zero")).problem.startswith("this is a device, a pipe or a socket")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_without_being_opened(tmp_path):
    os.mkfifo(tmp_path / "result.json")  # opening it for reading would wait for a writer forever
    assert refusal(tmp_path / "result.json").problem.startswith("this is a device, a pipe or a socket")


def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "s.json"
    if len(str(path)) > 100:
        pytest.skip("socket paths are short")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        assert refusal(path).problem.startswith("this is a device, a pipe or a socket")
    finally:
        server.close()


def test_an_empty_file_and_a_zip_cut_short_say_different_things(tmp_path):
    empty = tmp_path / "result.json"
    empty.write_bytes(b"")
    whole = zip_of(tmp_path / "whole.zip", {"result.json": b'{"messages": []}' * 100})
    cut = tmp_path / "export.zip"
    cut.write_bytes(whole.read_bytes()[:40])
    assert refusal(empty).problem == "the file is empty (0 bytes): export the chat again"
    assert refusal(cut).problem.startswith("the zip archive is damaged: its table of contents cannot be read")
