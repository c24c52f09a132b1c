/**
 * What went over the wire, counted at the channel for every transaction (polls,
 * writes, read-backs alike): per gateway (BusCounters) and per Modbus device
 * (DeviceBusCounters, docs/polling.md "Bus diagnostics"), read by `/metrics`
 * (metrics.ts), the device's health and the benchmarks. Counting costs a few
 * increments: no allocation on the poll path.
 */
import type { DeviceBusCounts } from "../lib/device-health.ts";
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

/** Upper bounds (seconds) of the response-time histogram's buckets; +Inf follows. */
export const responseTimeBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;
const bucketBoundsMs = responseTimeBuckets.map((seconds) => seconds * 1000);

/** A device's counters: requests to its unit id and what came back, retries, response times. */
export class DeviceBusCounters {
  requests = 0;
  timeouts = 0;
  crcErrors = 0;
  framingErrors = 0;
  retries = 0;
  /** Exception answers, indexed by exception code (one byte on the wire). */
  readonly exceptions = new Float64Array(256);
  /** Requests whose round trip fell in each bucket (not cumulative); the last is +Inf. */
  readonly responseBuckets = new Float64Array(responseTimeBuckets.length + 1);
  responseTotalMs = 0;

  /** One request and what came back, `roundTripMs` after it was sent. */
  transaction(outcome: ReadOutcome | WriteOutcome, roundTripMs: number): void {
    this.requests++;
    this.responseTotalMs += roundTripMs;
    let bucket = 0;
    while (bucket < bucketBoundsMs.length && roundTripMs > bucketBoundsMs[bucket]!) bucket++;
    this.responseBuckets[bucket]!++;
    if (outcome.ok) return;
    if (outcome.kind === "timeout") this.timeouts++;
    else if (outcome.kind === "exception") this.exceptions[outcome.code & 0xff]!++;
    else if (outcome.kind === "bad_frame") {
      if (outcome.fault === "crc") this.crcErrors++;
      else this.framingErrors++;
    }
  }

  /** A read (a poll, or a write's read before or read-back) is sent again after a timeout or a broken answer. */
  retried(): void {
    this.retries++;
  }

  /** Exception codes answered at least once, with their counts. */
  exceptionCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (let code = 0; code < this.exceptions.length; code++) {
      if (this.exceptions[code]! > 0) counts[String(code)] = this.exceptions[code]!;
    }
    return counts;
  }

  snapshot(): DeviceBusCounts {
    return {
      requests: this.requests,
      timeouts: this.timeouts,
      exceptions: this.exceptionCounts(),
      crcErrors: this.crcErrors,
      framingErrors: this.framingErrors,
      retries: this.retries,
      meanResponseMs: this.requests === 0 ? null : this.responseTotalMs / this.requests,
    };
  }
}
