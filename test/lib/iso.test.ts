/** isoFromMs formats every timestamp of the API: it must equal Date#toISOString exactly. */
import { describe, expect, test } from "bun:test";
import { isoFromMs } from "../../src/lib/clock.ts";

describe("isoFromMs", () => {
  test("equals Date#toISOString on whole seconds and on milliseconds, across days, months and years", () => {
    const mismatches: { ms: number; got: string; expected: string }[] = [];
    let checked = 0;
    const starts = [
      Date.UTC(2024, 1, 28, 23, 59, 0),
      Date.UTC(2025, 11, 31, 23, 0, 0),
      0,
      Date.UTC(1999, 11, 31, 23, 59, 59),
    ];
    for (const start of starts) {
      for (let step = 0; step < 5000; step++) {
        for (const ms of [start + step * 1000, start + step * 1000 + 7, start + step * 60_000 + 999]) {
          const expected = new Date(ms).toISOString();
          const got = isoFromMs(ms);
          checked++;
          if (got !== expected) mismatches.push({ ms, got, expected });
        }
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(checked).toBe(starts.length * 5000 * 3);
  });

  test("outside the four-digit years, and for fractions, falls back to Date#toISOString", () => {
    for (const ms of [-1, -86_400_000, 253_402_300_800_000, 1.5]) {
      expect(isoFromMs(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
