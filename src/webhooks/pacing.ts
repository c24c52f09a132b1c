/**
 * An endpoint's `rate_limit_per_s` (docs/webhooks.md, "Pacing"): a token bucket per
 * endpoint, in this process's memory. Tokens come at the endpoint's rate; an attempt
 * takes one. The bucket holds one token (attempts start at least 1/N s apart, so
 * no second sees more than N), or 20 ms' worth above 50 a second, where the
 * dispatcher's turns are too coarse to start attempts one by one (a second then
 * sees at most 2% more than N). Endpoints without a limit have no bucket; one
 * endpoint's bucket never slows another.
 */

/** The time one bucket may hold, in ms of its rate, above 50 a second. */
const burstMs = 20;

interface Bucket {
  perSecond: number;
  tokens: number;
  /** Monotonic ms when `tokens` was counted. */
  at: number;
}

export class EndpointPacing {
  readonly #buckets = new Map<number, Bucket>();
  readonly #now: () => number;

  /** `now`: a monotonic clock in ms. */
  constructor(now: () => number) {
    this.#now = now;
  }

  /** Attempts the endpoint may start now (Infinity without a limit). */
  available(endpointId: number, perSecond: number | null): number {
    if (perSecond === null) {
      this.#buckets.delete(endpointId);
      return Number.POSITIVE_INFINITY;
    }
    return Math.floor(this.#refilled(endpointId, perSecond).tokens);
  }

  /** The endpoint starts `count` attempts. */
  take(endpointId: number, count: number): void {
    const bucket = this.#buckets.get(endpointId);
    if (bucket !== undefined) bucket.tokens -= count;
  }

  /** Ms until the endpoint has a token again (0 when it has one or has no limit). */
  waitFor(endpointId: number): number {
    const bucket = this.#buckets.get(endpointId);
    if (bucket === undefined) return 0;
    const { tokens } = this.#refilled(endpointId, bucket.perSecond);
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 1000) / bucket.perSecond);
  }

  #refilled(endpointId: number, perSecond: number): Bucket {
    const now = this.#now();
    const capacity = Math.max(1, (perSecond * burstMs) / 1000);
    let bucket = this.#buckets.get(endpointId);
    if (bucket === undefined || bucket.perSecond !== perSecond) {
      // A new (or changed) limit starts with one token.
      bucket = { perSecond, tokens: Math.min(1, bucket?.tokens ?? 1), at: now };
      this.#buckets.set(endpointId, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) * perSecond) / 1000);
    bucket.at = now;
    return bucket;
  }
}
