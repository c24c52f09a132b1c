/**
 * What moving the latest values costs forwarded ingest on PostgreSQL
 * (docs/benchmarks.md, "Latest values on PostgreSQL"), on a private PostgreSQL the
 * script starts (test/harness/postgres.ts, fsync on). The plant's 2,000 registers
 * (scripts/bench/plant.ts) synced as an inventory, then one day of their readings
 * in batches of 10,000, as a site forwards them, into a fresh database each time:
 *
 *   - `PgReadingStore.record`: the readings and, in the same statement, each
 *     register's latest value moved forward (the row update of up to 2,000 registers
 *     per batch);
 *   - the baseline, in the same run: `recordPolled`, the same tail insert without
 *     the latest values (the statement `record` was before).
 *
 *   node_modules/.bin/bun scripts/bench/pg-latest.ts [--days 1] [--registers 2000] [--repeat 3] [--batch 10000]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { ReadingTuple } from "../../src/store/contract/readings.ts";
import { openPostgresStore } from "../../src/store/postgres/index.ts";
import { startPostgres } from "../../test/harness/postgres.ts";
import { createSource, plantInventory, registersPerDevice } from "./plant.ts";

const { values: options } = parseArgs({
  options: {
    days: { type: "string", default: "1" },
    registers: { type: "string", default: "2000" },
    repeat: { type: "string", default: "3" },
    batch: { type: "string", default: "10000" },
  },
});
const days = Number(options.days);
const registerCount = Number(options.registers);
const repeat = Number(options.repeat);
const batchSize = Number(options.batch);
const start = Date.UTC(2026, 0, 10);
const minutes = days * 1440;
const readingCount = minutes * registerCount;

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const out = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const range = (values: number[], digits = 0) =>
  `${fmt(Math.min(...values), digits)} to ${fmt(Math.max(...values), digits)}`;

out(`load average at start: ${load()}`);
const inventory = plantInventory(registerCount);
/** Readings by plant index (register `r<index>`); mapped to each database's register ids after its sync. */
const indexes = new Int32Array(readingCount);
const times = new Float64Array(readingCount);
const raws = new Float64Array(readingCount);
{
  const source = createSource(7, registerCount, start);
  const ts = new Float64Array(registerCount / registersPerDevice);
  const values = new Float64Array(registerCount);
  let at = 0;
  for (let minute = 0; minute < minutes; minute++) {
    source.round(minute, ts, values);
    for (let index = 0; index < registerCount; index++) {
      indexes[at] = index;
      times[at] = ts[Math.floor(index / registersPerDevice)] as number;
      raws[at] = values[index] as number;
      at++;
    }
  }
}
out(
  `${fmt(readingCount)} readings: ${fmt(registerCount)} registers x ${fmt(minutes)} minutes, batches of ${fmt(batchSize)}`,
);

const pg = await startPostgres({ sharedBuffers: "256MB", durable: true });
let databases = 0;

async function ingest(moveLatest: boolean): Promise<number> {
  const store = await openPostgresStore(await pg.database(`latest_${++databases}`));
  await store.inventory.sync(inventory, start);
  const idOf = new Map((await store.registers.catalog()).map((register) => [register.name, register.id]));
  const ids = Int32Array.from({ length: registerCount }, (_, index) => idOf.get(`r${index}`) as number);
  const began = performance.now();
  for (let from = 0; from < readingCount; from += batchSize) {
    const to = Math.min(readingCount, from + batchSize);
    const batch: ReadingTuple[] = [];
    for (let at = from; at < to; at++)
      batch.push([ids[indexes[at] as number] as number, times[at] as number, raws[at] as number]);
    if (moveLatest)
      await store.readings.record(batch.map(([registerId, ts, rawValue]) => ({ registerId, ts, rawValue })));
    else await store.readings.recordPolled(batch);
  }
  // The latest values still held are written by the clean close; counted here.
  if (moveLatest) await store.readings.persistLatest();
  const rate = readingCount / ((performance.now() - began) / 1000);
  if (moveLatest) {
    // Every register's latest is its last reading of the day.
    const rows = await store.registers.list((await store.gateways.all())[0]?.id ?? -1);
    if (rows.some((row) => row.latestTs === null)) throw new Error("record left a latest value unset");
  }
  await store.close();
  return rate;
}

const withLatest: number[] = [];
const baseline: number[] = [];
try {
  for (let round = 0; round < repeat; round++) {
    const base = await ingest(false);
    const ours = await ingest(true);
    baseline.push(base);
    withLatest.push(ours);
    out(
      `  round ${round + 1}: tail insert only ${fmt(base)}/s, record with latest values ${fmt(ours)}/s (${(ours / base).toFixed(2)}x); load ${load()}`,
    );
  }
} finally {
  await pg.stop();
}
const ratios = withLatest.map((rate, index) => rate / (baseline[index] as number));
out(
  `record with latest values ${range(withLatest)}/s (target >= 200,000: ${Math.min(...withLatest) >= 200_000 ? "met" : "MISSED"}); tail insert only ${range(baseline)}/s; ratio ${range(ratios, 2)}x`,
);
out(`load average at end: ${load()}`);
