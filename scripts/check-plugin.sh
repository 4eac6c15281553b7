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

phpcs --standard=plugin/phpcs.xml.dist -q plugin || status=1
phpunit -c plugin/phpunit.xml.dist --log-junit "$results/phpunit.xml" || status=1
exit $status
