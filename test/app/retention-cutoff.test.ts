/**
 * The retention cutoff (app/schedules.ts, docs/reliability.md "Clock steps"):
 * history is never pruned because of a clock jump, nor past the newest stored
 * reading minus the retention.
 */
import { expect, test } from "bun:test";
import { retentionCutoff } from "../../src/app/schedules.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { createTrustedWallClock } from "../../src/lib/trusted-wall-clock.ts";

const day = 86_400_000;
const retention = 365 * day;
const start = Date.parse("2026-03-02T10:00:00Z");

test("on a steady clock with fresh data: the retention before now", () => {
  const clock = new ManualClock(start);
  expect(retentionCutoff(createTrustedWallClock(clock), start - 1_000, retention)).toEqual({
    cutoff: start - 1_000 - retention,
    heldBy: null,
  });
});

test("a clock stepped a year ahead: the cutoff stays at the time before the step, and says why", () => {
  const clock = new ManualClock(start);
  const trusted = createTrustedWallClock(clock);
  clock.step(2 * retention);
  // Readings stored after the step carry the future time; they do not move the cutoff either.
  expect(retentionCutoff(trusted, start + 2 * retention, retention)).toEqual({
    cutoff: start - retention,
    heldBy: "clock_step",
  });
});

test("a clock ahead of all history since start (no step seen): the newest stored reading holds the cutoff", () => {
  const clock = new ManualClock(start + 2 * retention);
  const newest = start;
  expect(retentionCutoff(createTrustedWallClock(clock), newest, retention)).toEqual({
    cutoff: newest - retention,
    heldBy: "newest_reading",
  });
});

test("an empty store: the retention before the trusted time", () => {
  const clock = new ManualClock(start);
  expect(retentionCutoff(createTrustedWallClock(clock), null, retention).cutoff).toBe(start - retention);
});
