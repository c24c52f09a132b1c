/**
 * When a device is polled next, as pure transitions on its state (docs/polling.md,
 * "Failures"). A device that answers is polled every `poll_interval_ms`. A cycle
 * with no answer at all is a failed cycle; after `quarantineAfter` failed cycles in
 * a row the device is quarantined: probed with one request, without retries, after a
 * backoff that doubles from its poll interval up to `maxBackoffMs`. So a dead device
 * costs the bus at most one timeout per backoff and nothing in between. The first
 * answer brings it back into the cycle; a reopened connection probes it at once.
 * The turn is the device's, whatever its poll groups: a failed cycle of any group
 * counts, and once quarantined only its probe group is due (groupDue).
 *
 * Times are on the monotonic clock (a wall-clock step must not stop or rush polling).
 */

export interface QuarantineRules {
  pollIntervalMs: number;
  /** Failed cycles in a row before the device is quarantined. */
  quarantineAfter: number;
  /** Longest wait between two probes of a quarantined device. */
  maxBackoffMs: number;
}

export interface PollTurn {
  /** When the next cycle (or probe) is due, monotonic ms. */
  readonly nextDue: number;
  readonly failedCycles: number;
  readonly quarantined: boolean;
  /** The wait before the next probe once quarantined; the poll interval otherwise. */
  readonly backoffMs: number;
}

/** What a cycle changed: the device came back, or was quarantined just now. */
export type TurnChange = "none" | "rejoined" | "quarantined";

/** A device not polled yet: due at once. */
export function firstTurn(rules: QuarantineRules, now: number): PollTurn {
  return { nextDue: now, failedCycles: 0, quarantined: false, backoffMs: rules.pollIntervalMs };
}

/** A cycle is due one interval after it started, or at once when it overran the interval. */
export function nextCycleDue(intervalMs: number, startedAt: number, now: number): number {
  return Math.max(startedAt + intervalMs, now);
}

/**
 * When one poll group of a device is due: at its own time while the device is polled;
 * once the device is quarantined, its probe group at the probe's time and the others never
 * (until the first answer, when each is due at its own time again, at once if that passed).
 */
export function groupDue(turn: PollTurn, groupNextDue: number, isProbeGroup: boolean): number {
  if (!turn.quarantined) return groupNextDue;
  return isProbeGroup ? turn.nextDue : Number.POSITIVE_INFINITY;
}

/** The cycle got an answer (an exception is one): back to the poll interval. */
export function afterAnswer(
  turn: PollTurn,
  rules: QuarantineRules,
  startedAt: number,
  now: number,
): { turn: PollTurn; change: TurnChange } {
  return {
    turn: {
      nextDue: nextCycleDue(rules.pollIntervalMs, startedAt, now),
      failedCycles: 0,
      quarantined: false,
      backoffMs: rules.pollIntervalMs,
    },
    change: turn.quarantined ? "rejoined" : "none",
  };
}

/** The cycle got no answer: counted; quarantined at `quarantineAfter`, its backoff doubled at each probe. */
export function afterSilence(
  turn: PollTurn,
  rules: QuarantineRules,
  startedAt: number,
  now: number,
): { turn: PollTurn; change: TurnChange } {
  const failedCycles = turn.failedCycles + 1;
  if (failedCycles < rules.quarantineAfter) {
    return {
      turn: { ...turn, failedCycles, nextDue: nextCycleDue(rules.pollIntervalMs, startedAt, now) },
      change: "none",
    };
  }
  const backoffMs = Math.min(turn.backoffMs * 2, Math.max(rules.maxBackoffMs, rules.pollIntervalMs));
  return {
    turn: { failedCycles, quarantined: true, backoffMs, nextDue: now + backoffMs },
    change: turn.quarantined ? "none" : "quarantined",
  };
}

/** The connection was opened again: a quarantined device is probed at once, not after its backoff. */
export function afterReconnect(turn: PollTurn, now: number): PollTurn {
  return turn.quarantined ? { ...turn, nextDue: Math.min(turn.nextDue, now) } : turn;
}

/** What a cycle sends: a quarantined device gets one probe without retries, not its whole cycle. */
export function cycleShape(turn: PollTurn, retries: number): { firstRequestOnly: boolean; retries: number } {
  return turn.quarantined ? { firstRequestOnly: true, retries: 0 } : { firstRequestOnly: false, retries };
}
