/**
 * The rate limits of one process, in its memory: a box's API counters
 * (contract/rate-limits.ts says why not a table) and the admin page's sign-in
 * throttle on either engine.
 */
import { judged, type RateLimitStore } from "./contract/rate-limits.ts";

/** One process's counters; a new window drops the old ones, so memory holds one minute's buckets. */
export function memoryRateLimitStore(): RateLimitStore {
  const counts = new Map<string, number>();
  let window = Number.NEGATIVE_INFINITY;
  // Any other window starts afresh, one stepped back to included (an NTP step): its
  // counters are gone, and the reset time it gives is its own end, not hours away.
  const enter = (windowStartMs: number): void => {
    if (windowStartMs !== window) {
      window = windowStartMs;
      counts.clear();
    }
  };
  return {
    async take(bucket, windowStartMs, limit) {
      enter(windowStartMs);
      const count = (counts.get(bucket) ?? 0) + 1;
      counts.set(bucket, count);
      return judged(count, limit, windowStartMs);
    },
    async count(bucket, windowStartMs) {
      enter(windowStartMs);
      return counts.get(bucket) ?? 0;
    },
  };
}
