#!/bin/sh
# The test command (README): every test once, then the API tests again on a private
# PostgreSQL. test/soak (a link outage of several minutes, docs/fleet.md) runs beside
# the first run rather than after it: it mostly waits. Exits non-zero if any run failed.
set -u
soak_log=$(mktemp)
bun test --timeout 30000 test/soak >"$soak_log" 2>&1 &
soak=$!
bun test --timeout 30000 --path-ignore-patterns='test/soak/**'
every=$?
FIELDHUB_TEST_STORE=postgres bun test --timeout 30000 test/http
postgres=$?
wait "$soak"
soaked=$?
cat "$soak_log"
rm -f "$soak_log"
[ "$every" -eq 0 ] && [ "$postgres" -eq 0 ] && [ "$soaked" -eq 0 ]
