"""A folder holding only a Signal chat.md or an iMessage .html imports (issue 34): folders and
zips look at .md and .html files too, not only .json/.txt."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from engine.api import Flashback

DATA = Path(__file__).resolve().parents[2] / "data"


def test_a_signal_markdown_folder_and_an_imessage_html_zip_import(tmp_path):
    folder = tmp_path / "signal-export" / "Anna"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "signal" / "Anna" / "chat.md", folder / "chat.md")
    archive = tmp_path / "imessage.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.write(DATA / "imessage" / "Anna Example.html", "export/Anna Example.html")
    service = Flashback(tmp_path / "data")

    signal = service.imports.import_path(tmp_path / "signal-export")
    html = service.imports.import_path(archive)

    assert signal.messages_added > 0 and html.messages_added > 0
