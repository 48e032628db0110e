#!/usr/bin/env bash
# Takes a screenshot of the lab report (DIR/index.html) with headless Chromium, so a person or a
# review can look at what the report shows without a browser.
#
# usage: scripts/screenshot-report.sh [DIR] [OUT.png] [WIDTHxHEIGHT]
#   DIR defaults to lab-out, OUT.png to DIR/report.png, the window to 1280x2000.
# Needs chromium (Debian: apt-get install chromium). Touches nothing but a temporary profile.
set -euo pipefail

dir="${1:-lab-out}"
out="${2:-$dir/report.png}"
size="${3:-1280x2000}"
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
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --hide-scrollbars --user-data-dir="$profile" \
  --screenshot="$abs_out" --window-size="$window" "file://$abs_page" >/dev/null 2>&1 || true

if [ ! -s "$abs_out" ]; then
  echo "screenshot-report: chromium wrote no screenshot at \`$abs_out\`" >&2
  exit 1
fi
echo "$abs_out"
