#!/usr/bin/env bash
# Validate the desktop entry and the AppStream metainfo with the freedesktop tools
# (Debian: desktop-file-utils, appstream). Where a validator is missing, say so and skip it:
# CI installs both, a developer's machine may not have them.
set -euo pipefail
cd "$(dirname "$0")"
status=0
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate ./*.desktop && echo "desktop-file-validate: ok" || status=1
else
  echo "desktop-file-validate not found (apt-get install desktop-file-utils): skipped"
fi
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net ./*.metainfo.xml || status=1
else
  echo "appstreamcli not found (apt-get install appstream): skipped"
fi
exit "$status"
