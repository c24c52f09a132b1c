/**
 * Fixed one-minute windows that reset at the start of every minute (spec section
 * 8). The API's counters are the store's (`rateLimits`: in memory on a box, shared
 * by every central process on PostgreSQL, docs/fleet.md); the admin login's stay in
 * this process's memory.
 */
import type { Clock } from "../lib/clock.ts";
import { type RateLimitStore, rateLimitWindowOf } from "../store/rate-limits.ts";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (spec: X-RateLimit-Reset). */
  resetSeconds: number;
}

const windowMs = 60_000;

/** The API's request counter (api-gate.ts): the store's counters, judged per bucket and minute. */
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
  return Math.max(1, Math.ceil((windowStartMs + windowMs - now) / 1000));
}

/** In-memory counters, for the admin login's throttle (one process's guard against guessing). */
export class FixedWindowRateLimiter {
  private readonly counts = new Map<string, number>();
  private window = -1;

  constructor(private readonly clock: Clock) {}

  /** Counts one request against `bucket` and says whether it may proceed. */
  take(bucket: string, limit: number): RateDecision {
    const now = this.clock.now();
    this.enterWindowOf(now);
    const used = (this.counts.get(bucket) ?? 0) + 1;
    this.counts.set(bucket, used);
    return this.decision(now, used, limit);
  }

  /** Whether `bucket` has used up `limit` this minute, without counting a request. */
  exhausted(bucket: string, limit: number): boolean {
    this.enterWindowOf(this.clock.now());
    return (this.counts.get(bucket) ?? 0) >= limit;
  }

  /** The headers' figures for `bucket` as it stands, without counting a request. */
  peek(bucket: string, limit: number): RateDecision {
    const now = this.clock.now();
    this.enterWindowOf(now);
    return { ...this.decision(now, this.counts.get(bucket) ?? 0, limit), allowed: true };
  }

  private enterWindowOf(now: number): void {
    const window = Math.floor(now / windowMs);
    if (window !== this.window) {
      // A new minute: every bucket starts again, and old ones cost no memory.
      this.window = window;
      this.counts.clear();
    }
  }

  private decision(now: number, used: number, limit: number): RateDecision {
    const resetSeconds = Math.max(1, Math.ceil(((this.window + 1) * windowMs - now) / 1000));
    return { allowed: used <= limit, limit, remaining: Math.max(0, limit - used), resetSeconds };
  }
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
