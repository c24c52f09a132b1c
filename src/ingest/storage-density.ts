/**
 * Which polled values become stored history: docs/api.md section 8, at most one stored
 * value per register per storage interval. docs/polling.md, "Stored density",
 * states the rule; in short, a value read at wall time `ts` is stored when
 *
 * 1. its period (`ts` on the interval's grid) holds no stored reading of the
 *    register: history is the first value read in each period, on the grid;
 * 2. no stored reading of the register lies closer than the interval, less the
 *    tolerance, in wall time, on either side: after a clock step back, values
 *    are skipped until the clock has moved past the history already stored;
 * 3. at least the interval, less the tolerance, has passed on the monotonic
 *    clock since the register's last stored value: a clock stepped forward and
 *    back cannot store values faster than once an interval.
 *
 * The tolerance is the poll's own jitter: the first poll of a period comes up to
 * a poll interval after the period starts. Stored times are whole seconds
 * (store/contract/readings.ts), so the rule is judged on whole seconds.
 */

/** The newest stored (or queued) reading time of a register in [fromMs, toMs), or null. */
export type NewestStoredBetween = (registerId: number, fromMs: number, toMs: number) => Promise<number | null>;

/** The jitter allowed below the interval: 5 s, or a tenth of a shorter interval. */
export function densityToleranceMs(intervalMs: number): number {
  return Math.min(5_000, Math.floor(intervalMs / 10));
}

type RegisterDensity = {
  intervalMs: number;
  /** Interval less tolerance: the closest two stored values may be. */
  minGapMs: number;
  /** Wall time (whole seconds) of the value stored last, in the order values were read. */
  lastWall: number | null;
  /** Monotonic time at which the value stored last was read; null before any this run. */
  lastMonotonic: number | null;
  /** The largest stored wall time: above it (by the gap, in a later period), nothing stored is near. */
  newestWall: number | null;
  /** A store look-up found history blocking [blockedFrom, blockedUntil); values in it are skipped without asking again. */
  blockedFrom: number;
  blockedUntil: number;
};

export function createDensityGate(newestStoredBetween: NewestStoredBetween) {
  const registers = new Map<number, RegisterDensity>();

  /** Registers a register with its interval and the time of its newest stored reading, if any. */
  function track(registerId: number, intervalMs: number, newestStored: number | undefined): void {
    const newest = newestStored === undefined ? null : wholeSeconds(newestStored);
    registers.set(registerId, {
      intervalMs,
      minGapMs: intervalMs - densityToleranceMs(intervalMs),
      lastWall: newest,
      lastMonotonic: null,
      newestWall: newest,
      blockedFrom: 0,
      blockedUntil: 0,
    });
  }

  /**
   * Whether the value read at wall `ts` and monotonic `monotonic` is stored; if so, it counts as stored from now.
   * A promise only when the store must be asked (the clock is behind stored history): the caller
   * admits nothing else until it settles, since the answer moves the register's state.
   */
  function admit(registerId: number, ts: number, monotonic: number): boolean | Promise<boolean> {
    const state = registers.get(registerId);
    if (state === undefined) return false;
    if (state.lastMonotonic !== null && monotonic - state.lastMonotonic < state.minGapMs) return false;
    const wall = wholeSeconds(ts);
    if (state.lastWall !== null && near(state, wall, state.lastWall)) return false;
    const clearOfHistory =
      state.newestWall === null ||
      (wall - state.newestWall >= state.minGapMs && periodOf(state, wall) > periodOf(state, state.newestWall));
    if (clearOfHistory) return admitted(state, wall, monotonic);
    if (wall >= state.blockedFrom && wall < state.blockedUntil) return false;
    return clearInStore(registerId, state, wall).then((clear) => clear && admitted(state, wall, monotonic));
  }

  function admitted(state: RegisterDensity, wall: number, monotonic: number): true {
    state.lastWall = wall;
    state.lastMonotonic = monotonic;
    state.newestWall = state.newestWall === null ? wall : Math.max(state.newestWall, wall);
    return true;
  }

  /**
   * The clock is behind (or close to) stored history: asks the store whether a
   * stored value lies in the candidate's period or within the gap of it.
   */
  async function clearInStore(registerId: number, state: RegisterDensity, wall: number): Promise<boolean> {
    const periodStart = periodOf(state, wall) * state.intervalMs;
    const from = Math.min(periodStart, wall - state.minGapMs + 1000);
    const until = Math.max(periodStart + state.intervalMs, wall + state.minGapMs);
    const blocker = await newestStoredBetween(registerId, from, until);
    if (blocker === null) return true;
    // The newest blocking reading keeps blocking later values (the wall clock
    // moving on) until they are past its period and gap: no look-up until then.
    state.blockedFrom = wall;
    state.blockedUntil = Math.max(
      wholeSeconds(blocker) + state.minGapMs,
      (periodOf(state, blocker) + 1) * state.intervalMs,
    );
    return false;
  }

  return { track, admit };
}

function near(state: RegisterDensity, wall: number, stored: number): boolean {
  return Math.abs(wall - stored) < state.minGapMs || periodOf(state, wall) === periodOf(state, stored);
}

function periodOf(state: RegisterDensity, wall: number): number {
  return Math.floor(wall / state.intervalMs);
}

function wholeSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}
export type DensityGate = ReturnType<typeof createDensityGate>;
