/**
 * What the alerting part requires of a rule's and an automation's own fields (docs/api.md
 * sections 3 and 6). The config asks these on unchecked data and puts the answer at
 * the field's path; each returns the problem's message, or undefined when the field
 * is fine (or not of a type the structure check would let through).
 */
import { Cron } from "croner";
import { describeValue, didYouMean } from "../lib/problem-wording.ts";
import { hysteresisConditions } from "./conditions.ts";
import { messagePlaceholders, unknownPlaceholder } from "./messages.ts";
import { conditions } from "./rule-model.ts";

/** `hysteresis` only with a condition that has a band (conditions.ts). */
export function hysteresisProblem(condition: unknown, hysteresis: unknown): string | undefined {
  const known = conditions.find((c) => c === condition);
  if (hysteresis === undefined || known === undefined || hysteresisConditions.includes(known)) return undefined;
  return `is only allowed when condition is ${inWords(hysteresisConditions)} (this rule's condition is ${known})`;
}

/** A placeholder the engine does not fill would be sent out as written: refuse it. */
export function messageProblem(message: unknown): string | undefined {
  if (typeof message !== "string") return undefined;
  const name = unknownPlaceholder(message);
  if (name === undefined) return undefined;
  const suggestion = didYouMean(name, messagePlaceholders).replace(/"([^"]*)"/, "{$1}");
  const known = messagePlaceholders.map((p) => `{${p}}`).join(", ");
  return `has an unknown placeholder {${name}}${suggestion}; the placeholders are ${known}`;
}

/**
 * A schedule trigger: 5 fields (minute hour day-of-month month day-of-week) or 6
 * (seconds first); croner, which runs the schedule, decides what each field may hold
 * and says what is wrong.
 */
export function cronProblem(expression: string): string | undefined {
  const fields = expression
    .trim()
    .split(/\s+/)
    .filter((field) => field !== "");
  if (fields.length !== 5 && fields.length !== 6) {
    return `must be a cron expression of 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first); got ${describeValue(expression)} (${fields.length} field${fields.length === 1 ? "" : "s"})`;
  }
  let cron: Cron;
  try {
    cron = new Cron(expression, { paused: true });
  } catch (error) {
    return `is not a valid cron expression: ${(error as Error).message}`;
  }
  try {
    if (cron.nextRun() === null) return `never runs: no date matches ${describeValue(expression)}`;
  } finally {
    cron.stop();
  }
  return undefined;
}

/** `a, b, c or d` */
function inWords(items: readonly string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}
