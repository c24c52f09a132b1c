/**
 * Requests counted per bucket and one-minute window (docs/api.md section 8.1, "Limits": the
 * window resets at the start of every minute; section 4: the X-RateLimit-* headers
 * on every response; section 7: 429 `rate_limited` with Retry-After). A bucket is what http/api-gate.ts
 * counts under: an API key, a sandbox key per address, or a client address.
 *
 * The rate limits domain of the store contract. On a box one process serves the
 * API, so the counters live in its memory (../memory-rate-limits.ts): a SQLite
 * table would cost a write (and, on an SD card, flash wear) per request for nothing
 * another process reads. Several central processes share the PostgreSQL
 * implementation (../postgres/rate-limit-store.ts), where one upsert counts a
 * request exactly across processes.
 */

/** The windows are whole minutes (docs/api.md section 8: the count resets each minute). */
export const rateLimitWindowMs = 60_000;

export interface RateLimitTake {
  /** Requests counted in the window, this one included. */
  count: number;
  /** Whether this request is within the limit (count <= limit). */
  allowed: boolean;
  /** Requests left in the window after this one (X-RateLimit-Remaining). */
  remaining: number;
  /** When the window ends (ms): the count starts again from zero. */
  resetAt: number;
}

export interface RateLimitStore {
  /**
   * Counts one request for `bucket` in the window starting at `windowStartMs`,
   * atomically, and judges it against `limit`. A refused request is counted too
   * (as http/rate-limit.ts does), so the count is every request of the window.
   */
  take(bucket: string, windowStartMs: number, limit: number): Promise<RateLimitTake>;
  /** The requests counted so far in that window, without counting one. */
  count(bucket: string, windowStartMs: number): Promise<number>;
}

/** The start of the window `now` falls in. */
export function rateLimitWindowOf(now: number): number {
  return Math.floor(now / rateLimitWindowMs) * rateLimitWindowMs;
}

/** A count judged against its limit. */
export function judged(count: number, limit: number, windowStartMs: number): RateLimitTake {
  return {
    count,
    allowed: count <= limit,
    remaining: Math.max(0, limit - count),
    resetAt: windowStartMs + rateLimitWindowMs,
  };
}
