#!/usr/bin/env bash
# What the tests talk to besides fieldhub: socat (serial lines as pty pairs),
# Debian's pymodbus (an independent Modbus peer), Debian's chromium (the admin
# page's browser tests, driven by playwright-core), for the fault suite
# (test/faults/) libfaketime (steps a running server's clock) and the sqlite3 CLI
# (holds the store's write lock from another process), Debian's InfluxDB 1.x server
# and client (files InfluxDB writes, imported by `fieldhub history import`), Debian's
# PostgreSQL server (a private one per test file, test/harness/postgres.ts), and
# qemu-user with the arm64 cross libc (runs the arm64 executable), Debian's mosquitto
# broker and its mosquitto_sub client (a private broker per MQTT test, test/harness/mosquitto.ts)
# and openssl (the throwaway CA of its TLS listener), and the independent Sparkplug B
# subscriber (test/harness/sparkplug.ts): python3-paho-mqtt, python3-protobuf and protoc
# (protobuf-compiler), which makes its Python module from the published schema. Installs them with apt-get when they are missing
# and this is a Debian machine where we are root (CI is); otherwise says what
# to install. Runs before `npm test`.
set -euo pipefail

missing=()
command -v socat >/dev/null 2>&1 || missing+=(socat)
/usr/bin/python3 -c "import pymodbus" >/dev/null 2>&1 || missing+=(python3-pymodbus)
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || [ -e /usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1 ] || missing+=(faketime)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
[ -n "${FIELDHUB_CHROMIUM:-}" ] || [ -x /usr/bin/chromium ] || missing+=(chromium)
command -v influxd >/dev/null 2>&1 || missing+=(influxdb)
command -v influx >/dev/null 2>&1 || missing+=(influxdb-client)
compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || missing+=(postgresql)
[ -x /usr/sbin/mosquitto ] || missing+=(mosquitto)
command -v mosquitto_sub >/dev/null 2>&1 || missing+=(mosquitto-clients)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
/usr/bin/python3 -c "import paho.mqtt.client" >/dev/null 2>&1 || missing+=(python3-paho-mqtt)
/usr/bin/python3 -c "import google.protobuf" >/dev/null 2>&1 || missing+=(python3-protobuf)
[ -x /usr/bin/protoc ] || missing+=(protobuf-compiler)
# The arm64 executable runs under qemu-user with Debian's cross libc (test/build/arm64.test.ts).
if [ "$(uname -m)" = "x86_64" ]; then
  command -v qemu-aarch64-static >/dev/null 2>&1 || missing+=(qemu-user-static)
  [ -d /usr/aarch64-linux-gnu/lib ] || missing+=(libc6-arm64-cross)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing test peers: ${missing[*]}" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "the tests need: ${missing[*]} (Debian: sudo apt-get install ${missing[*]})" >&2
exit 1
