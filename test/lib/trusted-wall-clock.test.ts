/**
 * The wall clock deletions trust (lib/trusted-wall-clock.ts): a step back is
 * believed at once, a step forward only once it has held an hour; meanwhile the
 * time before the step runs on with monotonic time.
 */
import { expect, test } from "bun:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { createTrustedWallClock } from "../../src/lib/trusted-wall-clock.ts";

const hour = 3_600_000;
const day = 24 * hour;
const start = Date.parse("2026-03-02T10:00:00Z");

test("on a steady clock, the trusted time is the wall time", () => {
  const clock = new ManualClock(start);
  const trusted = createTrustedWallClock(clock);
  clock.advance(5 * hour);
  expect(trusted.now()).toBe(start + 5 * hour);
  expect(trusted.aheadMs()).toBe(0);
});

test("a step forward is held back until it has lasted an hour", () => {
  const clock = new ManualClock(start);
  const trusted = createTrustedWallClock(clock);
  clock.step(3 * day);
  clock.advance(60_000);
  expect(trusted.now()).toBe(start + 60_000);
  expect(trusted.aheadMs()).toBe(3 * day);
  clock.advance(hour - 1);
  expect(trusted.now()).toBe(start + 60_000 + hour - 1);
  clock.advance(1);
  expect(trusted.now()).toBe(start + 3 * day + 60_000 + hour);
  expect(trusted.aheadMs()).toBe(0);
});

test("a step forward and back within the hour is never believed", () => {
  const clock = new ManualClock(start);
  const trusted = createTrustedWallClock(clock);
  clock.step(3 * day);
  expect(trusted.now()).toBe(start);
  clock.advance(30 * 60_000);
  clock.step(-3 * day);
  expect(trusted.now()).toBe(start + 30 * 60_000);
  clock.advance(2 * hour);
  expect(trusted.now()).toBe(clock.now());
});

test("a step back is believed at once", () => {
  const clock = new ManualClock(start);
  const trusted = createTrustedWallClock(clock);
  clock.step(-day);
  expect(trusted.now()).toBe(start - day);
});
