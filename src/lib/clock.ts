/** The one source of "now", injectable so tests can move time. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests set and advance by hand. */
export class ManualClock implements Clock {
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

const dayMs = 86_400_000;
const twoDigits = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, "0"));
const threeDigits = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));
let cachedDay = Number.NaN;
let cachedDayPrefix = "";

/**
 * Spec: all timestamps are ISO 8601 in UTC (stored as integer milliseconds).
 * Same output as Date#toISOString; the date part is cached per day because a
 * page of readings formats a thousand timestamps from the same few days.
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
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${cachedDayPrefix}${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[milliseconds]}Z`;
}

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
