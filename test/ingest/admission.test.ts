/**
 * Ingest's admission (src/ingest/admission.ts) without a store: every value of a
 * known register becomes its latest value; history waits only as the density rule
 * says; a batch that would overflow the buffer is dropped whole and counted; and
 * while the density rule waits for the store, later batches wait behind it, in
 * the order read.
 */
import { expect, test } from "bun:test";
import pino from "pino";
import { createAdmission } from "../../src/ingest/admission.ts";
import { ReadingBuffer } from "../../src/ingest/reading-buffer.ts";
import { createDensityGate } from "../../src/ingest/storage-density.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import type { PolledValue } from "../../src/lib/polled-value.ts";

const start = Date.parse("2026-11-26T12:00:00Z");

function setup(options: { maxQueued?: number; newestStored?: number; storeAnswer?: Promise<number | null> } = {}) {
  const clock = new ManualClock(start);
  const buffer = new ReadingBuffer(new Map());
  const lookups: number[] = [];
  const density = createDensityGate(async (_registerId, fromMs) => {
    lookups.push(fromMs);
    return (await options.storeAnswer) ?? null;
  });
  density.track(1, 60_000, options.newestStored);
  const latest: number[][] = [];
  const lines: string[] = [];
  const admission = createAdmission({
    registers: new Map([["reg-a", 1]]),
    density,
    buffer,
    maxQueued: options.maxQueued ?? 1000,
    clock,
    logger: pino({ level: "warn" }, { write: (line: string) => lines.push(line) }),
    takeLatest: (fresh) => latest.push(fresh.map((value) => value.ts)),
  });
  return { clock, buffer, admission, latest, lines, lookups };
}

const value = (ts: number, registerId = "reg-a"): PolledValue => ({ registerId, ts, raw: 1, monotonic: ts - start });

test("each value of a known register is a latest value; only the first of each storage period waits for the store", () => {
  const { buffer, admission, latest } = setup();
  admission.accept([value(start), value(start + 10_000), value(start + 60_000)]);
  expect(latest).toEqual([[start, start + 10_000, start + 60_000]]);
  expect(buffer.take(10).rows.map(([, ts]) => ts)).toEqual([start, start + 60_000]);
  expect(admission.counts()).toEqual({ accepted: 3, dropped: 0, unknownRegisters: 0 });
});

test("a register the store does not have is counted, warned once, and not taken", () => {
  const { buffer, admission, lines } = setup();
  admission.accept([value(start, "reg-x")]);
  admission.accept([value(start + 60_000, "reg-x")]);
  expect(buffer.length).toBe(0);
  expect(admission.counts()).toEqual({ accepted: 0, dropped: 0, unknownRegisters: 2 });
  expect(lines.filter((line) => line.includes("a register the store does not have"))).toHaveLength(1);
});

test("a batch that would take the buffer past maxQueued is dropped whole, logged and counted", () => {
  const { buffer, admission, lines } = setup({ maxQueued: 2 });
  admission.accept([value(start)]);
  admission.accept([value(start + 60_000), value(start + 120_000)]);
  expect(buffer.length).toBe(1);
  expect(admission.counts()).toEqual({ accepted: 1, dropped: 2, unknownRegisters: 0 });
  expect(lines.some((line) => line.includes("ingest queue full"))).toBe(true);
});

test("while the density rule waits for the store, later batches wait behind it, in the order read", async () => {
  let answer: (newest: number | null) => void = () => {};
  const storeAnswer = new Promise<number | null>((resolve) => {
    answer = resolve;
  });
  // Stored history ahead of the clock (a step back): the rule must ask the store.
  const { buffer, admission, lookups } = setup({ newestStored: start + 30_000, storeAnswer });
  admission.accept([value(start - 120_000)]);
  admission.accept([value(start + 120_000)]);
  expect(lookups).toHaveLength(1);
  expect(buffer.length).toBe(0);
  answer(null);
  await admission.settled();
  expect(buffer.take(10).rows.map(([, ts]) => ts)).toEqual([start - 120_000, start + 120_000]);
});
