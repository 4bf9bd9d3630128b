#!/usr/bin/env sh
# Put Flashback in the desktop's launcher: the .desktop entry, the AppStream metainfo and the
# hicolor icons, for one user (default) or under a prefix. Needs no root for a user install.
#
#   pipx install /path/to/flashback && packaging/linux/install-desktop.sh
#   Flashback/desktop/install-desktop.sh                  # from an unpacked bundle tarball
#   packaging/linux/install-desktop.sh --prefix /usr/local  # system-wide (as root)
#   packaging/linux/install-desktop.sh --uninstall
#
# Options: --prefix DIR    install under DIR/share (also: PREFIX=DIR in the environment);
#                          default ${XDG_DATA_HOME:-~/.local/share}
#          --exec COMMAND  what the launcher runs; default: the bundle's executable beside
#                          this folder, else `flashback` found on PATH (an absolute path, since a
#                          desktop session's PATH often lacks ~/.local/bin), else plain `flashback`
#          --uninstall     remove what an install put there
set -eu

APP_ID=io.github.flashback.Flashback
HERE=$(cd "$(dirname "$0")" && pwd)
PREFIX=${PREFIX:-}
EXEC=
UNINSTALL=0

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX=${2:?--prefix needs a folder}; shift 2 ;;
    --prefix=*) PREFIX=${1#--prefix=}; shift ;;
    --exec) EXEC=${2:?--exec needs a command}; shift 2 ;;
    --exec=*) EXEC=${1#--exec=}; shift ;;
    --uninstall) UNINSTALL=1; shift ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-desktop.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
done

if [ -n "$PREFIX" ]; then
  DATA=$PREFIX/share
else
  DATA=${XDG_DATA_HOME:-$HOME/.local/share}
fi

refresh_caches() {
  # Launchers watch these folders; the caches make new entries and icons show at once.
  if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$DATA/applications" 2>/dev/null || true
  fi
  touch "$DATA/icons/hicolor" 2>/dev/null || true
  if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$DATA/icons/hicolor/index.theme" ]; then
    gtk-update-icon-cache -q -t -f "$DATA/icons/hicolor" 2>/dev/null || true
  fi
}

icon_files() {
  # Paths relative to icons/hicolor, e.g. 48x48/apps/<id>.png and scalable/apps/<id>.svg.
  (cd "$HERE/icons/hicolor" && find . -type f -name "$APP_ID.*" | sed 's|^\./||')
}

if [ "$UNINSTALL" = 1 ]; then
  rm -f "$DATA/applications/$APP_ID.desktop" "$DATA/metainfo/$APP_ID.metainfo.xml"
  for icon in $(icon_files); do
    rm -f "$DATA/icons/hicolor/$icon"
  done
  refresh_caches
  echo "Removed Flashback's launcher entry from $DATA"
  exit 0
fi

if [ -z "$EXEC" ]; then
  if [ -x "$HERE/../flashback" ] && [ -f "$HERE/../flashback" ]; then
    EXEC=$(cd "$HERE/.." && pwd)/flashback  # an unpacked bundle: Flashback/desktop/ beside Flashback/flashback
  elif command -v flashback >/dev/null 2>&1; then
    EXEC=$(command -v flashback)
  else
    EXEC=flashback
    echo "warning: no 'flashback' on PATH; the launcher will run plain 'flashback' (install it, or pass --exec)" >&2
  fi
fi
case "$EXEC" in
  *[[:space:]\"\'\\\`\$]*) echo "install-desktop.sh: --exec '$EXEC' has a space or a quote; move it or link it" >&2; exit 2 ;;
esac

mkdir -p "$DATA/applications" "$DATA/metainfo"
sed "s|^Exec=.*|Exec=$EXEC|" "$HERE/$APP_ID.desktop" > "$DATA/applications/$APP_ID.desktop"
chmod 644 "$DATA/applications/$APP_ID.desktop"
cp "$HERE/$APP_ID.metainfo.xml" "$DATA/metainfo/$APP_ID.metainfo.xml"
for icon in $(icon_files); do
  mkdir -p "$DATA/icons/hicolor/$(dirname "$icon")"
  cp "$HERE/icons/hicolor/$icon" "$DATA/icons/hicolor/$icon"
done
refresh_caches
echo "Installed Flashback's launcher entry in $DATA (Exec=$EXEC)"
