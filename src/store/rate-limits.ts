/**
 * Requests counted per bucket and one-minute window (spec section 8: the
 * X-RateLimit-* headers, 429 with Retry-After). A bucket is what http/api-gate.ts
 * counts under: an API key, a sandbox key per address, or a client address.
 *
 * On a box one process serves the API, so the counters live in its memory: a
 * SQLite table would cost a write (and, on an SD card, flash wear) per request for
 * nothing another process reads. Several central processes share the PostgreSQL
 * implementation (postgres/rate-limit-store.ts), where one upsert counts a request
 * exactly across processes.
 */

/** The windows are whole minutes (spec section 8: the count resets each minute). */
export const rateLimitWindowMs = 60_000;

export interface RateLimitTake {
  /** Requests counted in the window, this one included. */
  count: number;
  /** When the window ends (ms): the count starts again from zero. */
  resetAt: number;
}

export interface RateLimitStore {
  /** Counts one request for `bucket` in the window starting at `windowStartMs`, atomically. */
  take(bucket: string, windowStartMs: number): RateLimitTake;
  /** The requests counted so far in that window, without counting one. */
  count(bucket: string, windowStartMs: number): number;
}

/** The start of the window `now` falls in. */
export function rateLimitWindowOf(now: number): number {
  return Math.floor(now / rateLimitWindowMs) * rateLimitWindowMs;
}

/** One process's counters; a new window drops the old ones, so memory holds one minute's buckets. */
export function memoryRateLimitStore(): RateLimitStore {
  const counts = new Map<string, number>();
  let window = Number.NEGATIVE_INFINITY;
  // A request stamped in a window already left (a clock step back) is counted in
  // the current one: that window's counters are gone.
  const enter = (windowStartMs: number): void => {
    if (windowStartMs > window) {
      window = windowStartMs;
      counts.clear();
    }
  };
  return {
    take(bucket, windowStartMs) {
      enter(windowStartMs);
      const count = (counts.get(bucket) ?? 0) + 1;
      counts.set(bucket, count);
      return { count, resetAt: window + rateLimitWindowMs };
    },
    count(bucket, windowStartMs) {
      enter(windowStartMs);
      return counts.get(bucket) ?? 0;
    },
  };
}
