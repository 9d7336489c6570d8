#!/usr/bin/env bash
# Install the system packages VizRAG needs when they are missing.
#   graphviz  -> the `dot` binaries (required by the renderer)
#   chromium  -> headless Chromium for the browser tests of the HTML viewer
# As root we install with apt; otherwise we stop with a one-line instruction.
set -euo pipefail
want="${1:?usage: ensure_system_deps.sh graphviz|chromium}"
case "$want" in
  graphviz) probe=dot;      pkgs="graphviz fonts-dejavu-core" ;;
  chromium) probe=chromium; pkgs="chromium" ;;
  *) echo "unknown dependency: $want" >&2; exit 2 ;;
esac
command -v "$probe" >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing $pkgs with apt-get ..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq $pkgs >/dev/null
  command -v "$probe" >/dev/null 2>&1 || { echo "error: $probe still missing after apt-get install $pkgs" >&2; exit 1; }
else
  echo "error: '$probe' not found; install it first: sudo apt-get install -y $pkgs" >&2
  exit 1
fi
