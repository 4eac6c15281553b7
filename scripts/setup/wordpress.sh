#!/usr/bin/env bash
# Builds (once) plain WordPress trees on SQLite, and caches the page-builder plugins the tests use.
#
#   scripts/setup/wordpress.sh              # or "6.1": WordPress 6.1 from Debian's packages (the sandbox image's)
#   scripts/setup/wordpress.sh 7.1          # WordPress 7.1 from ../shared/fixtures (or wordpress.org), same SQLite
#   scripts/setup/wordpress.sh --plugin elementor   # Elementor 4.2.2, unpacked (the directory to copy)
#
# Idempotent: does nothing when the cached tree is complete and built from the same inputs; rebuilds it otherwise.
# Prints the tree's (or the plugin's) path on stdout; progress goes to stderr.
#
# Result: ${SITEWRIGHT_CACHE:-/var/cache/sitewright}/wordpress-<version>/
#   - WordPress core (6.1: Debian's wordpress package, symlinks resolved, theme twentytwentythree; 7.1: the release
#     zip, themes twentytwentyfive/four/three)
#   - wp-content/plugins/sqlite-database-integration/ (from @wp-playground/cli's bundled zip, one property
#     made protected so it runs on WordPress 6.1)
#   - wp-content/db.php (the SQLite drop-in, paths relative to wp-content)
#   - no wp-config.php: each copy writes its own
#   - .sitewright-wordpress (a stamp with the versions and the inputs; the tree is complete only when it exists)
# and ${SITEWRIGHT_CACHE}/plugins/elementor-4.2.2/ (the plugin's directory, with its own stamp).
#
# Downloads are checked before use (docs/wordpress-versions.md): a fixture zip against ../shared/fixtures/SHA256SUMS;
# a wordpress.org core zip against the SHA-1 wordpress.org publishes beside it (<zip>.sha1); a plugin zip from
# downloads.wordpress.org file by file against the plugin directory's published checksums
# (downloads.wordpress.org/plugin-checksums/<slug>/<version>.json, SHA-256 per file).
set -euo pipefail

CACHE="${SITEWRIGHT_CACHE:-/var/cache/sitewright}"
HERE="$(cd "$(dirname "$0")" && pwd)"
# The project's shared fixtures (../shared from the repository's root); absent on a machine without them.
FIXTURES="${SITEWRIGHT_FIXTURES:-$HERE/../../../shared/fixtures}"
# Where missing releases come from (a test points these at a local server).
CORE_DOWNLOADS="${SITEWRIGHT_CORE_DOWNLOADS:-https://wordpress.org}"
PLUGIN_DOWNLOADS="${SITEWRIGHT_PLUGIN_DOWNLOADS:-https://downloads.wordpress.org}"
PLAYGROUND_CLI="@wp-playground/cli@3.1.56"
PLAYGROUND_TGZ="wp-playground-cli-${PLAYGROUND_CLI##*@}.tgz"
DEBS=(wordpress libjs-underscore libjs-cropper php-getid3 wordpress-theme-twentytwentythree)
# The plugins the tests may add to a site: slug=version.
declare -A PLUGINS=([elementor]=4.2.2)

log() { echo "wordpress.sh: $*" >&2; }
die() { log "$*"; exit 1; }
need() { command -v "$1" >/dev/null 2>&1; }

TARGET="${1:-6.1}"
case "$TARGET" in
  6.1 | 7.1) ;;
  --plugin)
    SLUG="${2:-}"
    [[ -n "$SLUG" && -n "${PLUGINS[$SLUG]:-}" ]] || die "unknown plugin '${SLUG}' (known: ${!PLUGINS[*]})"
    ;;
  *) die "usage: wordpress.sh [6.1|7.1] | --plugin <$(tr ' ' '|' <<<"${!PLUGINS[*]}")>" ;;
esac

