/**
 * Rate limits counted per key and minute (docs/api.md section 8.1, "Limits"; section 4: the
 * X-RateLimit-* headers): the PostgreSQL counter is exact across processes (two
 * pools counting one key at once), and answers as the in-memory one of a box does.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rateLimitWindowOf } from "../../../src/store/contract/rate-limits.ts";
import { memoryRateLimitStore } from "../../../src/store/memory-rate-limits.ts";
import { openPostgresStore, type PostgresStore } from "../../../src/store/postgres/index.ts";
import {
  type PrivatePostgres,
  postgresAvailable,
  postgresMissingReason,
  startPostgres,
} from "../../harness/postgres.ts";

let pg: PrivatePostgres | undefined;
const opened: PostgresStore[] = [];

beforeAll(async () => {
  if (postgresAvailable) pg = await startPostgres();
});
afterAll(async () => {
  for (const store of opened) await store.close();
  await pg?.stop();
});

async function pgStore(url: string): Promise<PostgresStore> {
  const store = await openPostgresStore(url, { max: 8 });
  opened.push(store);
  return store;
}

const minute = Date.UTC(2026, 10, 24, 16, 0);

describe("the in-memory counter of a box", () => {
  test("counts per bucket, judges against the limit, and starts again each minute", async () => {
    const limits = memoryRateLimitStore();
    expect(rateLimitWindowOf(minute + 59_999)).toBe(minute);
    const takes = [];
    for (let index = 0; index < 3; index++) takes.push(await limits.take("key:a", minute, 2));
    expect(takes).toEqual([
      { count: 1, allowed: true, remaining: 1, resetAt: minute + 60_000 },
      { count: 2, allowed: true, remaining: 0, resetAt: minute + 60_000 },
      { count: 3, allowed: false, remaining: 0, resetAt: minute + 60_000 },
    ]);
    expect((await limits.take("key:b", minute, 2)).count).toBe(1);
    expect(await limits.count("key:a", minute)).toBe(3);
    expect(await limits.take("key:a", minute + 60_000, 2)).toMatchObject({ count: 1, allowed: true });
    expect(await limits.count("key:b", minute + 60_000)).toBe(0);
  });
});

describe.skipIf(!postgresAvailable)(`rate limits on PostgreSQL (${postgresMissingReason})`, () => {
  test("answers as the in-memory counter for one process", async () => {
    const store = await pgStore(await (pg as PrivatePostgres).database("same"));
    const memory = memoryRateLimitStore();
    const sequence: [string, number][] = [
      ["key:a", minute],
      ["key:a", minute + 1],
      ["anon:127.0.0.1", minute + 2],
      ["key:a", minute + 3],
      ["key:a", minute + 60_000],
      ["anon:127.0.0.1", minute + 60_001],
    ];
    for (const [bucket, now] of sequence) {
      const window = rateLimitWindowOf(now);
      expect(await store.rateLimits.take(bucket, window, 2)).toEqual(await memory.take(bucket, window, 2));
    }
    expect(await store.rateLimits.count("key:a", minute + 60_000)).toBe(1);
    expect(await store.rateLimits.count("key:z", minute + 60_000)).toBe(0);
  });

  test("two processes counting one key at once: 2 x 500 takes against 600 allow exactly 600", async () => {
    const url = await (pg as PrivatePostgres).database("shared");
    const a = await pgStore(url);
    const b = await pgStore(url);
    const window = rateLimitWindowOf(Date.now());
    const burst = (store: PostgresStore) =>
      Promise.all(Array.from({ length: 500 }, () => store.rateLimits.take("key:shared", window, 600)));
    const [fromA, fromB] = await Promise.all([burst(a), burst(b)]);
    const all = [...fromA, ...fromB];
    expect(all.filter((take) => take.allowed)).toHaveLength(600);
    // Every request got its own count: 1..1000, none seen twice.
    expect(new Set(all.map((take) => take.count)).size).toBe(1000);
    expect(Math.max(...all.map((take) => take.count))).toBe(1000);
    expect(fromA.some((take) => take.allowed) && fromB.some((take) => take.allowed)).toBe(true);
    expect(await a.rateLimits.count("key:shared", window)).toBe(1000);
  });

  test("a new window prunes the ones before the previous: the table holds about two minutes", async () => {
    const url = await (pg as PrivatePostgres).database("prune");
    const store = await pgStore(url);
    for (let m = 0; m < 5; m++) await store.rateLimits.take("key:a", minute + m * 60_000, 10);
    const sql = new Bun.SQL(url, { max: 1 });
    const rows = (await sql`SELECT window_start FROM rate_limits ORDER BY window_start`) as { window_start: string }[];
    await sql.close();
    expect(rows.map((row) => Number(row.window_start))).toEqual([minute + 3 * 60_000, minute + 4 * 60_000]);
  });
});
