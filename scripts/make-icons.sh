#!/usr/bin/env bash
# Makes the app icons in public/ from public/icon.svg (needs librsvg2-bin and imagemagick from Debian).
set -euo pipefail
cd "$(dirname "$0")/../public"
for size in 180 192 512; do
  rsvg-convert -w "$size" -h "$size" icon.svg -o "icon-$size.png"
done
mv icon-180.png apple-touch-icon.png
rsvg-convert -w 48 -h 48 icon.svg -o /tmp/sitewright-icon-48.png
/usr/bin/convert /tmp/sitewright-icon-48.png -define icon:auto-resize=48,32,16 favicon.ico
rm -f /tmp/sitewright-icon-48.png
