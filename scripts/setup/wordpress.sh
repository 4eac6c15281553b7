#!/usr/bin/env bash
# Builds (once) a plain WordPress 6.1 tree on SQLite from Debian's packages, for the local test site and the
# sandbox image. Idempotent: does nothing when the cached tree is complete; rebuilds it when anything is missing.
#
# Result: ${SITEWRIGHT_CACHE:-/var/cache/sitewright}/wordpress-6.1/
#   - WordPress 6.1.x core (Debian's wordpress package, symlinks resolved), theme twentytwentythree
#   - wp-content/plugins/sqlite-database-integration/ (from @wp-playground/cli's bundled zip, one property
#     made protected so it runs on WordPress 6.1)
#   - wp-content/db.php (the SQLite drop-in, paths relative to wp-content)
#   - no wp-config.php: each copy writes its own
#   - .sitewright-wordpress (a stamp with the versions; the tree is complete only when it exists)
# Prints the tree's path on stdout.
set -euo pipefail

CACHE="${SITEWRIGHT_CACHE:-/var/cache/sitewright}"
TREE="$CACHE/wordpress-6.1"
STAMP="$TREE/.sitewright-wordpress"
PLAYGROUND_CLI="@wp-playground/cli@3.1.56"
PLAYGROUND_TGZ="wp-playground-cli-${PLAYGROUND_CLI##*@}.tgz"
DEBS=(wordpress libjs-underscore libjs-cropper php-getid3 wordpress-theme-twentytwentythree)

log() { echo "wordpress.sh: $*" >&2; }

# Complete, and built from the inputs pinned here (a changed pin rebuilds it).
tree_ok() {
  [[ -f "$STAMP" && -f "$TREE/wp-content/db.php" && -f "$TREE/wp-settings.php" ]] && grep -qx "source=$PLAYGROUND_TGZ" "$STAMP"
}
if tree_ok; then
  echo "$TREE"
  exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.wordpress.lock"
flock 9
# Another process may have finished the build while we waited for the lock.
if tree_ok; then
  echo "$TREE"
  exit 0
fi

need() { command -v "$1" >/dev/null 2>&1; }
if ! need php || ! need unzip || ! need flock; then
  log "installing php-cli, php-sqlite3, unzip"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq php8.2-cli php8.2-sqlite3 php8.2-xml php8.2-mbstring \
    php8.2-curl php8.2-intl php8.2-gd unzip util-linux >&2
fi
if ! php -m | grep -qi '^pdo_sqlite$'; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq php8.2-sqlite3 >&2
fi

WORK="$(mktemp -d "$CACHE/.wordpress-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# 1. Debian's WordPress, offline-capable once downloaded (the .debs are kept in the cache).
DEBDIR="$CACHE/debs"
mkdir -p "$DEBDIR"
have_debs=1
for p in "${DEBS[@]}"; do
  compgen -G "$DEBDIR/${p}_*.deb" >/dev/null || have_debs=0
done
if [[ $have_debs == 0 ]]; then
  log "downloading ${DEBS[*]}"
  # apt-get download writes to the current directory; _apt cannot write to root-owned dirs, so use a 0777 one.
  DL="$WORK/dl"
  mkdir -p "$DL" && chmod 0777 "$DL"
  if ! (cd "$DL" && apt-get download "${DEBS[@]}" >&2); then
    apt-get update -qq >&2
    (cd "$DL" && apt-get download "${DEBS[@]}" >&2)
  fi
  mv "$DL"/*.deb "$DEBDIR"/
fi
for f in "$DEBDIR"/*.deb; do dpkg -x "$f" "$WORK/root"; done
# -L resolves Debian's links to shared libraries; the dangling .htaccess link (into /etc) is dropped first.
rm -f "$WORK/root/usr/share/wordpress/.htaccess"
cp -rL "$WORK/root/usr/share/wordpress" "$WORK/wp"
cp -rL "$WORK/root/usr/share/wordpress/wp-content/themes/." "$WORK/wp/wp-content/themes/"
rm -f "$WORK/wp/wp-config.php"
# Debian points the CA bundle at the system's; keep a real file so copies work anywhere.
if [[ ! -s "$WORK/wp/wp-includes/certificates/ca-bundle.crt" && -f /etc/ssl/certs/ca-certificates.crt ]]; then
  cp /etc/ssl/certs/ca-certificates.crt "$WORK/wp/wp-includes/certificates/ca-bundle.crt"
fi

# 2. The SQLite database integration, from the small npm package that bundles it (packed, not installed).
NPMDIR="$CACHE/npm"
mkdir -p "$NPMDIR"
TGZ="$NPMDIR/$PLAYGROUND_TGZ"
if [[ ! -s "$TGZ" ]]; then
  log "npm pack $PLAYGROUND_CLI"
  (cd "$NPMDIR" && npm pack --silent "$PLAYGROUND_CLI" >/dev/null)
fi
mkdir -p "$WORK/pg"
tar xzf "$TGZ" -C "$WORK/pg" package/sqlite-database-integration.zip
unzip -q "$WORK/pg/package/sqlite-database-integration.zip" -d "$WORK/pg/zip"
SQ="$WORK/wp/wp-content/plugins/sqlite-database-integration"
mv "$WORK/pg/zip/"*/ "$SQ"
# WordPress 6.1's wpdb::__get cannot read a private property of the subclass (Playground applies the same fix).
sed -i 's/private \$allow_unsafe_unquoted_parameters/protected $allow_unsafe_unquoted_parameters/' \
  "$SQ/wp-includes/sqlite/class-wp-sqlite-db.php"
grep -q 'protected \$allow_unsafe_unquoted_parameters' "$SQ/wp-includes/sqlite/class-wp-sqlite-db.php"
sed -e "s|'{SQLITE_IMPLEMENTATION_FOLDER_PATH}'|__DIR__ . '/plugins/sqlite-database-integration'|" \
    -e "s|{SQLITE_PLUGIN}|sqlite-database-integration/load.php|g" \
    "$SQ/db.copy" > "$WORK/wp/wp-content/db.php"

WP_VERSION="$(php -r 'include $argv[1]; echo $wp_version;' "$WORK/wp/wp-includes/version.php")"
SQ_VERSION="$(sed -n 's/^ \* Version: //p' "$SQ/load.php" | head -n1)"
printf 'wordpress=%s\nsqlite-database-integration=%s\nsource=%s\n' "$WP_VERSION" "$SQ_VERSION" "$(basename "$TGZ")" \
  > "$WORK/wp/.sitewright-wordpress"

rm -rf "$TREE"
mv "$WORK/wp" "$TREE"
log "built WordPress $WP_VERSION with SQLite integration $SQ_VERSION in $TREE"
echo "$TREE"
