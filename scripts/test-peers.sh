#!/usr/bin/env bash
# The independent Modbus peers the tests talk to: socat (serial lines as pty
# pairs) and Debian's pymodbus. Installs them with apt-get when they are missing
# and this is a Debian machine where we are root (CI is); otherwise says what
# to install. Runs before `npm test`.
set -euo pipefail

missing=()
command -v socat >/dev/null 2>&1 || missing+=(socat)
/usr/bin/python3 -c "import pymodbus" >/dev/null 2>&1 || missing+=(python3-pymodbus)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing test peers: ${missing[*]}" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "the tests need: ${missing[*]} (Debian: sudo apt-get install ${missing[*]})" >&2
exit 1
