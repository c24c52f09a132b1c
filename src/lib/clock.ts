/**
 * The one source of "now", injectable so tests can move time. Two clocks, as the
 * kernel has them: `now()` is the wall clock (CLOCK_REALTIME), which NTP may step
 * by hours or days on a box without a real-time clock; it stamps readings, events
 * and records. `monotonic()` never steps (CLOCK_MONOTONIC, as performance.now()):
 * everything that measures elapsed time runs on it (poll schedules, timeouts,
 * backoff, heartbeats, storage density). docs/reliability.md, "Clock steps".
 */
export interface Clock {
  /** Wall-clock time, Unix ms. */
  now(): number;
  /** Milliseconds from an arbitrary origin; only differences mean anything. */
  monotonic(): number;
}

export const systemClock: Clock = { now: () => Date.now(), monotonic: () => performance.now() };

/**
 * A clock tests set and advance by hand. `advance` lets time pass (both clocks
 * move; a negative advance steps the wall clock back, as monotonic time never
 * goes back); `set` and `step` move the wall clock alone, as NTP does.
 */
export class ManualClock implements Clock {
  private elapsed = 0;
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  monotonic(): number {
    return this.elapsed;
  }
  set(ms: number): void {
    this.current = ms;
  }
  step(ms: number): void {
    this.current += ms;
  }
  advance(ms: number): void {
    this.current += ms;
    if (ms > 0) this.elapsed += ms;
  }
}

const dayMs = 86_400_000;
const twoDigits = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, "0"));
const threeDigits = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));
/** "HH:MM:" for each minute of a day, and "SS.000Z" for each second of a minute. */
const minuteTexts = Array.from({ length: 1440 }, (_, n) => `${twoDigits[Math.floor(n / 60)]}:${twoDigits[n % 60]}:`);
const wholeSecondTexts = twoDigits.map((seconds) => `${seconds}.000Z`);
let cachedDay = Number.NaN;
let cachedDayPrefix = "";

/**
 * On the wire every timestamp is ISO 8601 in UTC (docs/api.md section 1); stored as integer milliseconds.
 * Same output as Date#toISOString; the date part is cached per day because a
 * page of readings formats a thousand timestamps from the same few days, and
 * stored readings fall on whole seconds, which take three table lookups.
 */
export function isoFromMs(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= 253_402_300_800_000) return new Date(ms).toISOString();
  const day = Math.floor(ms / dayMs);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDayPrefix = new Date(day * dayMs).toISOString().slice(0, 11);
  }
  let rest = ms - day * dayMs;
  const milliseconds = rest % 1000;
  rest = (rest - milliseconds) / 1000;
  const seconds = rest % 60;
  const minuteOfDay = (rest - seconds) / 60;
  if (milliseconds === 0) return `${cachedDayPrefix}${minuteTexts[minuteOfDay]}${wholeSecondTexts[seconds]}`;
  return `${cachedDayPrefix}${minuteTexts[minuteOfDay]}${twoDigits[seconds]}.${threeDigits[milliseconds]}Z`;
}

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
