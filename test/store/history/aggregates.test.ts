/**
 * Per-period aggregates on the SQLite engine's own layout (docs/architecture.md
 * "Reading history"): they ride on tail rows appended later, so a restart reads
 * them back onto their readings; values that differ from the reading's (floats,
 * negatives, NaN) round-trip exactly through the tail and through blocks; a block
 * written before aggregates decodes with none.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeBlock, encodeBlock } from "../../../src/store/codec/block.ts";
import type { ReadingAggregate } from "../../../src/store/contract/readings.ts";
import { openStore } from "../../../src/store/index.ts";

const dir = mkdtempSync(join(tmpdir(), "fieldhub-aggregates-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const minute = 60_000;
const start = Date.UTC(2026, 4, 4);
const aggregates: ReadingAggregate[] = [
  { rawMin: 1.5, rawMax: 1.5, rawMean: 1.5, samples: 1 },
  { rawMin: -2.25, rawMax: 1e300, rawMean: Number.NaN, samples: 12 },
  { rawMin: -7, rawMax: 3, rawMean: -1.75, samples: 4 },
  { rawMin: 0.1, rawMax: 0.30000000000000004, rawMean: 0.2, samples: 3 },
];
const values = [1.5, 0.5, -7, 0.1];

test("aggregates written with later rows come back onto their readings after a restart, and after the close", async () => {
  const first = openStore(dir);
  for (let index = 0; index < values.length; index++) {
    const ts = start + index * minute;
    const finished =
      index === 0 ? [] : [{ registerId: 1, ts: ts - minute, aggregate: aggregates[index - 1] as ReadingAggregate }];
    await first.readings.recordPolled([[1, ts, values[index] as number]], finished);
  }
  await first.readings.recordPolled(
    [],
    [{ registerId: 1, ts: start + 3 * minute, aggregate: aggregates[3] as ReadingAggregate }],
  );
  await first.close();
  const read = async (store: ReturnType<typeof openStore>) =>
    (
      await store.readings.page({
        registerIds: [1],
        since: start,
        until: start + 3_600_000,
        order: "asc",
        limit: 10,
        after: null,
      })
    ).rows;
  const second = openStore(dir);
  const reopened = await read(second);
  expect(reopened.map((row) => row.rawValue)).toEqual(values);
  expect(reopened.map((row) => row.aggregate)).toEqual(aggregates);
  await second.readings.closePeriods(start + 2 * 86_400_000);
  expect((await read(second)).map((row) => row.aggregate)).toEqual(aggregates);
  await second.close();
});

test("a block without the aggregate flag (written before them) decodes with none", () => {
  const columns = { count: 3, ts: [10, 70, 130], values: [1, 2, 3], nulls: null };
  const block = encodeBlock(10, columns);
  expect((block[0] as number) & 2).toBe(0);
  const decoded = decodeBlock(10, block);
  expect([...decoded.values]).toEqual([1, 2, 3]);
  expect(decoded.aggregates).toBeNull();
});

test("a steady value's aggregates cost a few bytes a block", () => {
  const count = 240;
  const ts = Array.from({ length: count }, (_, index) => index * 60);
  const value = Array.from({ length: count }, (_, index) => 200 + (index % 7));
  const plain = encodeBlock(0, { count, ts, values: value, nulls: null });
  const withSteady = encodeBlock(0, {
    count,
    ts,
    values: value,
    nulls: null,
    aggregates: { samples: Array(count).fill(6), min: value, max: value, mean: value },
  });
  expect(withSteady.length - plain.length).toBeLessThan(12);
});

test("means of whole numbers (written as their sums) and of floats come back bit for bit", () => {
  const count = 240;
  const ts = Array.from({ length: count }, (_, index) => index * 60);
  const values = Array.from({ length: count }, (_, index) => 200 + (index % 5));
  const samples = Array.from({ length: count }, (_, index) => 1 + (index % 7));
  const wholeMeans = values.map(
    (value, index) => (value * (samples[index] as number) + index) / (samples[index] as number),
  );
  const floatMeans = values.map((value, index) => value + Math.fround(index / 3));
  for (const mean of [wholeMeans, floatMeans]) {
    const decoded = decodeBlock(
      0,
      encodeBlock(0, { count, ts, values, nulls: null, aggregates: { samples, min: values, max: values, mean } }),
    );
    expect(Array.from(decoded.aggregates?.mean ?? [])).toEqual(mean);
  }
});
