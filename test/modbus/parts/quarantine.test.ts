/**
 * The quarantine state machine as pure transitions (docs/polling.md, "Failures"):
 * failed cycles counted, quarantined at the threshold, backoff doubling to its cap,
 * one probe without retries, rejoined at the first answer, probed at once on reconnect.
 */
import { describe, expect, test } from "bun:test";
import {
  afterAnswer,
  afterReconnect,
  afterSilence,
  cycleShape,
  firstTurn,
  groupDue,
  type PollTurn,
  type QuarantineRules,
} from "../../../src/modbus/quarantine.ts";

const rules: QuarantineRules = { pollIntervalMs: 1_000, quarantineAfter: 3, maxBackoffMs: 10_000 };

/** `cycles` silent cycles, each starting when due and lasting `cycleMs`; the changes they made. */
function silentCycles(turn: PollTurn, cycles: number, cycleMs = 100) {
  const changes: string[] = [];
  for (let i = 0; i < cycles; i++) {
    const next = afterSilence(turn, rules, turn.nextDue, turn.nextDue + cycleMs);
    changes.push(next.change);
    turn = next.turn;
  }
  return { turn, changes };
}

describe("quarantine transitions", () => {
  test("a new device is due at once and polled in full with its retries", () => {
    const turn = firstTurn(rules, 500);
    expect(turn).toEqual({ nextDue: 500, failedCycles: 0, quarantined: false, backoffMs: 1_000 });
    expect(cycleShape(turn, 2)).toEqual({ firstRequestOnly: false, retries: 2 });
  });

  test("an answering device is due one interval after its cycle started, or at once when the cycle overran it", () => {
    const turn = firstTurn(rules, 0);
    expect(afterAnswer(turn, rules, 0, 200)).toEqual({ turn: { ...turn, nextDue: 1_000 }, change: "none" });
    expect(afterAnswer(turn, rules, 0, 1_500).turn.nextDue).toBe(1_500);
  });

  test("fails quarantineAfter cycles in a row: quarantined at the last, not before", () => {
    const { turn, changes } = silentCycles(firstTurn(rules, 0), 3);
    expect(changes).toEqual(["none", "none", "quarantined"]);
    expect(turn.quarantined).toBe(true);
    expect(turn.failedCycles).toBe(3);
  });

  test("before quarantine a failing device keeps its poll interval", () => {
    const { turn } = silentCycles(firstTurn(rules, 0), 2);
    expect(turn.quarantined).toBe(false);
    expect(turn.nextDue).toBe(2_000);
  });

  test("the backoff doubles from the poll interval at each failed probe, up to maxBackoffMs", () => {
    let turn = silentCycles(firstTurn(rules, 0), 3).turn;
    const backoffs = [turn.backoffMs];
    for (let probe = 0; probe < 5; probe++) {
      const at = turn.nextDue + 100;
      const next = afterSilence(turn, rules, turn.nextDue, at);
      expect(next.change).toBe("none");
      // The next probe is one backoff after the failed one ended.
      expect(next.turn.nextDue).toBe(at + next.turn.backoffMs);
      turn = next.turn;
      backoffs.push(turn.backoffMs);
    }
    expect(backoffs).toEqual([2_000, 4_000, 8_000, 10_000, 10_000, 10_000]);
  });

  test("a backoff cap below the poll interval never polls a quarantined device faster than its interval", () => {
    const slow = { pollIntervalMs: 60_000, quarantineAfter: 1, maxBackoffMs: 5_000 };
    const { turn } = afterSilence(firstTurn(slow, 0), slow, 0, 10);
    expect(turn.backoffMs).toBe(60_000);
  });

  test("a quarantined device costs one probe without retries, and nothing between probes", () => {
    const { turn } = silentCycles(firstTurn(rules, 0), 3);
    expect(cycleShape(turn, 4)).toEqual({ firstRequestOnly: true, retries: 0 });
    // The third failed cycle ran 2,000..2,100: not due again before one backoff (2 intervals) after it.
    expect(turn.nextDue).toBe(2_100 + 2_000);
  });

  test("rejoins at its first answer: back to the poll interval, full cycles, failures forgotten", () => {
    const { turn } = silentCycles(firstTurn(rules, 0), 5);
    const back = afterAnswer(turn, rules, turn.nextDue, turn.nextDue + 20);
    expect(back.change).toBe("rejoined");
    expect(back.turn).toEqual({
      nextDue: turn.nextDue + rules.pollIntervalMs,
      failedCycles: 0,
      quarantined: false,
      backoffMs: rules.pollIntervalMs,
    });
    expect(cycleShape(back.turn, 2)).toEqual({ firstRequestOnly: false, retries: 2 });
    // Counting starts again: one silent cycle does not quarantine it.
    expect(afterSilence(back.turn, rules, back.turn.nextDue, back.turn.nextDue + 1).change).toBe("none");
  });

  test("an answer before the threshold resets the count without a rejoin", () => {
    const { turn } = silentCycles(firstTurn(rules, 0), 2);
    const back = afterAnswer(turn, rules, turn.nextDue, turn.nextDue);
    expect(back.change).toBe("none");
    expect(back.turn.failedCycles).toBe(0);
  });

  test("a reopened connection probes a quarantined device at once and leaves others as they are", () => {
    const quarantined = silentCycles(firstTurn(rules, 0), 3).turn;
    expect(afterReconnect(quarantined, 2_500)).toEqual({ ...quarantined, nextDue: 2_500 });
    const polled = afterAnswer(firstTurn(rules, 0), rules, 0, 10).turn;
    expect(afterReconnect(polled, 500)).toBe(polled);
  });

  test("a quarantined device's groups: the probe group is due at the probe's time, the others not at all", () => {
    const polled = firstTurn(rules, 0);
    expect(groupDue(polled, 700, false)).toBe(700);
    const quarantined = silentCycles(polled, 3).turn;
    expect(groupDue(quarantined, 700, true)).toBe(quarantined.nextDue);
    expect(groupDue(quarantined, 700, false)).toBe(Number.POSITIVE_INFINITY);
  });
});
