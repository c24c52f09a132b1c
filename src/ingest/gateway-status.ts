/**
 * Gateway status from what the pollers report (docs/api.md section 3, gateway status):
 * online as soon as a device answers; offline when the gateway has been silent
 * longer than its heartbeat interval, or at once when its port or connection is
 * gone; `error` when its bus cannot be used at all (for example no permission on
 * the serial port). Each change updates `status` and `last_seen` and records
 * `device.online` / `device.offline` in the outbox in the same transaction.
 * A change counts (in memory, for listeners, as an event) only once that
 * transaction is written; a failed write is retried, never thrown.
 *
 * Silence is measured on the monotonic clock, so a wall-clock step neither hides
 * a dead gateway nor fakes a silent one; `last_seen` is the wall time of the
 * latest answer, even when a step made it earlier than the one before
 * (docs/reliability.md, "Clock steps").
 *
 * Between changes, an online gateway's `last_seen` is written at most once every
 * `lastSeenEveryMs` (a minute by default) for all gateways in one commit, and at
 * stop: a flash card is not written every second for it.
 */

import type { Clock } from "../lib/clock.ts";
import { LoggedFailure } from "../lib/log-once.ts";
import type { Logger } from "../lib/logger.ts";
import { SerialTurns } from "../lib/serial-turns.ts";
import { deviceStatusEvent } from "../store/contract/event-types.ts";
import type { GatewayStatus } from "../store/contract/gateways.ts";
import type { Store } from "../store/index.ts";

export interface TrackedGateway {
  /** Public gateway id (UUID). */
  id: string;
  heartbeatMs: number;
}

type GatewayState = {
  id: number;
  uuid: string;
  serial: string;
  name: string;
  orgId: number;
  heartbeatMs: number;
  status: GatewayStatus;
  /** Wall time of the latest answer (or as stored at start). */
  lastSeen: number | null;
  /** Monotonic time from which silence counts: the latest answer, else the stored last_seen, else the start. */
  heardAt: number;
  lastSeenWritten: number | null;
};

