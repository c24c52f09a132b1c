/**
 * The PostgreSQL readings store against a plain in-memory model of the same
 * readings, as test/store/history/history.test.ts does for the SQLite block engine
 * (docs/api.md section 4.6, rules 1 to 3): pages over compacted blocks and the tail in both
 * orders with random windows, limits and cursors, resent and late batches, newest
 * times, retention at the exact edge (whole month partitions and the cut), and two
 * processes (two pools) recording and compacting at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type NewReading,
  type ReadingRow,
  type ReadingsPageQuery,
  readingEpochMs,
} from "../../../src/store/contract/readings.ts";
import { openPostgresStore, type PostgresStore } from "../../../src/store/postgres/index.ts";
import {
  type PrivatePostgres,
  postgresAvailable,
  postgresMissingReason,
  startPostgres,
} from "../../harness/postgres.ts";
import { seededRandom } from "../../harness/seeded-random.ts";

const hour = 3_600_000;
const day = 24 * hour;
// Two days across a month's end: blocks land in two partitions.
const day0 = Date.UTC(2026, 2, 31);

/** The model: every stored reading, first one per (register, second) kept. */
class Model {
  readonly rows = new Map<string, ReadingRow>();
  record(batch: NewReading[]): void {
    for (const reading of batch) {
      const ts = Math.floor((reading.ts - readingEpochMs) / 1000) * 1000 + readingEpochMs;
      const key = `${reading.registerId}/${ts}`;
      if (!this.rows.has(key))
        this.rows.set(key, { registerId: reading.registerId, ts, rawValue: reading.rawValue ?? null });
    }
  }
  page(query: ReadingsPageQuery): { rows: ReadingRow[]; hasMore: boolean } {
    const sign = query.order === "asc" ? 1 : -1;
    const compare = (a: { ts: number; registerId: number }, b: { ts: number; registerId: number }) =>
      sign * (a.ts - b.ts || a.registerId - b.registerId);
    const after = query.after;
    const rows = [...this.rows.values()]
      .filter(
        (row) =>
          query.registerIds.includes(row.registerId) &&
          row.ts >= query.since &&
          row.ts < query.until &&
          (after === null || compare(row, after) > 0),
      )
      .sort(compare);
    return { rows: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
  }
}

/** Readings of `registers` registers every `stepMinutes` (with second jitter) for `count` steps from `from`. */
function plant(random: () => number, registers: number, from: number, count: number, stepMinutes = 1): NewReading[] {
  const batch: NewReading[] = [];
  for (let step = 0; step < count; step++) {
    for (let registerId = 1; registerId <= registers; registerId++) {
      const kind = registerId % 4;
      const draw = random();
      const rawValue =
        kind === 0
          ? Math.floor(draw * 100)
          : kind === 1
            ? Math.fround(230 + draw)
            : kind === 2
              ? draw < 0.1
                ? null
                : draw * 1e6
              : 4_294_967_295 - step;
      batch.push({ registerId, ts: from + step * stepMinutes * 60_000 + Math.floor(random() * 3000), rawValue });
    }
  }
  return batch;
}

const everything = (registerIds: number[]): ReadingsPageQuery => ({
  registerIds,
  since: 0,
  until: 2 ** 50,
  order: "asc",
  limit: 1_000_000,
  after: null,
});

let pg: PrivatePostgres | null = null;
const stores: PostgresStore[] = [];
let databases = 0;
async function freshStore(url?: string, readingsPerBlock?: number): Promise<PostgresStore> {
  const target = url ?? (await (pg as PrivatePostgres).database(`readings_${++databases}`));
  const store = await openPostgresStore(target, { readings: { readingsPerBlock } });
  stores.push(store);
  return store;
}

beforeAll(async () => {
  if (postgresAvailable) pg = await startPostgres();
});
afterAll(async () => {
  for (const store of stores) await store.close();
  await pg?.stop();
});

describe.skipIf(!postgresAvailable)(`PostgreSQL readings (${postgresMissingReason})`, () => {
  // Day-long blocks (1440 minutes), the default, and blocks of 7 readings: a page then needs more blocks of a
  // register than its first read fetched (page.ts reads on).
  for (const readingsPerBlock of [1440, undefined, 7])
    describe(`pages over compacted blocks and the tail (blocks of at most ${readingsPerBlock ?? "480 (default)"} readings)`, () => {
      let store: PostgresStore;
      const model = new Model();
      const random = seededRandom(17);

      test("a batch and its resend store each (register, second) once; compaction moves ended days into blocks", async () => {
        store = await freshStore(undefined, readingsPerBlock);
        const batch = plant(random, 8, day0, 2 * 24 * 60 + 300, 1); // two days and five hours
        for (let at = 0; at < batch.length; at += 10_000) await store.readings.record(batch.slice(at, at + 10_000));
        model.record(batch);
        await store.readings.record(batch.slice(0, 5000)); // resent
        expect(await store.readings.page(everything([1, 2, 3, 4, 5, 6, 7, 8]))).toEqual(
          model.page(everything([1, 2, 3, 4, 5, 6, 7, 8])),
        );
        // Days 0 and 1 ended; day 2 stays in the tail.
        expect(await store.readings.closePeriods(day0 + 2 * day + 5 * hour)).toBe(2);
        expect(await store.readings.closePeriods(day0 + 2 * day + 5 * hour)).toBe(0);
        expect(await store.readings.page(everything([1, 2, 3, 4, 5, 6, 7, 8]))).toEqual(
          model.page(everything([1, 2, 3, 4, 5, 6, 7, 8])),
        );
      });

      test("random windows, orders, limits and cursors match the model", async () => {
        for (let round = 0; round < 200; round++) {
          const registers = [1, 2, 3, 4, 5, 6, 7, 8].filter(() => random() < 0.4);
          if (registers.length === 0) registers.push(1 + Math.floor(random() * 8));
          const since = day0 - hour + Math.floor(random() * 55 * hour);
          const until = since + Math.floor(random() * 30 * hour);
          const order = random() < 0.5 ? "asc" : "desc";
          const limit = 1 + Math.floor(random() * (random() < 0.2 ? 3000 : 300));
          const start = model.page({ registerIds: registers, since, until, order, limit: 1_000_000, after: null });
          const pick = start.rows[Math.floor(random() * start.rows.length)];
          const after = pick === undefined || random() < 0.3 ? null : { ts: pick.ts, registerId: pick.registerId };
          const query: ReadingsPageQuery = { registerIds: registers, since, until, order, limit, after };
          expect(await store.readings.page(query)).toEqual(model.page(query));
        }
      });

      test("since is inclusive and until exclusive to the millisecond, in blocks and in the tail", async () => {
        for (const from of [day0 + hour, day0 + 2 * day + hour]) {
          const [row] = model.page({
            registerIds: [3],
            since: from,
            until: from + hour,
            order: "asc",
            limit: 1,
            after: null,
          }).rows;
          if (row === undefined) throw new Error("no reading");
          const at = async (since: number, until: number) =>
            (
              await store.readings.page({ registerIds: [3], since, until, order: "asc", limit: 1, after: null })
            ).rows.map((r) => r.ts);
          expect(await at(row.ts, row.ts + 1)).toEqual([row.ts]);
          expect(await at(row.ts + 1, row.ts + 60_000)).not.toContain(row.ts);
          expect(await at(row.ts - 1, row.ts)).toEqual([]);
        }
      });

      test("late readings and resends of compacted days: the first value stays, before and after the next compaction", async () => {
        const late = [
          { registerId: 5, ts: day0 + 90 * 60_000 + 30_500, rawValue: 12.25 },
          { registerId: 6, ts: day0 + day + 7 * hour + 1_000, rawValue: null },
        ];
        // A resend of a compacted reading with another value: the stored one wins.
        const [stored] = model.page({
          registerIds: [2],
          since: day0 + hour,
          until: day0 + 2 * hour,
          order: "asc",
          limit: 1,
          after: null,
        }).rows;
        const resend = [{ registerId: 2, ts: (stored as ReadingRow).ts, rawValue: -1 }];
        await store.readings.record([...late, ...resend]);
        await store.readings.record(late);
        model.record([...late, ...resend]);
        const query: ReadingsPageQuery = { ...everything([2, 5, 6]), since: day0, until: day0 + 2 * day };
        expect(await store.readings.page(query)).toEqual(model.page(query));
        expect(await store.readings.closePeriods(day0 + 2 * day + 5 * hour)).toBe(2);
        expect(await store.readings.page(query)).toEqual(model.page(query));
      });

      test("newest reading per register and newest within a window", async () => {
        const newest = await store.readings.newestTimes();
        expect([...newest.keys()].sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
        for (const [registerId, ts] of newest) {
          expect(ts).toBe(
            (model.page({ ...everything([registerId]), order: "desc", limit: 1 }).rows[0] as ReadingRow).ts,
          );
        }
        const window = { since: day0 + 3 * hour, until: day0 + 5 * hour };
        const expected = model.page({ ...everything([4]), ...window, order: "desc", limit: 1 }).rows[0] as ReadingRow;
        expect(await store.readings.newestBetween(4, window.since, window.until)).toBe(expected.ts);
        expect(await store.readings.newestBetween(99, window.since, window.until)).toBeNull();
      });

      test("a scan returns the window in time order, page by page", async () => {
        const pages: ReadingRow[][] = [];
        for await (const rows of store.readings.scan({
          registerIds: [1, 7],
          since: day0,
          until: day0 + 3 * day,
          pageSize: 777,
        }))
          pages.push(rows);
        expect(pages.flat()).toEqual(model.page({ ...everything([1, 7]), since: day0, until: day0 + 3 * day }).rows);
        expect(pages.length).toBeGreaterThan(1);
      });
    });

  describe("retention", () => {
    test("drops whole month partitions and cuts the edge exactly, in blocks and in the tail", async () => {
      const store = await freshStore();
      const model = new Model();
      // Every 30 minutes over 40 days from early March: several partitions.
      const from = Date.UTC(2026, 2, 3);
      const batch = plant(seededRandom(3), 5, from, 40 * 48, 30);
      await store.readings.record(batch);
      model.record(batch);
      await store.readings.closePeriods(from + 39 * day);
      const all = everything([1, 2, 3, 4, 5]);
      for (const cutoff of [
        from + 2 * day + 90 * 60_000 + 20_500,
        Date.UTC(2026, 3, 2) + 17_001,
        from + 39 * day + 3 * hour + 1,
      ]) {
        const removed = model.page({ ...all, until: cutoff }).rows;
        expect((await store.readings.prune(cutoff, { pauseMs: 0 })).deleted).toBe(removed.length);
        for (const row of removed) model.rows.delete(`${row.registerId}/${row.ts}`);
        expect(await store.readings.page(all)).toEqual(model.page(all));
        expect(await store.readings.registersWithReadingsBefore(cutoff)).toEqual([]);
      }
    });

    test("deleteOldest removes one register's history before the cutoff in batches, exactly to the edge", async () => {
      const store = await freshStore();
      const model = new Model();
      const batch = plant(seededRandom(4), 3, day0, 4 * 24 * 12, 5);
      await store.readings.record(batch);
      model.record(batch);
      await store.readings.closePeriods(day0 + 3 * day + hour);
      const cutoff = day0 + 2 * day + 7 * hour + 123;
      expect(await store.readings.registersWithReadingsBefore(cutoff)).toEqual([1, 2, 3]);
      let deleted = 0;
      let rounds = 0;
      for (;;) {
        const result = await store.readings.deleteOldest(2, cutoff, 200);
        deleted += result.deleted;
        rounds++;
        if (result.done) break;
      }
      const removed = model.page({ ...everything([2]), until: cutoff }).rows;
      expect(deleted).toBe(removed.length);
      expect(rounds).toBeGreaterThan(1);
      for (const row of removed) model.rows.delete(`${row.registerId}/${row.ts}`);
      expect(await store.readings.page(everything([1, 2, 3]))).toEqual(model.page(everything([1, 2, 3])));
      expect(await store.readings.registersWithReadingsBefore(cutoff)).toEqual([1, 3]);
    });
  });

  describe("two processes on one database", () => {
    test("recording overlapping batches and compacting at once: nothing lost, nothing twice", async () => {
      const url = await (pg as PrivatePostgres).database("two_processes");
      const [first, second] = [await freshStore(url), await freshStore(url)];
      const model = new Model();
      const random = seededRandom(11);
      const readings = plant(random, 40, day0, 3 * 24 * 12, 5); // three days every 5 minutes
      model.record(readings);
      // Each process sends every batch (a resend from a retrying site), in its own order, compacting as it goes.
      const batches: NewReading[][] = [];
      for (let at = 0; at < readings.length; at += 1000) batches.push(readings.slice(at, at + 1000));
      const run = async (store: PostgresStore, order: NewReading[][]) => {
        for (const [index, batch] of order.entries()) {
          await store.readings.record(batch);
          if (index % 5 === 0) await store.readings.closePeriods(day0 + 3 * day + hour);
        }
      };
      await Promise.all([run(first, batches), run(second, [...batches].reverse())]);
      await first.readings.closePeriods(day0 + 3 * day + hour);
      const ids = Array.from({ length: 40 }, (_, index) => index + 1);
      const expected = model.page(everything(ids));
      expect(await first.readings.page(everything(ids))).toEqual(expected);
      expect(await second.readings.page(everything(ids))).toEqual(expected);
      // Stored once: the blocks hold exactly the model's count, the tail nothing.
      const sql = new Bun.SQL(url, { max: 1 });
      const [counts] = (await sql`
        SELECT (SELECT coalesce(sum(count), 0)::int FROM history_blocks) AS blocks,
               (SELECT count(*)::int FROM history_tail) AS tail`) as { blocks: number; tail: number }[];
      await sql.close();
      expect(counts).toEqual({ blocks: expected.rows.length, tail: 0 });
    });
  });
});
