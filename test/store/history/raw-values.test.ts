/**
 * Raw values come back exactly as recorded: integers exact,
 * float32 bit for bit, float64 exact, null kept; also NaN and -0, which SQLite's
 * REAL would turn into NULL and 0. Read from the open tail in memory, from the
 * tail table after a reopen, and from blocks once the period closed.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "../../../src/store/index.ts";

const dir = mkdtempSync(join(tmpdir(), "fieldhub-raw-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const values = [
  0,
  -0,
  Number.NaN,
  1,
  -32_768,
  4_294_967_295,
  2 ** 53 - 1,
  Math.fround(0.1),
  Math.fround(-1e30),
  0.1,
  1e300,
  null,
];
const start = Date.UTC(2026, 0, 5, 12, 0, 0);
const rows = values.map((rawValue, index) => ({ registerId: 1, ts: start + index * 60_000, rawValue }));

async function readBack(store: Store) {
  return (
    await store.readings.page({ registerIds: [1], since: 0, until: 2 ** 50, order: "asc", limit: 100, after: null })
  ).rows;
}

test("every raw value survives the tail, a reopen and a period close", async () => {
  let store = openStore(dir);
  await store.readings.record(rows);
  // toEqual tells -0 from 0, and NaN equals NaN.
  expect(await readBack(store)).toEqual(rows);
  await store.close();
  store = openStore(dir);
  expect(await readBack(store)).toEqual(rows);
  expect(await store.readings.closePeriods(Date.UTC(2026, 0, 7))).toBe(1);
  expect(await readBack(store)).toEqual(rows);
  await store.close();
  store = openStore(dir);
  expect(await readBack(store)).toEqual(rows);
  await store.close();
});
