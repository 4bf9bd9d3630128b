"""What ships: the version is one number everywhere, the wheel's package data is declared,
and the bundle's filter keeps what the app needs (with fake binaries: the real build runs in
CI through packaging/build.sh)."""

from __future__ import annotations

import re
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import resources
from app import __version__

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packaging"))
from bundle_filter import keep_qt_translations, prune_binaries  # noqa: E402

METAINFO = ROOT / "packaging" / "linux" / "io.github.flashback.Flashback.metainfo.xml"


def test_the_version_is_the_same_in_pyproject_the_installed_metadata_the_changelog_and_appstream():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert __version__ == version
    newest = ET.parse(METAINFO).getroot().find("releases/release")
    assert newest.get("version") == version
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    first = re.search(r"^## \[([^\]]+)\] - (\d{4}-\d{2}-\d{2})", changelog, re.M)
    assert first.groups() == (version, newest.get("date"))


def test_everything_the_app_reads_at_run_time_is_package_data():
    assert resources.demo_export().stat().st_size > 100_000
    assert resources.translation("ru").stat().st_size > 1_000
    assert resources.icon("svg").read_text(encoding="utf-8").lstrip().startswith(("<svg", "<?xml"))
    assert resources.icon("png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    patterns = declared["package-data"]["resources"]
    for path in (resources.demo_export(), resources.translation("ru"), resources.icon("svg"), resources.icon("png")):
        relative = path.relative_to(ROOT / "resources").as_posix()
        assert any(Path(relative).match(pattern) for pattern in patterns), relative
    assert resources.translation("xx") is None  # a language we do not ship: None, not a crash


def test_the_bundle_drops_unwanted_qt_plugins_and_only_what_they_alone_needed():
    entries = [
        ("PySide6/Qt/plugins/platforms/libqxcb.so", "/x/libqxcb.so", "BINARY"),
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", "/x/libqgtk3.so", "BINARY"),
        ("libgtk-3.so.0", "/x/libgtk-3.so.0", "BINARY"),
        ("libglib-2.0.so.0", "/x/libglib-2.0.so.0", "BINARY"),
        ("libxcb-icccm.so.4", "/x/libxcb-icccm.so.4", "BINARY"),
    ]
    links = {"/x/libqxcb.so": ["libxcb-icccm.so.4", "libglib-2.0.so.0"],
             "/x/libqgtk3.so": ["libgtk-3.so.0", "libglib-2.0.so.0"], "/x/libgtk-3.so.0": ["libglib-2.0.so.0"]}
    kept, dropped = prune_binaries(entries, lambda path: links.get(path, []))
    assert [entry[0] for entry in kept] == ["PySide6/Qt/plugins/platforms/libqxcb.so", "libglib-2.0.so.0",
                                            "libxcb-icccm.so.4"]
    assert dropped == ["PySide6/Qt/plugins/platformthemes/libqgtk3.so", "libgtk-3.so.0"]


def test_the_bundle_keeps_qt_translations_only_for_languages_the_app_speaks():
    datas = [("PySide6/Qt/translations/qtbase_ru.qm", "a", "DATA"),
             ("PySide6/Qt/translations/qtbase_de.qm", "b", "DATA"),
             ("resources/i18n/flashback_ru.qm", "c", "DATA")]
    assert [entry[0] for entry in keep_qt_translations(datas, {"ru"})] == [
        "PySide6/Qt/translations/qtbase_ru.qm", "resources/i18n/flashback_ru.qm"]
