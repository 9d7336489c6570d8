#!/usr/bin/env bash
# Install the system packages VizRAG needs when they are missing.
#   graphviz  -> the `dot` binaries (required by the renderer)
#   chromium  -> headless Chromium for the browser tests of the HTML viewer
#   tesseract -> the OCR program read scanned PDF pages with (the tests of the ocr extra)
#   jbig2dec  -> the decoder of JBIG2 pictures, as many scanners store a page (pypdf runs it)
#   cjk-font  -> a font with Chinese/Japanese/Korean glyphs for the PNG (optional: without
#                root or apt it only prints how to install it, and succeeds)
#   urdu-font -> a font with Urdu's letters (ے, ہ), which DejaVu Sans lacks, so Urdu labels
#                are laid out joined in the PNG (optional, as cjk-font)
# As root we install with apt; otherwise we stop with a one-line instruction.
set -euo pipefail
want="${1:?usage: ensure_system_deps.sh graphviz|chromium|tesseract|jbig2dec|cjk-font|urdu-font}"
optional=0
case "$want" in
  graphviz) probe=dot;      pkgs="graphviz fonts-dejavu-core" ;;
  chromium) probe=chromium; pkgs="chromium" ;;
  tesseract) probe=tesseract; pkgs="tesseract-ocr" ;;
  jbig2dec) probe=jbig2dec; pkgs="jbig2dec" ;;
  cjk-font) probe=cjk-font; pkgs="fontconfig fonts-wqy-microhei"; optional=1 ;;
  urdu-font) probe=urdu-font; pkgs="fontconfig fonts-hosny-amiri"; optional=1 ;;
  *) echo "unknown dependency: $want" >&2; exit 2 ;;
esac
present() {
  if [ "$probe" = cjk-font ]; then
    command -v fc-list >/dev/null 2>&1 && [ -n "$(fc-list :lang=zh 2>/dev/null)" ]
  elif [ "$probe" = urdu-font ]; then
    command -v fc-list >/dev/null 2>&1 && [ -n "$(fc-list :charset=6d2 2>/dev/null)" ]
  else
    command -v "$probe" >/dev/null 2>&1
  fi
}
present && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing $pkgs with apt-get ..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq $pkgs >/dev/null
  present || { echo "error: $probe still missing after apt-get install $pkgs" >&2; exit 1; }
elif [ "$optional" = 1 ]; then
  what="labels in Chinese/Japanese/Korean are drawn as boxes"
  [ "$probe" = urdu-font ] && what="Urdu labels are drawn letter by letter, unjoined"
  echo "note: no $probe (PNG $what); to add one: sudo apt-get install -y $pkgs" >&2
else
  echo "error: '$probe' not found; install it first: sudo apt-get install -y $pkgs" >&2
  exit 1
fi
