#!/bin/sh
# The test command (README): every test once, then the API tests again on a private
# PostgreSQL. Most test files wait on processes, peers and the clock rather than on the
# CPU (the whole suite uses ~7 CPU-minutes), so files run in worker processes:
# FIELDHUB_TEST_WORKERS of them (default 2; 1 runs them one after another), the slowest
# first as test/timings.json records them (`npm run test:timings` refreshes it).
# test/soak (a link outage of several minutes, docs/fleet.md) runs beside the first run
# rather than after it: it mostly waits. Exits non-zero if any run failed.
set -u
workers=${FIELDHUB_TEST_WORKERS:-2}
soak_log=$(mktemp)
bun test --timeout 30000 test/soak >"$soak_log" 2>&1 &
soak=$!
bun test --timeout 30000 --parallel="$workers" --timings=test/timings.json --path-ignore-patterns='test/soak/**'
every=$?
FIELDHUB_TEST_STORE=postgres bun test --timeout 30000 --parallel="$workers" --timings=test/timings.json test/http
postgres=$?
wait "$soak"
soaked=$?
cat "$soak_log"
rm -f "$soak_log"
[ "$every" -eq 0 ] && [ "$postgres" -eq 0 ] && [ "$soaked" -eq 0 ]
