#!/usr/bin/env bash
# Build the wheel, install it (not editable) into a fresh venv, and run `flashback
# --self-test` from an empty temporary folder: proves the wheel carries everything the
# app reads at run time (demo export, translations, icons) and needs no checkout.
# Usage: bash packaging/check_wheel.sh [PYTHON]   (default python3)
set -euo pipefail
cd "$(dirname "$0")/.."
python="${1:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$python" -m venv "$work/build-venv"
"$work/build-venv/bin/pip" install -q build
"$work/build-venv/bin/python" -m build --wheel --outdir "$work/dist" . >"$work/build.log" 2>&1 \
  || { cat "$work/build.log"; exit 1; }
wheel="$(ls "$work"/dist/flashback-*.whl)"
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$wheel"

mkdir "$work/elsewhere"
cd "$work/elsewhere"
"$work/venv/bin/flashback" --version
QT_QPA_PLATFORM=offscreen "$work/venv/bin/flashback" --self-test
echo "wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB; installed venv $(du -sm "$work/venv" | cut -f1) MiB"
