/**
 * Rate-limit counters shared by every central process (docs/api.md sections 4 and 8; docs/fleet.md,
 * "Shared rate limits"): one upsert per request counts it and returns the count, so
 * two processes counting the same key in the same minute never both see a free slot.
 *
 * Its pool commits with synchronous_commit off (index.ts): a take does not wait for
 * the WAL flush. Exactness across processes is unchanged (the row lock orders the
 * upserts); what a crash of PostgreSQL itself can lose is the last few hundred
 * milliseconds of counts, an allowance a little over the limit for one minute,
 * never a message or a reading.
 */
import { judged, type RateLimitStore, type RateLimitTake, rateLimitWindowMs } from "../contract/rate-limits.ts";
import type { Sql } from "./connection.ts";

export function postgresRateLimitStore(sql: Sql): RateLimitStore {
  /** The newest window this process has pruned before. */
  let prunedBefore = 0;

  async function take(bucket: string, windowStartMs: number, limit: number): Promise<RateLimitTake> {
    if (windowStartMs > prunedBefore) await prune(windowStartMs);
    const [row] = (await sql`
      INSERT INTO rate_limits (bucket, window_start, count) VALUES (${bucket}, ${windowStartMs}, 1)
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + 1
      RETURNING count`) as { count: number }[];
    return judged(row?.count ?? 1, limit, windowStartMs);
  }

  async function count(bucket: string, windowStartMs: number): Promise<number> {
    const [row] = (await sql`
      SELECT count FROM rate_limits WHERE bucket = ${bucket} AND window_start = ${windowStartMs}`) as {
      count: number;
    }[];
    return row?.count ?? 0;
  }

  /**
   * Windows before the one just entered are finished: each process deletes them once
   * a minute, at its first take of a new window (a cheap range delete on the key; the
   * table holds one or two minutes of buckets). The previous window is kept a minute
   * longer, for a process whose clock runs a little behind.
   */
  async function prune(windowStartMs: number): Promise<void> {
    prunedBefore = windowStartMs;
    await sql`DELETE FROM rate_limits WHERE window_start < ${windowStartMs - rateLimitWindowMs}`;
  }

  return { take, count };
}
