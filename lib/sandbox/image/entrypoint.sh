#!/bin/sh
# Starts one sandbox: a fresh copy of the preinstalled database and per-container salts in /data (a tmpfs),
# then PHP's built-in server. Runs as the unprivileged sandbox user on a read-only root.
set -eu
umask 077
mkdir -p /data/database /data/uploads /data/login /data/tmp
cp /srv/seed/wordpress.sqlite /data/database/.ht.sqlite
salt() { head -c 48 /dev/urandom | base64 -w0 | tr -d '\n'; }
{
  echo '<?php'
  for key in AUTH_KEY SECURE_AUTH_KEY LOGGED_IN_KEY NONCE_KEY AUTH_SALT SECURE_AUTH_SALT LOGGED_IN_SALT NONCE_SALT; do
    echo "define( '$key', '$(salt)' );"
  done
} > /data/salts.php.partial
mv /data/salts.php.partial /data/salts.php
# A single-use secret the service reads (through the engine) to ask this WordPress for its plugin credentials.
# It is also printed to the container's log, which only the engine's clients read: the token is spent on first use.
token=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s' "$token" > /data/provision-token.partial
mv /data/provision-token.partial /data/provision-token
echo "sitewright-provision-token: $token"
exec php -d variables_order=EGPCS -d upload_tmp_dir=/data/tmp -d sys_temp_dir=/data/tmp -d session.save_path=/data/tmp \
  -d memory_limit=128M -d opcache.enable_cli=1 \
  -S 0.0.0.0:8080 -t /srv/wordpress /srv/router.php
