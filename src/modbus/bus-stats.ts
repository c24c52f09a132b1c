/**
 * What went over one gateway's wire, counted at the channel for every transaction
 * (polls, writes, read-backs alike), read by `/metrics` (metrics.ts) and the
 * benchmarks. Device health, the other thing the pollers report, is kept by
 * device-health.ts.
 */
import type { ReadOutcome, WriteOutcome } from "./link.ts";

export interface BusStats {
  requests: number;
  errors: number;
  timeouts: number;
  exceptions: number;
  reconnects: number;
  /** Sum and count of request round-trip times (ms). */
  rttTotalMs: number;
  rttCount: number;
}

export class BusCounters {
  private readonly counts: BusStats = {
    requests: 0,
    errors: 0,
    timeouts: 0,
    exceptions: 0,
    reconnects: 0,
    rttTotalMs: 0,
    rttCount: 0,
  };

  /** One request and what came back, `roundTripMs` after it was sent. */
  transaction(outcome: ReadOutcome | WriteOutcome, roundTripMs: number): void {
    const counts = this.counts;
    counts.requests++;
    counts.rttTotalMs += roundTripMs;
    counts.rttCount++;
    if (outcome.ok) return;
    counts.errors++;
    if (outcome.kind === "exception") counts.exceptions++;
    else if (outcome.kind === "timeout") counts.timeouts++;
  }

  /** A connection could not be made. */
  connectFailed(): void {
    this.counts.reconnects++;
  }

  snapshot(): BusStats {
    return { ...this.counts };
  }
}
