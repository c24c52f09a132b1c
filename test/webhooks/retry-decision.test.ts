/**
 * What follows a webhook attempt (src/webhooks/retry-decision.ts), held to
 * docs/webhooks.md ("Delivery and retries", "Pausing, held messages and
 * enabling"): the schedule the document states, every attempt of it against every
 * kind of answer, Retry-After within the schedule's longest delay, 410 and the
 * pause after the last attempt.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  attemptOutcome,
  defaultRetryDelaysMs,
  type FinishedAttempt,
  parseRetryAfter,
} from "../../src/webhooks/retry-decision.ts";

const docs = readFileSync(join(import.meta.dir, "../../docs/webhooks.md"), "utf8");
const configDocs = readFileSync(join(import.meta.dir, "../../docs/config.md"), "utf8");

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const unitMs: Record<string, number> = { s: second, min: minute, h: hour };

/** The schedule as docs/webhooks.md words it: "by default after 30 s, 2 min, 10 min, 1 h and 6 h". */
function documentedSchedule(): number[] {
  const sentence = /\*\*Retries\*\*, by default after ([^:]+?): (\w+) attempts in all/.exec(docs);
  if (sentence === null) throw new Error("docs/webhooks.md no longer states the retry schedule");
  const delays = [...(sentence[1] as string).matchAll(/(\d+) (s|min|h)\b/g)].map(
    ([, amount, unit]) => Number(amount) * (unitMs[unit as string] as number),
  );
  const words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"];
  expect(words.indexOf(sentence[2] as string) + 1).toBe(delays.length + 1);
  return delays;
}

const now = Date.parse("2026-11-26T12:00:00Z");
const policy = { retryDelaysMs: defaultRetryDelaysMs, pauseAfterFailedMessages: 10 };
const longest = 6 * hour;

function failed(number: number, statusCode: number | null, retryAfterMs: number | null = null): FinishedAttempt {
  return { number, delivered: false, statusCode, retryAfterMs };
}

test("the default schedule is the one docs/webhooks.md and docs/config.md state", () => {
  const documented = documentedSchedule();
  expect(documented).toEqual([30 * second, 2 * minute, 10 * minute, hour, 6 * hour]);
  expect([...defaultRetryDelaysMs]).toEqual(documented);
  expect(configDocs).toContain(`| \`[${documented.map((ms) => ms / 1000).join(", ")}]\` |`);
});

test("a message that always fails: six attempts over a little more than seven hours, then failed", () => {
  let at = now;
  const due: number[] = [at];
  for (let number = 1; ; number++) {
    const outcome = attemptOutcome(policy, failed(number, 500), at);
    if (outcome.kind !== "retry") {
      expect(outcome).toEqual({ kind: "failed", pauseAfter: 10 });
      break;
    }
    at = outcome.at;
    due.push(at);
  }
  expect(due.map((time) => time - now)).toEqual([
    0,
    30 * second,
    2 * minute + 30 * second,
    12 * minute + 30 * second,
    hour + 12 * minute + 30 * second,
    7 * hour + 12 * minute + 30 * second,
  ]);
});

describe("every attempt of the schedule against every kind of answer", () => {
  const schedule = documentedSchedule();
  const failures: [string, number | null][] = [
    ["no answer (timeout, refused connection)", null],
    ["a redirect", 302],
    ["400", 400],
    ["404", 404],
    ["429 without Retry-After", 429],
    ["500", 500],
    ["503 without Retry-After", 503],
  ];
  for (let number = 1; number <= schedule.length + 1; number++) {
    const last = number === schedule.length + 1;
    test(`attempt ${number}${last ? " (the last)" : ""}`, () => {
      // A 2xx ends the retries, whichever attempt it is.
      expect(attemptOutcome(policy, { number, delivered: true, statusCode: 204, retryAfterMs: null }, now)).toEqual({
        kind: "delivered",
      });
      // 410 Gone pauses the endpoint at once, whichever attempt it is.
      expect(attemptOutcome(policy, failed(number, 410), now)).toEqual({ kind: "gone" });
      for (const [, statusCode] of failures) {
        expect(attemptOutcome(policy, failed(number, statusCode), now)).toEqual(
          last ? { kind: "failed", pauseAfter: 10 } : { kind: "retry", at: now + (schedule[number - 1] as number) },
        );
      }
    });
  }
});

describe("Retry-After on a 429 or 503", () => {
  for (const statusCode of [429, 503]) {
    test(`${statusCode}: the longer of the scheduled delay and Retry-After, never past the longest delay`, () => {
      // Shorter than the delay: the schedule wins.
      expect(attemptOutcome(policy, failed(2, statusCode, 10 * second), now)).toEqual({
        kind: "retry",
        at: now + 2 * minute,
      });
      // Longer: Retry-After wins.
      expect(attemptOutcome(policy, failed(1, statusCode, 90 * second), now)).toEqual({
        kind: "retry",
        at: now + 90 * second,
      });
      // A day: held to the schedule's longest delay (6 h).
      expect(attemptOutcome(policy, failed(1, statusCode, 24 * hour), now)).toEqual({
        kind: "retry",
        at: now + longest,
      });
      // The last attempt fails whatever Retry-After asks.
      expect(attemptOutcome(policy, failed(6, statusCode, 60 * second), now)).toEqual({
        kind: "failed",
        pauseAfter: 10,
      });
    });
  }

  test("on any other answer Retry-After is not honoured", () => {
    for (const statusCode of [null, 302, 400, 500, 502]) {
      expect(attemptOutcome(policy, failed(1, statusCode, 90 * second), now)).toEqual({
        kind: "retry",
        at: now + 30 * second,
      });
    }
  });
});

test("a schedule of the config's own (webhooks.retry_delays_s): attempts = delays + 1, its pause count", () => {
  const own = { retryDelaysMs: [5 * second, 7 * second], pauseAfterFailedMessages: 3 };
  expect(attemptOutcome(own, failed(1, 500), now)).toEqual({ kind: "retry", at: now + 5 * second });
  expect(attemptOutcome(own, failed(2, 500), now)).toEqual({ kind: "retry", at: now + 7 * second });
  expect(attemptOutcome(own, failed(3, 500), now)).toEqual({ kind: "failed", pauseAfter: 3 });
  // Retry-After is held to this schedule's longest delay.
  expect(attemptOutcome(own, failed(1, 503, hour), now)).toEqual({ kind: "retry", at: now + 7 * second });
});

test("Retry-After: seconds or an HTTP date; absent or unreadable is none", () => {
  expect(parseRetryAfter("120", now)).toBe(120 * second);
  expect(parseRetryAfter(" 0 ", now)).toBe(0);
  expect(parseRetryAfter(new Date(now + 90 * second).toUTCString(), now)).toBe(90 * second);
  expect(parseRetryAfter(new Date(now - hour).toUTCString(), now)).toBe(0);
  expect(parseRetryAfter(null, now)).toBeNull();
  expect(parseRetryAfter("soon", now)).toBeNull();
});