export async function createGatewayStatusTracker(options: {
  store: Pick<Store, "gateways">;
  clock: Clock;
  logger: Logger;
  gateways: readonly TrackedGateway[];
  /** How often silence is checked. */
  checkEveryMs?: number;
  /** How often an online gateway's advancing last_seen is written (default a minute). */
  lastSeenEveryMs?: number;
  /** Called after an event was committed (so the webhook dispatcher can send it now). */
  onEvent?: () => void;
  /** Called after each status change (the offline detector listens). */
  onChange?: (gatewayId: string, status: GatewayStatus, at: number) => void;
}) {
  const { store, clock, logger } = options;
  const states = new Map<string, GatewayState>();
  /**
   * Follows these gateways: at start, and after a reload (app/parts.ts). A gateway
   * tracked already keeps its state (a new heartbeat or name applies); a new one starts from
   * its stored row; one no longer listed is dropped.
   */
  async function track(gateways: readonly TrackedGateway[]): Promise<void> {
    const startedWall = clock.now();
    const startedMonotonic = clock.monotonic();
    const listed = new Set(gateways.map((gateway) => gateway.id));
    for (const id of states.keys()) if (!listed.has(id)) states.delete(id);
    for (const gateway of gateways) {
      const row = await store.gateways.statusOf(gateway.id);
      const known = states.get(gateway.id);
      if (known !== undefined) {
        // Its name may have changed with the inventory; its status and last answer are this process's.
        Object.assign(known, {
          heartbeatMs: gateway.heartbeatMs,
          name: row?.name ?? known.name,
          orgId: row?.orgId ?? known.orgId,
        });
        continue;
      }
      if (row === null) continue;
      states.set(gateway.id, {
        ...row,
        uuid: gateway.id,
        heartbeatMs: gateway.heartbeatMs,
        // A stored last_seen counts as heard that long ago; one in the future (stored
        // while the clock was ahead) as heard now.
        heardAt: startedMonotonic - Math.max(0, startedWall - (row.lastSeen ?? startedWall)),
        lastSeenWritten: row.lastSeen,
      });
    }
  }
  await track(options.gateways);

  function transition(state: GatewayState, next: GatewayStatus, at: number): Promise<void> {
    const change = deviceStatusEvent({ ...state, id: state.uuid }, next);
    // last_seen goes with every change: between changes it is written only once a minute.
    const event = change === null ? null : { orgId: state.orgId, occurredAt: at, ...change };
    return store.gateways.changeStatus(state.id, next, state.lastSeen, event);
  }

  // The tracker's writes run one after another, each deciding on the state the one
  // before left: two answers in a row write one change, not two.
  const writes = new SerialTurns((error) => logger.error({ err: error }, "gateway status update failed"));
  const serially = (write: () => Promise<void>): Promise<void> => writes.run(write);
  const nothingToWrite = Promise.resolve();

  // One log line per condition, not one per second while the disk is full.
  const writeFailure = new LoggedFailure();
  function writeFailed(error: unknown, what: string): void {
    const message = error instanceof Error ? error.message : String(error);
    if (writeFailure.occurred(message)) logger.error({ err: error }, `${what} failed; will retry`);
  }

  function change(state: GatewayState, next: GatewayStatus, at: number, reason?: string): Promise<void> {
    if (state.status === next) return nothingToWrite;
    return serially(() => changeNow(state, next, at, reason));
  }

  async function changeNow(state: GatewayState, next: GatewayStatus, at: number, reason?: string): Promise<void> {
    if (state.status === next) return;
    const previous = state.status;
    try {
      await transition(state, next, at);
    } catch (error) {
      // Not written, so not reported: the state in memory, onChange and the
      // webhook wait for a write that succeeds. The next poll (online) or check
      // (offline, every second) tries again.
      writeFailed(error, "gateway status write");
      return;
    }
    writeFailure.ended();
    options.onEvent?.();
    state.status = next;
    options.onChange?.(state.uuid, next, at);
    state.lastSeenWritten = state.lastSeen;
    logger.info({ gateway: state.serial, status: next, previous_status: previous, reason }, "gateway status changed");
  }

  /** Settles once the change it caused, if any, is written (or refused). */
  function answered(gatewayId: string, at: number): Promise<void> {
    const state = states.get(gatewayId);
    if (state === undefined) return nothingToWrite;
    // The newest answer wins, not the largest timestamp: after a step back, the
    // largest one lies in a future that may never come.
    state.lastSeen = at;
    state.heardAt = clock.monotonic();
    return change(state, "online", at);
  }

  function unreachable(gatewayId: string, at: number, reason: string, fatal = false): Promise<void> {
    const state = states.get(gatewayId);
    if (state === undefined) return nothingToWrite;
    return change(state, fatal ? "error" : "offline", at, reason);
  }

  const lastSeenEveryMs = options.lastSeenEveryMs ?? 60_000;
  let lastSeenWrittenAt = clock.monotonic();

  /** Writes the online gateways' last_seen that changed since it was last written, in one commit. */
  async function writeLastSeen(): Promise<void> {
    const seen: { gatewayId: number; at: number }[] = [];
    for (const state of states.values()) {
      if (state.status === "online" && state.lastSeen !== null && state.lastSeenWritten !== state.lastSeen) {
        seen.push({ gatewayId: state.id, at: state.lastSeen });
      }
    }
    if (seen.length > 0) {
      try {
        await store.gateways.writeLastSeenAll(seen);
      } catch (error) {
        // A full disk or a held lock: the next check writes it.
        writeFailed(error, "last_seen write");
        return;
      }
    }
    for (const state of states.values()) if (state.status === "online") state.lastSeenWritten = state.lastSeen;
    lastSeenWrittenAt = clock.monotonic();
  }

  /** Marks silent gateways offline and persists last_seen when due; runs on a timer. Settles once written. */
  function check(): Promise<void> {
    const now = clock.monotonic();
    if (now - lastSeenWrittenAt >= lastSeenEveryMs) serially(writeLastSeen);
    for (const state of states.values()) {
      if ((state.status === "online" || state.status === "pending") && now - state.heardAt > state.heartbeatMs) {
        change(state, "offline", clock.now(), `silent for more than ${Math.round(state.heartbeatMs / 1000)} s`);
      }
    }
    return writes.settled();
  }

  // check never rejects: every write it queues catches its own errors.
  const timer = setInterval(() => void check(), options.checkEveryMs ?? 1000);
  return {
    answered,
    unreachable,
    check,
    track,
    statusOf(gatewayId: string): GatewayStatus | null {
      return states.get(gatewayId)?.status ?? null;
    },
    async stop(): Promise<void> {
      clearInterval(timer);
      await check();
      await serially(writeLastSeen);
    },
  };
}
export type GatewayStatusTracker = Awaited<ReturnType<typeof createGatewayStatusTracker>>;
