#!/usr/bin/env bash
# The plugin's checks: php -l on every file, phpcs with the plugin's ruleset, and its phpunit suite on each
# WordPress version the suite supports (6.1 and 7.1; docs/wordpress-versions.md).
# Usage: scripts/check-plugin.sh [results-dir]  (writes JUnit reports there: phpunit.xml for 6.1, phpunit-7.1.xml)
# SITEWRIGHT_CHECK_WORDPRESS="6.1" (or "7.1") runs phpunit on one version only.
set -uo pipefail
cd "$(dirname "$0")/.."
results="${1:-.cache/test-results}"
mkdir -p "$results"
status=0
versions="${SITEWRIGHT_CHECK_WORDPRESS:-6.1 7.1}"

# The newer versions' runs start first and in the background (each run spends much of its time in WordPress's
# install and SQLite, so two overlap well on two cores); their output is printed when they end.
declare -A runs=()
for version in $versions; do
  [[ "$version" == 6.1 ]] && continue
  SITEWRIGHT_WORDPRESS="$version" phpunit -c plugin/phpunit.xml.dist --log-junit "$results/phpunit-$version.xml" \
    > "$results/phpunit-$version.log" 2>&1 &
  runs[$version]=$!
done

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
if [[ " $versions " == *" 6.1 "* ]]; then
  echo "phpunit on WordPress 6.1:"
  SITEWRIGHT_WORDPRESS=6.1 phpunit -c plugin/phpunit.xml.dist --log-junit "$results/phpunit.xml" || status=1
fi
for version in "${!runs[@]}"; do
  wait "${runs[$version]}" || status=1
  echo "phpunit on WordPress $version:"
  cat "$results/phpunit-$version.log"
done
exit $status
