#!/bin/sh
# Starts one sandbox: a fresh copy of the preinstalled database and per-container salts in /data (a tmpfs),
# then PHP's built-in server. Runs as the unprivileged sandbox user on a read-only root.
set -eu
umask 077
mkdir -p /data/database /data/uploads /data/login /data/tmp
cp /srv/seed/wordpress.sqlite /data/database/.ht.sqlite
# Eight salts of 48 random bytes each (64 base64 characters a line), from two processes: every process started here
# is on a cold start's path.
head -c 384 /dev/urandom | base64 -w 64 | {
  echo '<?php'
  for key in AUTH_KEY SECURE_AUTH_KEY LOGGED_IN_KEY NONCE_KEY AUTH_SALT SECURE_AUTH_SALT LOGGED_IN_SALT NONCE_SALT; do
    read -r value
    echo "define( '$key', '$value' );"
  done
} > /data/salts.php.partial
mv /data/salts.php.partial /data/salts.php
# A single-use secret the service reads (through the engine) to ask this WordPress for its plugin credentials.
# It is also printed to the container's log, which only the engine's clients read: the token is spent on first use.
token=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
printf '%s' "$token" > /data/provision-token.partial
mv /data/provision-token.partial /data/provision-token
echo "sitewright-provision-token: $token"
# WordPress compiled when the image was built (opcache-compile.php), read from the image's read-only /srv/opcache.
# PHP 8.2 takes a file cache directory only if it can write to it, so the directory is here in /data and each PHP
# system id's tree in it is a link to the image's: scripts it has load from it, others are compiled in memory only
# (their write into the read-only tree fails, silently). Nothing of this sandbox is ever written to a cache.
file_cache=
if [ -d /srv/opcache ]; then
  mkdir /data/opcache
  ln -s /srv/opcache/* /data/opcache/
  file_cache="-d opcache.file_cache=/data/opcache"
fi
# shellcheck disable=SC2086 # $file_cache is empty or one -d option
exec php -d variables_order=EGPCS -d upload_tmp_dir=/data/tmp -d sys_temp_dir=/data/tmp -d session.save_path=/data/tmp \
  -d memory_limit=128M -d opcache.enable_cli=1 $file_cache \
  -S 0.0.0.0:8080 -t /srv/wordpress /srv/router.php
