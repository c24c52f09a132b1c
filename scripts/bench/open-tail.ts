/**
 * The open period's history tail in memory (docs/benchmarks.md "The open period in
 * memory"): a simulated day of --registers registers, each storing one reading and its
 * period aggregate a minute (as a box polling more often than it stores does),
 * recorded hour by hour into the block history with periods closing as the day
 * passes, once with a day's period and once with a new store's default period
 * (`defaultPeriodSeconds`), in the same run. After each hour: the live JavaScript
 * heap after a full collection (`bun:jsc` heapStats). Prints each period's highest
 * heap over the day and their ratio.
 *
 * Usage: bun scripts/bench/open-tail.ts [--registers 1000] [--hours 24]
 */
import { heapStats } from "bun:jsc";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { NewReading } from "../../src/store/contract/readings.ts";
import { openStore } from "../../src/store/index.ts";
import { defaultPeriodSeconds, openBlockHistory } from "../../src/store/sqlite/history/history.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { registers: { type: "string" }, hours: { type: "string" } },
});
const registers = Number(values.registers ?? 1000);
const hours = Number(values.hours ?? 24);
const day0 = Date.UTC(2026, 2, 1);

function liveHeapMb(): number {
  Bun.gc(true);
  return heapStats().heapSize / 1e6;
}

async function dayWith(periodSeconds: number): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), "fieldhub-open-tail-"));
  const store = openStore(dir);
  try {
    const history = openBlockHistory(sqliteOf(store), { periodSeconds });
    const base = liveHeapMb();
    const heap: number[] = [];
    for (let hour = 0; hour < hours; hour++) {
      for (let minute = 0; minute < 60; minute++) {
        const ts = day0 + (hour * 60 + minute) * 60_000;
        const batch: NewReading[] = [];
        for (let register = 1; register <= registers; register++) {
          const raw = register + minute;
          batch.push({
            registerId: register,
            ts,
            rawValue: raw,
            aggregate: { rawMin: raw - 1, rawMax: raw + 1, rawMean: raw, samples: 6 },
          });
        }
        history.record(batch);
      }
      // The minutely job closes what ended (with its 10-minute grace).
      await history.closePeriods(day0 + (hour + 1) * 3_600_000);
      heap.push(liveHeapMb() - base);
    }
    return heap;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`${registers} registers, a reading and its aggregate a minute, ${hours} simulated hours`);
const results: { periodSeconds: number; heap: number[] }[] = [];
for (const periodSeconds of [86_400, defaultPeriodSeconds]) {
  const heap = await dayWith(periodSeconds);
  results.push({ periodSeconds, heap });
  const marks = [1, 4, 8, 12, 16, 20, 24].filter((h) => h <= hours);
  console.log(
    `period ${periodSeconds} s: live heap above the empty store after hour ${marks.join("/")}: ` +
      `${marks.map((h) => (heap[h - 1] ?? 0).toFixed(1)).join(" / ")} MB; highest ${Math.max(...heap).toFixed(1)} MB`,
  );
}
const [day, fresh] = results.map((r) => Math.max(...r.heap));
console.log(`highest open-tail heap, default period / a day's: ${((fresh ?? 0) / (day ?? 1)).toFixed(2)}x`);
