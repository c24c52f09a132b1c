/**
 * A rule's condition state (src/alerting/rule-condition.ts, docs/alerts.md): the
 * `for` duration on the monotonic clock, hysteresis on the way back, and a change
 * that counts only once written (a refused write asks again with the next reading).
 */
import { expect, test } from "bun:test";
import { RuleCondition } from "../../src/alerting/rule-condition.ts";

const above30 = { condition: "gt" as const, threshold: 30, hysteresis: 2, forMs: 0 };

test("without a `for`: the first value past the threshold triggers; back past the hysteresis returns", () => {
  const rule = new RuleCondition(above30, false);
  expect(rule.observe(29, 0)).toBeNull();
  expect(rule.observe(30, 1)).toBeNull();
  expect(rule.observe(31, 2)).toBe("trigger");
  rule.triggered();
  expect(rule.breaching).toBe(true);
  // Inside the hysteresis band (above 28): still breaching, nothing asked.
  expect(rule.observe(29, 3)).toBeNull();
  expect(rule.observe(28.5, 4)).toBeNull();
  expect(rule.observe(27, 5)).toBe("return");
  rule.returned();
  expect(rule.breaching).toBe(false);
  expect(rule.observe(27, 6)).toBeNull();
});

test("with a `for`: the condition must hold that long without a break", () => {
  const rule = new RuleCondition({ ...above30, forMs: 60_000 }, false);
  expect(rule.observe(31, 0)).toBeNull();
  expect(rule.observe(31, 59_999)).toBeNull();
  // A break starts the count again.
  expect(rule.observe(20, 60_000)).toBeNull();
  expect(rule.observe(31, 70_000)).toBeNull();
  expect(rule.observe(31, 129_999)).toBeNull();
  expect(rule.observe(31, 130_000)).toBe("trigger");
});

test("a refused write leaves the rule as it was: the next reading asks again", () => {
  const rule = new RuleCondition({ ...above30, forMs: 10_000 }, false);
  rule.observe(31, 0);
  expect(rule.observe(31, 10_000)).toBe("trigger");
  // Not written (full disk): no triggered() call.
  expect(rule.breaching).toBe(false);
  expect(rule.observe(31, 11_000)).toBe("trigger");
  rule.triggered();
  expect(rule.observe(10, 12_000)).toBe("return");
  // Not written either: still breaching, asked again.
  expect(rule.observe(10, 13_000)).toBe("return");
});

test("after a trigger the `for` counts from scratch next time", () => {
  const rule = new RuleCondition({ ...above30, forMs: 5_000 }, false);
  rule.observe(31, 0);
  expect(rule.observe(31, 5_000)).toBe("trigger");
  rule.triggered();
  expect(rule.observe(0, 6_000)).toBe("return");
  rule.returned();
  expect(rule.observe(31, 7_000)).toBeNull();
  expect(rule.observe(31, 12_000)).toBe("trigger");
});

test("an alert open at start: the rule starts breaching and only a return is asked", () => {
  const rule = new RuleCondition(above30, true);
  expect(rule.observe(40, 0)).toBeNull();
  expect(rule.observe(20, 1)).toBe("return");
});
