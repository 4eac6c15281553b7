#!/usr/bin/env bash
# Playwright's Chromium for the end-to-end specs (e2e/support/browser-network.mjs): inside the network namespace the
# global setup made, with every connection through its SOCKS bridge (loopback included: "<-loopback>"), so the
# host's network changes cannot abort a load. Without that namespace (not root, or SITEWRIGHT_BROWSER_NETNS unset),
# plain Chromium.
chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ -n "${SITEWRIGHT_BROWSER_NETNS:-}" ] && [ "${SITEWRIGHT_BROWSER_NETNS}" != off ]; then
  exec ip netns exec "$SITEWRIGHT_BROWSER_NETNS" "$chromium" \
    --proxy-server=socks5://127.0.0.1:1080 '--proxy-bypass-list=<-loopback>' "$@"
fi
exec "$chromium" "$@"
