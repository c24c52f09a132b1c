/**
 * Admission: which of a poll's values ingest takes. Every value of a known
 * register becomes its latest value; a value also waits for the store when the
 * density rule (storage-density.ts) stores it; a batch that would take the buffer
 * past `maxQueued` readings is dropped whole, logged and counted, never silently.
 *
 * Synchronous unless the density rule must ask the store (after a clock step
 * back): then that batch, and every batch after it, is taken once the answer is
 * in, in the order read.
 */
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { PolledValue } from "../lib/polled-value.ts";
import { SerialTurns } from "../lib/serial-turns.ts";
import type { LatestValue } from "../store/contract/readings.ts";
import type { ReadingBuffer } from "./reading-buffer.ts";
import type { DensityGate } from "./storage-density.ts";

export interface AdmissionCounts {
  accepted: number;
  dropped: number;
  unknownRegisters: number;
}

export interface AdmissionOptions {
  /** Internal register id by public id. */
  registers: ReadonlyMap<string, number>;
  density: DensityGate;
  buffer: ReadingBuffer;
  maxQueued: number;
  clock: Clock;
  logger: Logger;
  /** Takes the latest values of an admitted stretch (served at once; only history waits for the commit). */
  takeLatest(fresh: LatestValue[]): void;
  /** Scale factors read from the devices that differ from the ones taken before (written at once, like latest values). */
  takeScaleFactors?(changed: { registerId: number; scaleFactor: number }[]): void;
  /** Counts a numeric value towards its storage period's aggregate; `stored` when it is the period's reading (period-aggregates.ts). */
  countValue?(registerId: number, ts: number, raw: number | null, stored: boolean): void;
}

export function createAdmission(options: AdmissionOptions) {
  const { registers, density, buffer, clock, logger } = options;
  const counts: AdmissionCounts = { accepted: 0, dropped: 0, unknownRegisters: 0 };
  const warnedUnknown = new Set<string>();
  /** Each register's scale factor read from its device, as last taken. */
  const scaleFactors = new Map<number, number>();
  /** Batches wait here while one waits for the store's answer on density. */
  const waiting = new SerialTurns((error) => logger.error({ err: error }, "ingest could not take a batch of readings"));

  function accept(batch: readonly PolledValue[]): void {
    if (waiting.idle) {
      const answer = acceptFrom(batch, 0);
      if (answer !== undefined) void waiting.run(() => answer);
    } else {
      void waiting.run(() => acceptFrom(batch, 0));
    }
  }

  /** Takes the batch from `start`; a promise when the density rule waits for the store, continuing after it. */
  function acceptFrom(batch: readonly PolledValue[], start: number): Promise<void> | undefined {
    if (start === 0 && buffer.length + batch.length > options.maxQueued) {
      counts.dropped += batch.length;
      logger.error({ dropped: batch.length, queued: buffer.length }, "ingest queue full: batch of readings dropped");
      return undefined;
    }
    const now = clock.now();
    const monotonicNow = clock.monotonic();
    const fresh: LatestValue[] = [];
    const changedScales: { registerId: number; scaleFactor: number }[] = [];
    for (let index = start; index < batch.length; index++) {
      const reading = batch[index] as PolledValue;
      const registerId = registers.get(reading.registerId);
      if (registerId === undefined) {
        counts.unknownRegisters++;
        if (!warnedUnknown.has(reading.registerId)) {
          warnedUnknown.add(reading.registerId);
          logger.warn({ register_id: reading.registerId }, "reading for a register the store does not have");
        }
        continue;
      }
      counts.accepted++;
      fresh.push({ registerId, rawValue: reading.raw, ts: reading.ts });
      if (reading.scaleFactor !== undefined && scaleFactors.get(registerId) !== reading.scaleFactor) {
        scaleFactors.set(registerId, reading.scaleFactor);
        changedScales.push({ registerId, scaleFactor: reading.scaleFactor });
      }
      if (reading.text !== undefined) {
        buffer.noteText(registerId, reading.text);
        continue;
      }
      const readAt = reading.monotonic ?? monotonicNow - (now - reading.ts);
      const admitted = density.admit(registerId, reading.ts, readAt);
      if (admitted === true) buffer.add(registerId, reading.ts, reading.raw, monotonicNow);
      if (typeof admitted === "boolean") options.countValue?.(registerId, reading.ts, reading.raw, admitted);
      else {
        if (changedScales.length > 0) options.takeScaleFactors?.(changedScales);
        options.takeLatest(fresh);
        return admitted.then((stored) => {
          if (stored) buffer.add(registerId, reading.ts, reading.raw, monotonicNow);
          options.countValue?.(registerId, reading.ts, reading.raw, stored);
          return acceptFrom(batch, index + 1);
        });
      }
    }
    if (changedScales.length > 0) options.takeScaleFactors?.(changedScales);
    options.takeLatest(fresh);
    return undefined;
  }

  return {
    accept,
    /** Settles once no batch waits for a density answer. */
    async settled(): Promise<void> {
      while (!waiting.idle) await waiting.settled();
    },
    counts: (): Readonly<AdmissionCounts> => counts,
  };
}
