/**
 * Fixed one-minute windows that reset at the start of every minute (spec section
 * 8). Counters live in memory: one fieldhub process owns its port.
 */
import type { Clock } from "../lib/clock.ts";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (spec: X-RateLimit-Reset). */
  resetSeconds: number;
}

const windowMs = 60_000;

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
