/**
 * Per-period aggregates on both engines (engines.ts; docs/api.md section 4.6): an
 * aggregate handed over after its reading (ingest's write, once the storage
 * period ended) is read back with that reading while its period is open, after
 * the period closed into blocks, when it arrives after the close, and through
 * retention's cut; a reading given with its aggregate (import, a site's
 * forwarded reading) keeps it; a reading without one reads null.
 */
import { beforeAll, expect, test } from "bun:test";
import type { ReadingAggregate, ReadingRow } from "../../../src/store/contract/readings.ts";
import { describeOnBothEngines, type OpenDomains } from "./engines.ts";

const minute = 60_000;
const day = 86_400_000;
const start = Date.UTC(2026, 4, 4);

describeOnBothEngines("per-period aggregates", start, (openedStore) => {
  let store: OpenDomains;
  let registerId = 0;
  let other = 0;
  beforeAll(async () => {
    store = openedStore();
    [registerId, other] = (await store.query("SELECT id FROM registers ORDER BY id LIMIT 2")).map((row) =>
      Number(row.id),
    ) as [number, number];
  });

  const aggregateOf = (index: number): ReadingAggregate => ({
    rawMin: 100 + index - 3,
    rawMax: 100 + index + 7,
    rawMean: 100 + index + 0.25,
    samples: 6,
  });
  const readAll = async (id: number): Promise<ReadingRow[]> => {
    const rows: ReadingRow[] = [];
    let after = null;
    for (;;) {
      const page = await store.page({
        registerIds: [id],
        since: 0,
        until: start + 10 * day,
        order: "asc",
        limit: 500,
        after,
      });
      rows.push(...page.rows);
      const last = page.rows.at(-1);
      if (!page.hasMore || last === undefined) return rows;
      after = { ts: last.ts, registerId: last.registerId };
    }
  };

  test("each period's aggregate, written with the next reading, reads back with its reading, open and closed", async () => {
    // Two hours of minutes; the aggregate of minute k goes with the write of minute k + 1.
    for (let index = 0; index < 120; index++) {
      const ts = start + index * minute + 3_000;
      const finished = index === 0 ? [] : [{ registerId, ts: ts - minute, aggregate: aggregateOf(index - 1) }];
      await store.recordPolled([[registerId, ts, 100 + index]], finished);
    }
    // The last period's aggregate on its own (no later reading came), and one for a reading never stored.
    await store.recordPolled(
      [],
      [
        { registerId, ts: start + 119 * minute + 3_000, aggregate: aggregateOf(119) },
        { registerId, ts: start + 200 * minute, aggregate: aggregateOf(0) },
      ],
    );
    const check = async () => {
      const rows = await readAll(registerId);
      expect(rows.length).toBe(120);
      rows.forEach((row, index) => {
        expect(row.rawValue).toBe(100 + index);
        expect(row.aggregate).toEqual(aggregateOf(index));
      });
    };
    await check();
    expect(await store.closePeriods(start + 2 * day)).toBeGreaterThan(0);
    await check();
  });

  test("an aggregate that arrives after its period closed is attached in the blocks", async () => {
    const ts = start + 2 * day + 5 * minute;
    await store.recordPolled([[other, ts, 7]], []);
    await store.recordPolled([[other, ts + minute, 8]], []);
    await store.closePeriods(start + 4 * day);
    await store.recordPolled(
      [],
      [{ registerId: other, ts, aggregate: { rawMin: 7, rawMax: 60, rawMean: 20.5, samples: 4 } }],
    );
    const rows = (await readAll(other)).filter((row) => row.ts >= start + 2 * day);
    expect(rows.map((row) => [row.rawValue, row.aggregate ?? null])).toEqual([
      [7, { rawMin: 7, rawMax: 60, rawMean: 20.5, samples: 4 }],
      [8, null],
    ]);
  });

  test("an import (a site's forwarded batch) stores a reading's aggregate, and attaches one sent again with a stored reading", async () => {
    const periods = new Map([[other, 60_000]]);
    const ts = start + 5 * 86_400_000;
    const aggregate = { rawMin: 1, rawMax: 3, rawMean: 2, samples: 3 };
    expect(
      await store.importReadings(
        [
          [other, ts, 2, aggregate],
          [other, ts + 60_000, 5],
        ],
        periods,
      ),
    ).toEqual({
      stored: 2,
      skipped: 0,
    });
    // The second reading again, now that its period's aggregate is known: skipped as a reading, its aggregate kept.
    const later = { rawMin: 5, rawMax: 9, rawMean: 6, samples: 4 };
    expect(await store.importReadings([[other, ts + 60_000, 5, later]], periods)).toEqual({ stored: 0, skipped: 1 });
    const rows = (await readAll(other)).filter((row) => row.ts >= ts);
    expect(rows.map((row) => row.aggregate ?? null)).toEqual([aggregate, later]);
    await store.closePeriods(ts + 2 * 86_400_000);
    expect((await readAll(other)).filter((row) => row.ts >= ts).map((row) => row.aggregate ?? null)).toEqual([
      aggregate,
      later,
    ]);
  });

  test("retention's cut across a block keeps the aggregates of the readings after it", async () => {
    const cutoff = start + 30 * minute;
    await store.pruneReadings(cutoff);
    const rows = await readAll(registerId);
    expect(rows.length).toBe(90);
    rows.forEach((row, index) => {
      expect(row.aggregate).toEqual(aggregateOf(index + 30));
    });
  });
});
