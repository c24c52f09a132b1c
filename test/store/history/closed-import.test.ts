/**
 * History imported into periods that have already ended goes straight into blocks
 * (docs/architecture.md "Reading history"): a fresh store importing a past day in
 * time-ordered batches, as `fieldhub history import` does, holds no tail rows
 * and grows by about the blocks' size, not by the tail rows a close would free
 * and leave in the file; every reading reads back.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReadingTuple } from "../../../src/store/contract/readings.ts";
import { openStore, type Store } from "../../../src/store/index.ts";
import { sqliteOf } from "../../../src/store/sqlite/sqlite-internals.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** What the store file takes on disk (allocated blocks, as `du` counts), its WAL checkpointed into it. */
function onDisk(store: Store): number {
  sqliteOf(store).exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return statSync(store.path).blocks * 512;
}

test("a past day imported into a fresh store is written as blocks, not tail rows", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fieldhub-closed-import-"));
  dirs.push(dir);
  const store = openStore(dir);
  const empty = onDisk(store);
  const registers = 20;
  const day = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 2 * 86_400_000;
  const minutes = 1440;
  const periods = new Map(Array.from({ length: registers }, (_, index) => [index + 1, 60_000]));
  let stored = 0;
  for (let from = 0; from < minutes; from += 100) {
    const batch: ReadingTuple[] = [];
    for (let minute = from; minute < Math.min(minutes, from + 100); minute++) {
      for (let id = 1; id <= registers; id++) batch.push([id, day + minute * 60_000, 200 + ((minute * id) % 7)]);
    }
    stored += (await store.readings.importReadings(batch, periods)).stored;
  }
  expect(stored).toBe(registers * minutes);
  const tailRows = sqliteOf(store).query<{ n: number }, []>("SELECT count(*) AS n FROM history_tail").get()?.n;
  expect(tailRows).toBe(0);
  const perReading = (onDisk(store) - empty) / stored;
  expect(perReading).toBeLessThan(3);
  const page = await store.readings.page({
    registerIds: [3],
    since: day,
    until: day + 86_400_000,
    order: "asc",
    limit: 2000,
    after: null,
  });
  expect(page.rows.map((row) => row.rawValue)).toEqual(
    Array.from({ length: minutes }, (_, minute) => 200 + ((minute * 3) % 7)),
  );
  await store.close();
});