# The SHA-256 that ../shared/fixtures/SHA256SUMS gives for a file, or nothing when the fixture is absent.
fixture_sum() {
  [[ -f "$FIXTURES/$1" && -f "$FIXTURES/SHA256SUMS" ]] || return 0
  awk -v f="$1" '$2 == f || $2 == "*" f { print $1 }' "$FIXTURES/SHA256SUMS"
}

# What a cached build must have been built from: the fixture's sum when the fixture is here (a changed fixture
# rebuilds), else any checked download of the same version.
wanted_source() {
  local sum
  sum="$(fixture_sum "$1")"
  if [[ -n "$sum" ]]; then echo "zip=fixture:sha256:$sum"; else echo "zip=wordpress.org:"; fi
}

stamp_has() { [[ -f "$1" ]] && grep -q "^$2" "$1"; }

# Complete, and built from the inputs pinned here (a changed pin rebuilds it).
tree_ok() {
  local tree="$CACHE/wordpress-$TARGET" stamp="$CACHE/wordpress-$TARGET/.sitewright-wordpress"
  [[ -f "$stamp" && -f "$tree/wp-content/db.php" && -f "$tree/wp-settings.php" ]] || return 1
  grep -qx "source=$PLAYGROUND_TGZ" "$stamp" || return 1
  [[ "$TARGET" == 6.1 ]] || stamp_has "$stamp" "$(wanted_source "wordpress-$TARGET.zip")"
}
plugin_ok() {
  local dir="$CACHE/plugins/$SLUG-${PLUGINS[$SLUG]}"
  [[ -d "$dir/$SLUG" ]] && stamp_has "$dir/.sitewright-plugin" "$(wanted_source "$SLUG-${PLUGINS[$SLUG]}.zip")"
}
result() { if [[ "$TARGET" == --plugin ]]; then echo "$CACHE/plugins/$SLUG-${PLUGINS[$SLUG]}/$SLUG"; else echo "$CACHE/wordpress-$TARGET"; fi; }
ready() { if [[ "$TARGET" == --plugin ]]; then plugin_ok; else tree_ok; fi; }

if ready; then
  result
  exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.wordpress.lock"
flock 9
# Another process may have finished the build while we waited for the lock.
if ready; then
  result
  exit 0
fi

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

download() {
  log "downloading $1"
  curl -fsSL --retry 2 --max-time 600 -o "$2" "$1" || die "could not download $1"
}

# Copies the fixture <name> to <dest> after checking its SHA-256; prints the source line for the stamp.
# Returns 1 when there is no such fixture.
from_fixture() {
  local name=$1 dest=$2 sum got
  sum="$(fixture_sum "$name")"
  if [[ -z "$sum" ]]; then
    [[ -f "$FIXTURES/$name" ]] && die "$FIXTURES/$name has no line in $FIXTURES/SHA256SUMS"
    return 1
  fi
  got="$(sha256sum "$FIXTURES/$name" | cut -d' ' -f1)"
  [[ "$got" == "$sum" ]] || die "$FIXTURES/$name: SHA-256 $got, SHA256SUMS says $sum; not using it"
  cp "$FIXTURES/$name" "$dest"
  echo "zip=fixture:sha256:$sum"
}

