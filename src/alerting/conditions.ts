/**
 * What each rule condition means (docs/api.md section 3, docs/alerts.md): when it is met,
 * when a breach counts as returned, and how it reads in a default message. One table,
 * so the config's checks and the engine cannot disagree on which conditions have a
 * hysteresis band.
 */
import { type Condition, conditions } from "./rule-model.ts";

interface ConditionMeaning {
  /** How it reads in a default message: `co2 above {threshold} {unit}`. */
  words: string;
  isMet: (value: number, threshold: number) => boolean;
  /**
   * Back within limit past the hysteresis band; only a condition on one side of a
   * limit has a band (eq and ne have none: they return as soon as they are not met).
   */
  isPastBand?: (value: number, threshold: number, hysteresis: number) => boolean;
}

const meanings: Record<Condition, ConditionMeaning> = {
  gt: { words: "above", isMet: (v, t) => v > t, isPastBand: (v, t, h) => v <= t - h },
  gte: { words: "at or above", isMet: (v, t) => v >= t, isPastBand: (v, t, h) => v < t - h },
  lt: { words: "below", isMet: (v, t) => v < t, isPastBand: (v, t, h) => v >= t + h },
  lte: { words: "at or below", isMet: (v, t) => v <= t, isPastBand: (v, t, h) => v > t + h },
  eq: { words: "equal to", isMet: (v, t) => v === t },
  ne: { words: "not equal to", isMet: (v, t) => v !== t },
};

/** Conditions a hysteresis applies to: a band only makes sense on one side of a limit. */
export const hysteresisConditions: readonly Condition[] = conditions.filter(
  (condition) => meanings[condition].isPastBand !== undefined,
);

export function conditionWords(condition: Condition): string {
  return meanings[condition].words;
}

export function isMet(condition: Condition, value: number, threshold: number): boolean {
  return meanings[condition].isMet(value, threshold);
}

/** Back within limit, past the hysteresis band where the condition has one. */
export function isCleared(condition: Condition, value: number, threshold: number, hysteresis: number): boolean {
  const { isMet, isPastBand } = meanings[condition];
  return isPastBand === undefined ? !isMet(value, threshold) : isPastBand(value, threshold, hysteresis);
}
