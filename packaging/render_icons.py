"""Render every app icon from the one master SVG, `resources/icons/flashback.svg`.

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/render_icons.py          # write them
    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/render_icons.py --check  # verify them

Writes (all committed, so a build needs neither this script nor Pillow):
- `resources/icons/flashback.png` (256 px): the window icon where SVG is unavailable;
- `packaging/linux/icons/hicolor/{N}x{N}/apps/<app id>.png` for N in `HICOLOR_SIZES`, and
  `scalable/apps/<app id>.svg` (a copy of the master): the freedesktop icon theme layout;
- `packaging/windows/flashback.ico`: PNG-compressed entries (Windows Vista and later);
- `packaging/macos/flashback.icns`: PNG entries, the container written by hand.

Qt's QSvgRenderer draws the SVG (PySide6 is all it needs); the .ico and .icns containers are
a few lines of `struct`, because Qt's own ICO and ICNS writers store one image per file.
`--check` re-renders in memory and fails when a file is missing, a copy differs or a PNG
has the wrong size (pixels may differ by a Qt version's antialiasing, so they are not compared).
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

APP_ID = "io.github.flashback.Flashback"
ROOT = Path(__file__).resolve().parents[1]
MASTER = ROOT / "resources" / "icons" / "flashback.svg"
WINDOW_PNG = ROOT / "resources" / "icons" / "flashback.png"
WINDOW_PNG_SIZE = 256
HICOLOR = ROOT / "packaging" / "linux" / "icons" / "hicolor"
HICOLOR_SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO = ROOT / "packaging" / "windows" / "flashback.ico"
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # what Explorer, the taskbar and the title bar ask for
ICNS = ROOT / "packaging" / "macos" / "flashback.icns"
# ICNS entry types holding PNG data and their pixel sizes (Apple's iconutil writes the same set).
ICNS_TYPES = (
    (b"icp4", 16), (b"icp5", 32), (b"ic11", 32), (b"ic12", 64), (b"ic07", 128),
    (b"ic13", 256), (b"ic08", 256), (b"ic14", 512), (b"ic09", 512), (b"ic10", 1024),
)


def render_png(renderer: QSvgRenderer, size: int) -> bytes:
    """The master drawn at `size` × `size` pixels, as PNG bytes."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.convertToFormat(QImage.Format.Format_ARGB32).save(buffer, "PNG"):
        raise RuntimeError(f"Qt could not encode the {size} px PNG (no PNG support in this Qt?)")
    return bytes(data.data())


def ico_container(pngs: dict[int, bytes]) -> bytes:
    """An ICO file whose entries are PNG images (ICONDIR, ICONDIRENTRYs, then the data)."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(header) + 16 * len(pngs)
    entries, payload = b"", b""
    for size, png in sorted(pngs.items()):
        side = 0 if size >= 256 else size  # a byte: 0 means 256
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset + len(payload))
        payload += png
    return header + entries + payload


def icns_container(pngs: dict[int, bytes]) -> bytes:
    """An ICNS file: b"icns" + total length, then (type, length incl. 8-byte header, PNG) entries."""
    body = b"".join(kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size] for kind, size in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def outputs(renderer: QSvgRenderer) -> dict[Path, bytes]:
    """Every file this script owns, with its content."""
    sizes = {*HICOLOR_SIZES, *ICO_SIZES, WINDOW_PNG_SIZE, *(size for _, size in ICNS_TYPES)}
    pngs = {size: render_png(renderer, size) for size in sorted(sizes)}
    files = {WINDOW_PNG: pngs[WINDOW_PNG_SIZE], HICOLOR / "scalable" / "apps" / f"{APP_ID}.svg": MASTER.read_bytes()}
    for size in HICOLOR_SIZES:
        files[HICOLOR / f"{size}x{size}" / "apps" / f"{APP_ID}.png"] = pngs[size]
    files[ICO] = ico_container({size: pngs[size] for size in ICO_SIZES})
    files[ICNS] = icns_container(pngs)
    return files


def check(files: dict[Path, bytes]) -> list[str]:
    problems = []
    for path, content in files.items():
        name = path.relative_to(ROOT)
        if not path.is_file():
            problems.append(f"{name}: missing")
        elif path.suffix == ".png":
            expected, actual = QImage.fromData(content).size(), QImage(str(path)).size()
            if actual != expected:
                problems.append(f"{name}: {actual.width()}×{actual.height()}, expected {expected.width()}×"
                                f"{expected.height()}")
        elif path.suffix == ".svg" and path.read_bytes() != content:
            problems.append(f"{name}: differs from {MASTER.relative_to(ROOT)}")
        elif path.suffix in (".ico", ".icns") and path.read_bytes()[:6] != content[:6]:
            problems.append(f"{name}: a different set of images (rerun this script)")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the committed files instead of writing them")
    args = parser.parse_args(argv)
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (Qt's image plugins need one)
    renderer = QSvgRenderer(str(MASTER))
    if not renderer.isValid():
        sys.stderr.write(f"error: Qt cannot read {MASTER}\n")
        return 1
    files = outputs(renderer)
    if args.check:
        problems = check(files)
        for problem in problems:
            sys.stderr.write(f"error: {problem}\n")
        if not problems:
            sys.stdout.write(f"{len(files)} icon files match {MASTER.relative_to(ROOT)}\n")
        return 1 if problems else 0
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        sys.stdout.write(f"{path.relative_to(ROOT)}  {len(content):,} bytes\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
