"""What the spec leaves out of the bundle after PyInstaller's analysis (Linux only).

PyInstaller's PySide6 hooks collect every plugin of each type QtGui asks for, and then every
system library those plugins link to. Some of them a desktop app never loads, and one does
harm: the GTK 3 platform theme links GTK itself, which the build machine may lack, so the
bundle would carry GLib, Cairo and Pango without GTK; on a GNOME desktop the plugin would then
load the system's GTK against the bundle's older GLib. Without it Qt draws its own
(Fusion-style) dialogs and reads the colour scheme through the XDG desktop portal.

`prune_binaries` drops the unwanted plugins and then every library that only they needed
(found by following each kept file's link-time dependencies, so libraries loaded with
`dlopen`, which nothing links to, stay). `keep_qt_translations` keeps Qt's own catalogues only
for the languages the app ships a translation for.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable

Entry = tuple[str, str, str]  # PyInstaller TOC: (name in the bundle, source path, typecode)

# Qt plugins for embedded devices (EGLFS, framebuffer, VNC, evdev input) or that pull in a
# half-bundled GTK; the xcb, wayland and offscreen platforms and the XDG portal theme stay.
UNWANTED_PLUGINS = re.compile(
    r"PySide6/Qt/plugins/("
    r"platformthemes/libqgtk3\.so"
    r"|egldeviceintegrations/.*"
    r"|generic/.*"
    r"|platforms/libq(eglfs|linuxfb|minimal|minimalegl|vkkhrdisplay|vnc)\.so"
    r")$"
)


def prune_binaries(binaries: Iterable[Entry], imports: Callable[[str], Iterable[str]],
                   unwanted: re.Pattern = UNWANTED_PLUGINS) -> tuple[list[Entry], list[str]]:
    """(`binaries` without the unwanted plugins and what only they needed, names dropped).

    `imports(path)` gives the file names a binary links to (PyInstaller's `bindepend`).
    """
    entries = list(binaries)
    by_base: dict[str, list[Entry]] = {}
    for entry in entries:
        by_base.setdefault(os.path.basename(entry[0]), []).append(entry)
    needs = {entry: [dep for name in imports(entry[1]) for dep in by_base.get(os.path.basename(name), [])]
             for entry in entries}
    needed_by_something = {dep for deps in needs.values() for dep in deps}
    # Roots: what nothing links to (extension modules, plugins, libpython, dlopen'ed libraries).
    roots = [entry for entry in entries
             if entry not in needed_by_something and not unwanted.search(entry[0].replace(os.sep, "/"))]
    kept: set[Entry] = set()
    stack = list(roots)
    while stack:
        entry = stack.pop()
        if entry not in kept:
            kept.add(entry)
            stack.extend(needs[entry])
    return [e for e in entries if e in kept], sorted(e[0] for e in entries if e not in kept)


def keep_qt_translations(datas: Iterable[Entry], languages: Iterable[str]) -> list[Entry]:
    """`datas` with Qt's own `.qm` files kept only for `languages` (e.g. {"ru"})."""
    suffixes = tuple(f"_{language}.qm" for language in languages)
    kept = []
    for entry in datas:
        name = entry[0].replace(os.sep, "/")
        if name.startswith("PySide6/Qt/translations/") and not name.endswith(suffixes):
            continue
        kept.append(entry)
    return kept
