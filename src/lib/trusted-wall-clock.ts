/**
 * The wall clock as deletions may trust it (docs/reliability.md, "Clock steps").
 * A box without a real-time clock may run hours or days wrong, and NTP steps it;
 * a step forward that is wrong (a bad server, a bad RTC) must not make retention
 * delete history. So a step back is believed at once (it only deletes less), and
 * a step forward only once the new time has held for `settleMs`; until then the
 * trusted time is the time before the step, moved on by monotonic time.
 *
 * Steps are seen by comparing the wall and monotonic clocks whenever `now()` is
 * asked, so a step is noticed at the first question after it.
 */
import type { Clock } from "./clock.ts";

/** A change of wall minus monotonic time larger than this is a step (NTP slews far less). */
const stepThresholdMs = 1_000;

export function createTrustedWallClock(clock: Clock, settleMs = 3_600_000) {
  let trustedOffset = clock.now() - clock.monotonic();
  let ahead: { offset: number; since: number } | null = null;

  function now(): number {
    const monotonic = clock.monotonic();
    const offset = clock.now() - monotonic;
    if (offset <= trustedOffset + stepThresholdMs) {
      trustedOffset = offset;
      ahead = null;
    } else if (ahead === null || Math.abs(offset - ahead.offset) > stepThresholdMs) {
      ahead = { offset, since: monotonic };
    } else if (monotonic - ahead.since >= settleMs) {
      trustedOffset = offset;
      ahead = null;
    }
    return monotonic + trustedOffset;
  }

  return {
    now,
    /** How far the wall clock is ahead of the trusted time (0 when it is trusted). */
    aheadMs(): number {
      return Math.max(0, clock.now() - now());
    },
  };
}
export type TrustedWallClock = ReturnType<typeof createTrustedWallClock>;
