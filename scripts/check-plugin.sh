#!/usr/bin/env bash
# The plugin's checks: php -l on every file, phpcs with the plugin's ruleset, and its phpunit suite.
# Usage: scripts/check-plugin.sh [results-dir]  (writes phpunit.xml, a JUnit report, there)
set -uo pipefail
cd "$(dirname "$0")/.."
results="${1:-.cache/test-results}"
mkdir -p "$results"
status=0

while IFS= read -r -d '' file; do
  php -l "$file" >/dev/null || { echo "php -l failed: $file"; status=1; }
done < <(find plugin -name '*.php' -print0)
echo "php -l: checked $(find plugin -name '*.php' | wc -l) files"

# Every PHP file that ships (not tests, not the CLI) refuses direct access.
while IFS= read -r -d '' file; do
  case "$file" in
    plugin/tests/* | plugin/bin/*) continue ;;
    plugin/uninstall.php) guard="defined( 'WP_UNINSTALL_PLUGIN' ) || exit;" ;;
    *) guard="defined( 'ABSPATH' ) || exit;" ;;
  esac
  grep -qF "$guard" "$file" || { echo "no direct-access guard ($guard): $file"; status=1; }
done < <(find plugin -name '*.php' -print0)

phpcs --standard=plugin/phpcs.xml.dist -q plugin || status=1
phpunit -c plugin/phpunit.xml.dist --log-junit "$results/phpunit.xml" || status=1
exit $status
