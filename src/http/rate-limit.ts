/**
 * Fixed one-minute windows that reset at the start of every minute (docs/api.md section
 * 8), counted by a `RateLimitStore`: the API's are the store's (`rateLimits`: in
 * memory on a box, shared by every central process on PostgreSQL, docs/fleet.md);
 * the admin login's are this process's own (`memoryRateLimitStore()`).
 */
import type { Clock } from "../lib/clock.ts";
import { type RateLimitStore, rateLimitWindowMs, rateLimitWindowOf } from "../store/contract/rate-limits.ts";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (docs/api.md section 8.2: X-RateLimit-Reset). */
  resetSeconds: number;
}

/** Requests counted per bucket and minute, judged against a limit, with the figures of the X-RateLimit-* headers. */
export class StoreRateLimiter {
  constructor(
    private readonly counters: RateLimitStore,
    private readonly clock: Clock,
  ) {}

  /** Counts one request against `bucket` and says whether it may proceed. */
  async take(bucket: string, limit: number): Promise<RateDecision> {
    const now = this.clock.now();
    const window = rateLimitWindowOf(now);
    const taken = await this.counters.take(bucket, window, limit);
    return { allowed: taken.allowed, limit, remaining: taken.remaining, resetSeconds: resetSecondsOf(window, now) };
  }

  /** Whether `bucket` has used up `limit` this minute, without counting a request. */
  async exhausted(bucket: string, limit: number): Promise<boolean> {
    return (await this.counters.count(bucket, rateLimitWindowOf(this.clock.now()))) >= limit;
  }

  /** The headers' figures for `bucket` as it stands, without counting a request. */
  async peek(bucket: string, limit: number): Promise<RateDecision> {
    const now = this.clock.now();
    const window = rateLimitWindowOf(now);
    const used = await this.counters.count(bucket, window);
    return { allowed: true, limit, remaining: Math.max(0, limit - used), resetSeconds: resetSecondsOf(window, now) };
  }
}

function resetSecondsOf(windowStartMs: number, now: number): number {
  return Math.max(1, Math.ceil((windowStartMs + rateLimitWindowMs - now) / 1000));
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    "x-ratelimit-limit": String(decision.limit),
    "x-ratelimit-remaining": String(decision.remaining),
    "x-ratelimit-reset": String(decision.resetSeconds),
  };
  if (!decision.allowed) headers["retry-after"] = String(decision.resetSeconds);
  return headers;
}
