#!/usr/bin/env bash
# Takes a screenshot of the lab report (DIR/index.html) with headless Chromium, so a person or a
# review can look at what the report shows without a browser.
#
# usage: scripts/screenshot-report.sh [DIR] [OUT.png] [WIDTHxHEIGHT]
#        scripts/screenshot-report.sh DIR --sections OUTDIR [WIDTHxHEIGHT]
#   DIR defaults to lab-out, OUT.png to DIR/report.png, the window to 1280x2000. With
#   --sections, one screenshot per section of the report (OUTDIR/ID.png, the page opened at
#   `#ID`, so each starts at its section's title), the first screen (OUTDIR/top.png) included:
#   every table and chart can be looked at, at the width a reviewer reads it.
# Needs chromium (Debian: apt-get install chromium). Touches nothing but a temporary profile.
set -euo pipefail

dir="${1:-lab-out}"
sections=""
if [ "${2:-}" = "--sections" ]; then
  sections="${3:?--sections needs an output directory}"
  out="$sections/top.png"
  size="${4:-1280x2000}"
else
  out="${2:-$dir/report.png}"
  size="${3:-1280x2000}"
fi
page="$dir/index.html"

if [ ! -f "$page" ]; then
  echo "screenshot-report: no report at \`$page\`: run \`cargo run --release -- lab --quick --out $dir\` first" >&2
  exit 2
fi
browser="${CHROMIUM:-}"
if [ -z "$browser" ]; then
  for c in chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then browser="$(command -v "$c")"; break; fi
  done
fi
if [ -z "$browser" ]; then
  echo "screenshot-report: chromium not found (apt-get install chromium, or set CHROMIUM=path)" >&2
  exit 3
fi
case "$size" in
  *x*) window="${size%x*},${size#*x}" ;;
  *) echo "screenshot-report: invalid size \`$size\`: expected WIDTHxHEIGHT" >&2; exit 2 ;;
esac

profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
abs_page="$(cd "$(dirname "$page")" && pwd)/$(basename "$page")"
mkdir -p "$(dirname "$out")"
abs_out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"

# The page is self-contained (no network); the flags keep Chromium from reaching out anyway.
shoot() { # URL OUT
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$profile" \
    --screenshot="$2" --window-size="$window" "$1" >/dev/null 2>&1 || true
  if [ ! -s "$2" ]; then
    echo "screenshot-report: chromium wrote no screenshot at \`$2\`" >&2
    exit 1
  fi
  echo "$2"
}

shoot "file://$abs_page" "$abs_out"
if [ -n "$sections" ]; then
  # Headless Chromium paints only the first screen of a page opened at an anchor, so each
  # section is written to a page of its own (the report's head and that section) and shot one
  # screen at a time, the page shifted up by a screen's height each time (OUTDIR/ID-NN.png),
  # until a screen comes out empty (a near-blank PNG) or after 30 screens.
  height="${size#*x}"
  for id in $(grep -o '<section id="[^"]*"' "$page" | sed 's/.*id="\([^"]*\)"/\1/'); do
    for n in $(seq 0 29); do
      python3 - "$page" "$id" "$profile/$id.html" "$((n * height))" <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
head = html[: html.index("<body")]
m = re.search(r'<section id="%s">.*?</section>' % re.escape(sys.argv[2]), html, re.S)
shift = "<style>body{margin-top:-%spx}</style>" % sys.argv[4]
open(sys.argv[3], "w", encoding="utf-8").write(head + shift + "<body><main>" + m.group(0) + "</main></body></html>")
PY
      shot="$(dirname "$abs_out")/$id-$(printf '%02d' "$n").png"
      shoot "file://$profile/$id.html" "$shot"
      if [ "$(stat -c %s "$shot")" -lt 12000 ]; then rm -f "$shot"; break; fi
    done
  done
fi
