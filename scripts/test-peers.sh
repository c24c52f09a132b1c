#!/usr/bin/env bash
# What the tests talk to besides fieldhub: socat (serial lines as pty pairs),
# Debian's pymodbus (an independent Modbus peer), Debian's chromium (the admin
# page's browser tests, driven by playwright-core) and Debian's InfluxDB 1.x server
# and client (files InfluxDB writes, imported by `fieldhub history import`). Installs them with apt-get when they are missing
# and this is a Debian machine where we are root (CI is); otherwise says what
# to install. Runs before `npm test`.
set -euo pipefail

missing=()
command -v socat >/dev/null 2>&1 || missing+=(socat)
/usr/bin/python3 -c "import pymodbus" >/dev/null 2>&1 || missing+=(python3-pymodbus)
[ -n "${FIELDHUB_CHROMIUM:-}" ] || [ -x /usr/bin/chromium ] || missing+=(chromium)
command -v influxd >/dev/null 2>&1 || missing+=(influxdb)
command -v influx >/dev/null 2>&1 || missing+=(influxdb-client)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing test peers: ${missing[*]}" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "the tests need: ${missing[*]} (Debian: sudo apt-get install ${missing[*]})" >&2
exit 1
