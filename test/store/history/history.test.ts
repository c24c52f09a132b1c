/**
 * The block history engine against a plain in-memory model of the same readings
 * (docs/api.md section 4.6, rules 1 to 3): pages over closed blocks and
 * the open tail in both orders, cursors while readings arrive and while a period
 * closes, late readings, retention at the exact edge, restarts and a close cut short.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type NewReading,
  type ReadingRow,
  type ReadingsPageQuery,
  readingEpochMs,
} from "../../../src/store/contract/readings.ts";
import { openStore, type Store } from "../../../src/store/index.ts";
import { type BlockHistoryOptions, openBlockHistory } from "../../../src/store/sqlite/history/history.ts";
import { sqliteOf } from "../../../src/store/sqlite/sqlite-internals.ts";
import { seededRandom } from "../../harness/seeded-random.ts";

const dirs: string[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "fieldhub-history-"));
  dirs.push(dir);
  return dir;
}
function freshStore(dir = tempDir()): Store {
  const store = openStore(dir);
  stores.push(store);
  return store;
}

const hour = 3_600_000;
const day0 = Date.UTC(2026, 2, 1);
const hourly: BlockHistoryOptions = { periodSeconds: 3600, registersPerTransaction: 2 };

/** The model: every stored reading, first one per (register, second) kept. */
class Model {
  readonly rows = new Map<string, ReadingRow>();
  record(batch: NewReading[]): number {
    let stored = 0;
    for (const reading of batch) {
      const ts = Math.floor((reading.ts - readingEpochMs) / 1000) * 1000 + readingEpochMs;
      const key = `${reading.registerId}/${ts}`;
      if (this.rows.has(key)) continue;
      this.rows.set(key, { registerId: reading.registerId, ts, rawValue: reading.rawValue ?? null });
      stored++;
    }
    return stored;
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

/** Readings of `registers` registers every minute (with second jitter) for `minutes` from `from`. */
function plant(random: () => number, registers: number, from: number, minutes: number): NewReading[] {
  const batch: NewReading[] = [];
  for (let minute = 0; minute < minutes; minute++) {
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
              : 4_294_967_295 - minute;
      batch.push({ registerId, ts: from + minute * 60_000 + Math.floor(random() * 3000), rawValue });
    }
  }
  return batch;
}

describe("pages over closed blocks and the open tail", () => {
  const store = freshStore();
  const history = openBlockHistory(sqliteOf(store), hourly);
  const model = new Model();
  const random = seededRandom(17);

  test("record stores each (register, second) once and counts what it stored", async () => {
    const batch = plant(random, 8, day0, 300);
    expect(history.record(batch)).toBe(model.record(batch));
    // the same batch again: nothing new
    expect(history.record(batch.slice(0, 50))).toBe(0);
    await history.closePeriods(day0 + 4 * hour + 30 * 60_000, 0); // hours 0..3 close, hour 4 stays open
    expect(history.count()).toEqual({ closed: 8 * 240, open: 8 * 60 });
  });

  test("random windows, orders, limits and cursors match the model", () => {
    for (let round = 0; round < 300; round++) {
      const registers = [1, 2, 3, 4, 5, 6, 7, 8].filter(() => random() < 0.4);
      if (registers.length === 0) registers.push(1 + Math.floor(random() * 8));
      const since = day0 - hour + Math.floor(random() * 7 * hour);
      const until = since + Math.floor(random() * 4 * hour);
      const order = random() < 0.5 ? "asc" : "desc";
      const limit = 1 + Math.floor(random() * 300);
      const start = model.page({ registerIds: registers, since, until, order, limit: 1_000_000, after: null });
      const pick = start.rows[Math.floor(random() * start.rows.length)];
      const after = pick === undefined || random() < 0.3 ? null : { ts: pick.ts, registerId: pick.registerId };
      const query: ReadingsPageQuery = { registerIds: registers, since, until, order, limit, after };
      expect(history.page(query)).toEqual(model.page(query));
    }
  });

  test("since is inclusive and until exclusive to the millisecond", () => {
    const [row] = model.page({
      registerIds: [3],
      since: day0 + hour,
      until: day0 + 2 * hour,
      order: "asc",
      limit: 1,
      after: null,
    }).rows;
    if (row === undefined) throw new Error("no reading");
    const at = (since: number, until: number) =>
      history.page({ registerIds: [3], since, until, order: "asc", limit: 1, after: null }).rows.map((r) => r.ts);
    expect(at(row.ts, row.ts + 1)).toEqual([row.ts]);
    expect(at(row.ts + 1, row.ts + 60_000)).not.toContain(row.ts);
    expect(at(row.ts - 1, row.ts)).toEqual([]);
  });

  test("newest reading per register, from the tail or from the blocks", () => {
    const newest = history.latest([1, 2, 99]);
    expect(newest.map((row) => row.registerId)).toEqual([1, 2]);
    for (const row of newest) {
      expect(row).toEqual(
        model.page({ registerIds: [row.registerId], since: 0, until: 2 ** 50, order: "desc", limit: 1, after: null })
          .rows[0] as ReadingRow,
      );
    }
  });

  test("a late reading for a closed period joins its blocks; a duplicate of a closed reading is ignored", () => {
    const late = [{ registerId: 5, ts: day0 + 90 * 60_000 + 30_500, rawValue: 12.25 }];
    expect(history.record(late)).toBe(model.record(late));
    expect(history.record(late)).toBe(0);
    const query: ReadingsPageQuery = {
      registerIds: [5],
      since: day0,
      until: day0 + 3 * hour,
      order: "asc",
      limit: 1000,
      after: null,
    };
    expect(history.page(query)).toEqual(model.page(query));
  });
});

describe("cursors while readings arrive and while a period closes", () => {
  test("a walk neither skips nor repeats a row that existed when it began", async () => {
    const store = freshStore();
    const history = openBlockHistory(sqliteOf(store), hourly);
    const random = seededRandom(5);
    const registers = [1, 2, 3, 4, 5, 6];
    const first = plant(random, 6, day0, 150);
    history.record(first);
    const before = new Model();
    before.record(first);
    for (const order of ["asc", "desc"] as const) {
      const query = { registerIds: registers, since: day0, until: day0 + 6 * hour, order, limit: 37 };
      const expected = before.page({ ...query, limit: 1_000_000, after: null }).rows;
      const seen: ReadingRow[] = [];
      let after: ReadingsPageQuery["after"] = null;
      let minute = 150;
      let closing: Promise<number> | null = null;
      for (;;) {
        const page = history.page({ ...query, after });
        seen.push(...page.rows);
        // readings keep arriving, for the open hours and a little behind
        history.record(plant(random, 6, day0 + minute * 60_000, 3));
        minute += 3;
        if (closing === null && seen.length > 200) closing = history.closePeriods(day0 + 3 * hour + 11 * 60_000);
        await new Promise((resolve) => setImmediate(resolve));
        if (!page.hasMore) break;
        const last = page.rows.at(-1) as ReadingRow;
        after = { ts: last.ts, registerId: last.registerId };
      }
      await closing;
      const keys = seen.map((row) => `${row.registerId}/${row.ts}`);
      expect(new Set(keys).size).toBe(keys.length);
      const sign = order === "asc" ? 1 : -1;
      for (let index = 1; index < seen.length; index++) {
        const a = seen[index - 1] as ReadingRow;
        const b = seen[index] as ReadingRow;
        expect(sign * (b.ts - a.ts || b.registerId - a.registerId)).toBeGreaterThan(0);
      }
      const present = new Set(keys);
      for (const row of expected) expect(present.has(`${row.registerId}/${row.ts}`)).toBe(true);
    }
  });

  test("readings recorded for a period while it closes are in its blocks after the switch", async () => {
    const store = freshStore();
    const history = openBlockHistory(sqliteOf(store), { periodSeconds: 3600, registersPerTransaction: 1 });
    const model = new Model();
    const batch = plant(seededRandom(9), 4, day0, 50);
    history.record(batch);
    model.record(batch);
    const closing = history.closePeriods(day0 + 2 * hour, 0);
    for (let step = 0; step < 4; step++) {
      const late = [{ registerId: 1 + step, ts: day0 + 55 * 60_000 + step * 1000, rawValue: step }];
      history.record(late);
      model.record(late);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await closing).toBe(1);
    expect(history.count()).toEqual({ closed: 204, open: 0 });
    const query: ReadingsPageQuery = {
      registerIds: [1, 2, 3, 4],
      since: day0,
      until: day0 + hour,
      order: "asc",
      limit: 10_000,
      after: null,
    };
    expect(history.page(query)).toEqual(model.page(query));
  });
});

describe("two processes on one store file (an import beside serve)", () => {
  const everything: ReadingsPageQuery = {
    registerIds: [1, 2, 3, 4],
    since: 0,
    until: 2 ** 50,
    order: "asc",
    limit: 100_000,
    after: null,
  };
  /** Two connections to one file, each with its own engine: what two processes have. */
  function twoProcesses() {
    const dir = tempDir();
    const first = openBlockHistory(sqliteOf(freshStore(dir)), { periodSeconds: 3600, registersPerTransaction: 1 });
    const second = openBlockHistory(sqliteOf(freshStore(dir)), { periodSeconds: 3600, registersPerTransaction: 1 });
    return { first, second };
  }

  test("readings one stores, open or late, the other pages and counts as newest at once", async () => {
    const { first, second } = twoProcesses();
    const model = new Model();
    const open = plant(seededRandom(31), 4, day0, 90);
    first.record(open);
    model.record(open);
    await first.closePeriods(day0 + hour + 15 * 60_000, 0);
    expect(second.page(everything)).toEqual(model.page(everything));
    // The second still thinks the first hour is open: its late readings must land in blocks.
    const late = [
      { registerId: 1, ts: day0 + 30 * 60_000 + 500, rawValue: 7 },
      { registerId: 2, ts: day0 + 2 * hour, rawValue: 8 },
    ];
    expect(second.record(late)).toBe(2);
    model.record(late);
    expect(first.page(everything)).toEqual(model.page(everything));
    expect(first.latest([2])).toEqual([{ registerId: 2, ts: day0 + 2 * hour, rawValue: 8 }]);
    expect(first.count()).toEqual(second.count());
  });

  test("readings the other stores while one closes their period are in its blocks after the switch", async () => {
    const { first, second } = twoProcesses();
    const model = new Model();
    const batch = plant(seededRandom(33), 4, day0, 50);
    first.record(batch);
    model.record(batch);
    const closing = first.closePeriods(day0 + 2 * hour, 0);
    for (let step = 0; step < 4; step++) {
      const other = [{ registerId: 1 + step, ts: day0 + 55 * 60_000 + step * 1000, rawValue: 100 + step }];
      expect(second.record(other)).toBe(1);
      model.record(other);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await closing).toBe(1);
    expect(first.count()).toEqual({ closed: 204, open: 0 });
    expect(first.page(everything)).toEqual(model.page(everything));
    expect(second.page(everything)).toEqual(model.page(everything));
  });
});

describe("retention", () => {
  test("drops whole periods and cuts the edge period exactly, in blocks and in the tail", async () => {
    const store = freshStore();
    const history = openBlockHistory(sqliteOf(store), hourly);
    const model = new Model();
    const batch = plant(seededRandom(3), 5, day0, 400);
    history.record(batch);
    model.record(batch);
    await history.closePeriods(day0 + 5 * hour, 0);
    const all = (since: number) => ({
      registerIds: [1, 2, 3, 4, 5],
      since,
      until: 2 ** 50,
      order: "asc" as const,
      limit: 100_000,
      after: null,
    });
    for (const cutoff of [day0 + 90 * 60_000 + 20_500, day0 + 3 * hour, day0 + 5 * hour + 17_001]) {
      const expectedRemoved = model.page({ ...all(0), until: cutoff }).rows.length;
      expect(history.prune(cutoff)).toBe(expectedRemoved);
      for (const row of model.page({ ...all(0), until: cutoff }).rows) model.rows.delete(`${row.registerId}/${row.ts}`);
      expect(history.page(all(0))).toEqual(model.page(all(0)));
    }
  });
});

describe("restarts", () => {
  test("a reopened store has every reading, closed and open", async () => {
    const dir = tempDir();
    const store = openStore(dir);
    const history = openBlockHistory(sqliteOf(store), hourly);
    const model = new Model();
    const batch = plant(seededRandom(21), 6, day0, 200);
    history.record(batch);
    model.record(batch);
    await history.closePeriods(day0 + 2 * hour, 0);
    await store.close();
    const reopened = freshStore(dir);
    const again = openBlockHistory(sqliteOf(reopened), { periodSeconds: 60 }); // the store's period wins
    expect(again.periodSeconds).toBe(3600);
    const query: ReadingsPageQuery = {
      registerIds: [1, 2, 3, 4, 5, 6],
      since: 0,
      until: 2 ** 50,
      order: "desc",
      limit: 100_000,
      after: null,
    };
    expect(again.page(query)).toEqual(model.page(query));
  });

  test("a close cut short (the process gone between its transactions) runs again cleanly", async () => {
    const dir = tempDir();
    const store = openStore(dir);
    const history = openBlockHistory(sqliteOf(store), { periodSeconds: 3600, registersPerTransaction: 1 });
    const model = new Model();
    const batch = plant(seededRandom(22), 4, day0, 100);
    history.record(batch);
    model.record(batch);
    const closing = history.closePeriods(day0 + 3 * hour, 0).catch(() => "gone");
    await new Promise((resolve) => setImmediate(resolve)); // one register's blocks committed
    await store.close();
    expect(await closing).toBe("gone");
    const reopened = freshStore(dir);
    const again = openBlockHistory(sqliteOf(reopened));
    // The period being closed is still open: its blocks were dropped, its readings are in the tail.
    expect(again.openPeriod()).toBe(Math.floor((day0 - readingEpochMs) / hour));
    expect(again.count()).toEqual({ closed: 0, open: 400 });
    const query: ReadingsPageQuery = {
      registerIds: [1, 2, 3, 4],
      since: 0,
      until: 2 ** 50,
      order: "asc",
      limit: 100_000,
      after: null,
    };
    expect(again.page(query)).toEqual(model.page(query));
    await again.closePeriods(day0 + 3 * hour, 0);
    expect(again.page(query)).toEqual(model.page(query));
    expect(again.count()).toEqual({ closed: 400, open: 0 });
    expect(
      sqliteOf(reopened).query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check,
    ).toBe("ok");
  });
});

describe("periods", () => {
  test("a new store's period is four hours: a day of minutes closes into six periods of one 240-reading block each", async () => {
    const store = freshStore();
    const history = openBlockHistory(sqliteOf(store));
    expect(history.periodSeconds).toBe(14_400);
    const batch: NewReading[] = [];
    for (let minute = 0; minute < 1440; minute++)
      batch.push({ registerId: 1, ts: day0 + minute * 60_000, rawValue: minute });
    history.record(batch);
    // Four hours in, the first period has ended but is not closed before its grace.
    await history.closePeriods(day0 + 4 * 3_600_000 + 60_000);
    expect(history.count()).toEqual({ closed: 0, open: 1440 });
    await history.closePeriods(day0 + 2 * 86_400_000);
    const sizes = sqliteOf(store)
      .query<{ count: number }, []>("SELECT count FROM history_blocks WHERE register_id = 1")
      .all()
      .map((row) => row.count);
    expect(sizes).toEqual([240, 240, 240, 240, 240, 240]);
    expect(history.count()).toEqual({ closed: 1440, open: 0 });
  });
});

describe("layout", () => {
  test("a noisy day is cut into blocks that stay on their B-tree page", async () => {
    const store = freshStore();
    const history = openBlockHistory(sqliteOf(store), {
      periodSeconds: 86_400,
      readingsPerBlock: Number.POSITIVE_INFINITY,
    });
    const random = seededRandom(8);
    const batch: NewReading[] = [];
    for (let minute = 0; minute < 1440; minute++) {
      batch.push({ registerId: 1, ts: day0 + minute * 60_000, rawValue: Math.fround(230 + random() * 4) });
      batch.push({ registerId: 2, ts: day0 + minute * 60_000, rawValue: 7 });
    }
    history.record(batch);
    await history.closePeriods(day0 + 2 * 86_400_000);
    const blocks = sqliteOf(store)
      .query<{ registerId: number; n: number; longest: number }, []>(
        "SELECT register_id AS registerId, count(*) AS n, max(length(data)) AS longest FROM history_blocks GROUP BY register_id",
      )
      .all();
    expect(blocks[0]?.n).toBeGreaterThan(1);
    expect(blocks[1]?.n).toBe(1);
    const overflow = sqliteOf(store)
      .query<{ n: number }, []>(
        "SELECT count(*) AS n FROM dbstat WHERE name = 'history_blocks' AND pagetype = 'overflow'",
      )
      .get();
    expect(overflow?.n).toBe(0);
    expect(history.count()).toEqual({ closed: 2880, open: 0 });
  });
});

describe("readings per block", () => {
  test("a cap cuts a period into blocks of at most that many readings, read back the same", async () => {
    const store = freshStore();
    const history = openBlockHistory(sqliteOf(store), { periodSeconds: 86_400, readingsPerBlock: 100 });
    const model = new Model();
    const batch = plant(seededRandom(30), 3, day0, 1440);
    history.record(batch);
    model.record(batch);
    await history.closePeriods(day0 + 2 * 86_400_000);
    const sizes = sqliteOf(store)
      .query<{ count: number }, []>("SELECT count FROM history_blocks WHERE register_id = 1")
      .all()
      .map((row) => row.count);
    expect(sizes.length).toBe(15);
    expect(Math.max(...sizes)).toBe(100);
    const query: ReadingsPageQuery = {
      registerIds: [1, 2, 3],
      since: day0,
      until: day0 + 86_400_000,
      order: "desc",
      limit: 5000,
      after: null,
    };
    expect(history.page(query)).toEqual(model.page(query));
  });
});
