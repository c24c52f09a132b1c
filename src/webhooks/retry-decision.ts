/**
 * What follows an attempt (docs/webhooks.md, "Delivery and retries" and
 * "Pausing, held messages and enabling"), decided from the attempt alone:
 *
 * - a 2xx answer: delivered;
 * - 410 Gone: the endpoint pauses at once, the message gets no more attempts;
 * - any other failure, while the schedule has a delay left for this attempt: the
 *   next attempt after that delay, or after the Retry-After of a 429 or 503 when
 *   it asks longer, but never after more than the schedule's longest delay;
 * - a failure of the last attempt (attempts = delays + 1): the message failed, and
 *   the endpoint pauses once `pauseAfterFailedMessages` messages in a row failed
 *   (the store keeps that count: `settle`).
 */
import type { AttemptOutcome } from "../store/contract/webhooks.ts";

/** The schedule of docs/api.md section 6.4: retries after 30 s, 2 min, 10 min, 1 h and 6 h (six attempts). */
export const defaultRetryDelaysMs: readonly number[] = [30_000, 120_000, 600_000, 3_600_000, 21_600_000];

export interface RetryPolicy {
  /** Delays before attempts 2..n. */
  retryDelaysMs: readonly number[];
  /** Messages in a row that failed every attempt before the endpoint is paused. */
  pauseAfterFailedMessages: number;
}

export interface FinishedAttempt {
  /** 1 for the first attempt. */
  number: number;
  /** The receiver answered 2xx within the timeout. */
  delivered: boolean;
  /** The answer's status, null when none came (timeout, connection error). */
  statusCode: number | null;
  /** The answer's Retry-After (parseRetryAfter), null when it gave none. */
  retryAfterMs: number | null;
}

/** The outcome of a finished attempt; `now` (wall ms, the attempt's end) is what a retry is due from. */
export function attemptOutcome(policy: RetryPolicy, attempt: FinishedAttempt, now: number): AttemptOutcome {
  if (attempt.delivered) return { kind: "delivered" };
  if (attempt.statusCode === 410) return { kind: "gone" };
  const delays = policy.retryDelaysMs;
  if (attempt.number > delays.length) return { kind: "failed", pauseAfter: policy.pauseAfterFailedMessages };
  const scheduled = delays[attempt.number - 1] ?? 0;
  // Retry-After counts only on the answers that may carry it for this purpose.
  const honoured = attempt.statusCode === 429 || attempt.statusCode === 503 ? attempt.retryAfterMs : null;
  const asked = honoured === null ? 0 : Math.min(honoured, Math.max(...delays));
  return { kind: "retry", at: now + Math.max(scheduled, asked) };
}

/** Retry-After in seconds or as an HTTP date (ms from `now`); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : null;
}