# The core release zip: the fixture, else wordpress.org's, checked against the SHA-1 published beside it.
core_zip() {
  local name="wordpress-$1.zip" dest=$2 want got
  from_fixture "$name" "$dest" && return 0
  download "$CORE_DOWNLOADS/$name.sha1" "$WORK/$name.sha1"
  want="$(tr -dc '0-9a-f' <"$WORK/$name.sha1")"
  [[ ${#want} == 40 ]] || die "$CORE_DOWNLOADS/$name.sha1 holds no SHA-1"
  download "$CORE_DOWNLOADS/$name" "$dest"
  got="$(sha1sum "$dest" | cut -d' ' -f1)"
  [[ "$got" == "$want" ]] || die "$CORE_DOWNLOADS/$name: SHA-1 $got, wordpress.org publishes $want; not using it"
  echo "zip=wordpress.org:sha1:$want"
}

# Every file of an unpacked plugin against the plugin directory's published checksums (SHA-256 per file; a file
# the list lacks, or a listed file missing, fails too).
check_plugin_files() {
  php -r '
    $list = json_decode( (string) file_get_contents( $argv[1] ), true );
    $dir  = rtrim( $argv[2], "/" );
    $want = is_array( $list ) && isset( $list["files"] ) && is_array( $list["files"] ) ? $list["files"] : array();
    $bad  = array() === $want ? array( "(no checksums published)" ) : array();
    foreach ( $want as $file => $sums ) {
      $path = "$dir/$file";
      if ( ! is_file( $path ) || ! in_array( hash_file( "sha256", $path ), (array) ( $sums["sha256"] ?? array() ), true ) ) {
        $bad[] = $file;
      }
    }
    $all = new RecursiveIteratorIterator( new RecursiveDirectoryIterator( $dir, FilesystemIterator::SKIP_DOTS ) );
    foreach ( $all as $file ) {
      $relative = substr( $file->getPathname(), strlen( $dir ) + 1 );
      if ( ! isset( $want[ $relative ] ) ) { $bad[] = $relative . " (not in the list)"; }
    }
    foreach ( array_slice( $bad, 0, 20 ) as $file ) { fwrite( STDERR, "checksum mismatch: $file\n" ); }
    exit( array() === $bad ? 0 : 1 );
  ' "$1" "$2"
}

# The SQLite database integration, from the small npm package that bundles it (packed, not installed), into the
# tree <wp> with its db.php drop-in.
add_sqlite() {
  local wp=$1 npmdir="$CACHE/npm" tgz sq
  mkdir -p "$npmdir"
  tgz="$npmdir/$PLAYGROUND_TGZ"
  if [[ ! -s "$tgz" ]]; then
    log "npm pack $PLAYGROUND_CLI"
    (cd "$npmdir" && npm pack --silent "$PLAYGROUND_CLI" >/dev/null)
  fi
  rm -rf "$WORK/pg" && mkdir -p "$WORK/pg"
  tar xzf "$tgz" -C "$WORK/pg" package/sqlite-database-integration.zip
  unzip -q "$WORK/pg/package/sqlite-database-integration.zip" -d "$WORK/pg/zip"
  sq="$wp/wp-content/plugins/sqlite-database-integration"
  mv "$WORK/pg/zip/"*/ "$sq"
  # WordPress 6.1's wpdb::__get cannot read a private property of the subclass (Playground applies the same fix).
  sed -i 's/private \$allow_unsafe_unquoted_parameters/protected $allow_unsafe_unquoted_parameters/' \
    "$sq/wp-includes/sqlite/class-wp-sqlite-db.php"
  grep -q 'protected \$allow_unsafe_unquoted_parameters' "$sq/wp-includes/sqlite/class-wp-sqlite-db.php"
  sed -e "s|'{SQLITE_IMPLEMENTATION_FOLDER_PATH}'|__DIR__ . '/plugins/sqlite-database-integration'|" \
      -e "s|{SQLITE_PLUGIN}|sqlite-database-integration/load.php|g" \
      "$sq/db.copy" > "$wp/wp-content/db.php"
}

# Debian's WordPress 6.1, offline-capable once downloaded (the .debs are kept in the cache), into <wp>.
core_from_debian() {
  local wp=$1 debdir="$CACHE/debs" have_debs=1 dl p f
  mkdir -p "$debdir"
  for p in "${DEBS[@]}"; do
    compgen -G "$debdir/${p}_*.deb" >/dev/null || have_debs=0
  done
  if [[ $have_debs == 0 ]]; then
    log "downloading ${DEBS[*]}"
    # apt-get download writes to the current directory; _apt cannot write to root-owned dirs, so use a 0777 one.
    dl="$WORK/dl"
    mkdir -p "$dl" && chmod 0777 "$dl"
    if ! (cd "$dl" && apt-get download "${DEBS[@]}" >&2); then
      apt-get update -qq >&2
      (cd "$dl" && apt-get download "${DEBS[@]}" >&2)
    fi
    mv "$dl"/*.deb "$debdir"/
  fi
  for f in "$debdir"/*.deb; do dpkg -x "$f" "$WORK/root"; done
  # -L resolves Debian's links to shared libraries; the dangling .htaccess link (into /etc) is dropped first.
  rm -f "$WORK/root/usr/share/wordpress/.htaccess"
  cp -rL "$WORK/root/usr/share/wordpress" "$wp"
  cp -rL "$WORK/root/usr/share/wordpress/wp-content/themes/." "$wp/wp-content/themes/"
  rm -f "$wp/wp-config.php"
  # Debian points the CA bundle at the system's; keep a real file so copies work anywhere.
  if [[ ! -s "$wp/wp-includes/certificates/ca-bundle.crt" && -f /etc/ssl/certs/ca-certificates.crt ]]; then
    cp /etc/ssl/certs/ca-certificates.crt "$wp/wp-includes/certificates/ca-bundle.crt"
  fi
}

build_tree() {
  local tree="$CACHE/wordpress-$TARGET" wp="$WORK/wp" source="" wp_version sq_version
  if [[ "$TARGET" == 6.1 ]]; then
    core_from_debian "$wp"
  else
    source="$(core_zip "$TARGET" "$WORK/core.zip")"
    unzip -q "$WORK/core.zip" -d "$WORK/core"
    [[ -f "$WORK/core/wordpress/wp-settings.php" ]] || die "wordpress-$TARGET.zip has no wordpress/ inside"
    mv "$WORK/core/wordpress" "$wp"
  fi
  add_sqlite "$wp"
  wp_version="$(php -r 'include $argv[1]; echo $wp_version;' "$wp/wp-includes/version.php")"
  [[ "$wp_version" == "$TARGET" || "$wp_version" == "$TARGET".* ]] || die "asked for $TARGET, the zip holds $wp_version"
  sq_version="$(sed -n 's/^ \* Version: //p' "$wp/wp-content/plugins/sqlite-database-integration/load.php" | head -n1)"
  {
    printf 'wordpress=%s\nsqlite-database-integration=%s\nsource=%s\n' "$wp_version" "$sq_version" "$PLAYGROUND_TGZ"
    [[ -z "$source" ]] || echo "$source"
  } > "$wp/.sitewright-wordpress"
  rm -rf "$tree"
  mv "$wp" "$tree"
  log "built WordPress $wp_version with SQLite integration $sq_version in $tree"
}

build_plugin() {
  local version="${PLUGINS[$SLUG]}" dir name source
  dir="$CACHE/plugins/$SLUG-$version"
  name="$SLUG-$version.zip"
  if ! source="$(from_fixture "$name" "$WORK/plugin.zip")"; then
    download "$PLUGIN_DOWNLOADS/plugin/$SLUG.$version.zip" "$WORK/plugin.zip"
  fi
  unzip -q "$WORK/plugin.zip" -d "$WORK/plugin"
  [[ -d "$WORK/plugin/$SLUG" ]] || die "$name has no $SLUG/ inside"
  if [[ -z "$source" ]]; then
    download "$PLUGIN_DOWNLOADS/plugin-checksums/$SLUG/$version.json" "$WORK/checksums.json"
    check_plugin_files "$WORK/checksums.json" "$WORK/plugin/$SLUG" ||
      die "$SLUG $version from $PLUGIN_DOWNLOADS does not match its published checksums; not using it"
    source="zip=wordpress.org:plugin-checksums:$version"
  fi
  mkdir -p "$WORK/out"
  mv "$WORK/plugin/$SLUG" "$WORK/out/$SLUG"
  printf 'plugin=%s\nversion=%s\n%s\n' "$SLUG" "$version" "$source" > "$WORK/out/.sitewright-plugin"
  mkdir -p "$CACHE/plugins"
  rm -rf "$dir"
  mv "$WORK/out" "$dir"
  log "cached $SLUG $version in $dir"
}

if [[ "$TARGET" == --plugin ]]; then build_plugin; else build_tree; fi
result
