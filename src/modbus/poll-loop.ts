/**
 * The regular polling of one channel's devices (docs/polling.md, "Scheduling" and
 * "Poll groups"): each device's registers are divided into poll groups, one per poll
 * interval, and each group has its own due time. The group due first has its cycle,
 * each request queued as a poll on the channel. Silence and quarantine are the device's
 * (quarantine.ts): a failed cycle of any of its groups counts, and once quarantined the
 * device costs one probe per backoff from one group and nothing from the others,
 * until its first answer puts every group back on its own time. On a shared connection
 * groups (of one device or of several) take turns by due time, so a slow or dead device
 * delays the others by at most its timeouts. Failures are logged once for the device,
 * when they begin and when they end.
 */
import type { Clock } from "../lib/clock.ts";
import { LoggedFailure } from "../lib/log-once.ts";
import type { Logger } from "../lib/logger.ts";
import type { PolledValue } from "../lib/polled-value.ts";
import type { Channel } from "./channel.ts";
import { type CycleResult, DeviceCycle, deviceFields } from "./device-cycle.ts";
import type { DeviceHealthBoard } from "./device-health.ts";
import type { ReadOutcome } from "./link.ts";
import { pollGroups, type ReadRequest } from "./plan.ts";
import type { PollingDevice } from "./polling-config.ts";
import {
  afterAnswer,
  afterReconnect,
  afterSilence,
  cycleShape,
  firstTurn,
  groupDue,
  nextCycleDue,
  type PollTurn,
  type QuarantineRules,
} from "./quarantine.ts";
import type { ReadCache, ReadData } from "./read-cache.ts";
import { Sleeper } from "./sleeper.ts";
import { SunSpecBinding } from "./sunspec/binding.ts";

export interface PollLoopOptions {
  channel: Channel;
  devices: readonly PollingDevice[];
  clock: Clock;
  log: Logger;
  health: DeviceHealthBoard;
  readings(values: PolledValue[]): void;
  answered(at: number): void;
  quarantineAfter: number;
  maxBackoffMs: number;
  failingRegisterRetryMs: number;
  /** Where each planned request's words are kept as read (for the Modbus TCP server). */
  readCache?: ReadCache;
}

/** A device's standing on the bus, shared by its poll groups. */
type PolledDevice = {
  /** Failed cycles in a row and quarantine; the backoff starts from the probe group's interval. */
  turn: PollTurn;
  rules: QuarantineRules;
  /** "Does not answer" is logged once, when the silence begins, and its end once. */
  silence: LoggedFailure;
  /**
   * The group whose first request probes the device while it is quarantined: the one that
   * answered last (the fastest before any answer), so a device whose fast group gets no
   * answer while a slower one does is not left probed by the silent one only.
   */
  probe: number;
};

/** One poll group of a device, with its own due time while the device is polled. */
type PolledGroup = {
  cycle: DeviceCycle;
  intervalMs: number;
  nextDue: number;
  state: PolledDevice;
  /** Its place among its device's groups (PolledDevice.probe). */
  index: number;
};

/** What a poll answers when the channel closed before sending it. */
const channelClosed: ReadOutcome = { ok: false, kind: "disconnected", message: "the channel is closed" };

export class PollLoop {
  private readonly groups: PolledGroup[];
  /** The wait until the next group is due; a reopened connection ends it. */
  private readonly idle = new Sleeper();
  /** A device's `pause_ms` between two of its requests, inside the turn so nothing else comes between. */
  private readonly pauses = new Sleeper();

  constructor(private readonly options: PollLoopOptions) {
    const { channel, clock, log, health, readings, answered, failingRegisterRetryMs } = options;
    this.groups = options.devices.flatMap((device) => {
      const counters = health.countersOf(device.id);
      const retried = () => counters.retried();
      const read = (request: ReadRequest, pause: boolean) =>
        channel.transact(
          {
            run: (link) => {
              const send = () =>
                link.read(request.functionCode, device.slaveId, request.start, request.count, device.timeoutMs);
              return pause ? this.pauses.sleep(device.pauseMs).then(send) : send();
            },
            unsent: () => channelClosed,
          },
          "poll",
        );
      const cache = options.readCache;
      const keep =
        cache === undefined
          ? undefined
          : (request: ReadRequest, data: ReadData, at: number) =>
              cache.keep(device.id, request.functionCode, request.start, data, at);
      const parts = { read, keep, clock, log, health, readings, answered, retried, failingRegisterRetryMs };
      // One chain read for the device, shared by its poll groups.
      const sunspec = device.registers.some((register) => register.sunspec !== undefined)
        ? new SunSpecBinding(device.registers, log.child(deviceFields(device)))
        : undefined;
      const groups = pollGroups(device.registers, device.pollIntervalMs);
      // pollGroups gives the fastest group first.
      const rules = {
        pollIntervalMs: groups[0]?.intervalMs ?? device.pollIntervalMs,
        quarantineAfter: options.quarantineAfter,
        maxBackoffMs: options.maxBackoffMs,
      };
      const now = clock.monotonic();
      const state: PolledDevice = { turn: firstTurn(rules, now), rules, silence: new LoggedFailure(), probe: 0 };
      return groups.map((group, index) => ({
        cycle: new DeviceCycle(device, parts, group.registers, sunspec),
        intervalMs: group.intervalMs,
        nextDue: now,
        state,
        index,
      }));
    });
  }

  /** Polls until `stop()`. */
  async run(): Promise<void> {
    const { clock, health, channel } = this.options;
    while (!this.idle.stopped && !channel.isClosed && this.groups.length > 0) {
      const dueOf = (group: PolledGroup) =>
        groupDue(group.state.turn, group.nextDue, group.index === group.state.probe);
      const group = this.groups.reduce((earliest, candidate) =>
        dueOf(candidate) < dueOf(earliest) ? candidate : earliest,
      );
      const wait = dueOf(group) - clock.monotonic();
      if (wait > 0) {
        await this.idle.sleep(wait);
        continue;
      }
      const startedAt = clock.monotonic();
      const result = await group.cycle.run(cycleShape(group.state.turn, group.cycle.device.retries));
      // A lost connection is the channel's to report; the device is polled again once it is back.
      if (result === "disconnected") continue;
      health.cycle(group.cycle.device.id, clock.now(), {
        answered: result !== "silent",
        partial: result === "partial",
      });
      this.settle(group, result, startedAt);
    }
  }

  /** The connection was opened again: quarantined devices are probed at once. */
  reconnected(): void {
    const now = this.options.clock.monotonic();
    for (const group of this.groups) {
      if (group.index === 0) group.state.turn = afterReconnect(group.state.turn, now);
    }
    this.idle.wake();
  }

  stop(): void {
    this.idle.stop();
    this.pauses.stop();
  }

  private settle(group: PolledGroup, result: Exclude<CycleResult, "disconnected">, startedAt: number): void {
    const { clock, log, health } = this.options;
    const { device, lastError } = group.cycle;
    const { state } = group;
    const now = clock.monotonic();
    group.nextDue = nextCycleDue(group.intervalMs, startedAt, now);
    if (result !== "silent") {
      // Groups passed over in quarantine kept their due times, now past: each is due at once.
      const { turn, change } = afterAnswer(state.turn, state.rules, startedAt, now);
      state.turn = turn;
      state.probe = group.index;
      const wasLogged = state.silence.ended();
      if (change === "rejoined") log.info(deviceFields(device), "device answers again; back in the poll cycle");
      else if (wasLogged) log.info(deviceFields(device), "device answers again");
      return;
    }
    const { turn, change } = afterSilence(state.turn, state.rules, startedAt, now);
    state.turn = turn;
    if (state.silence.occurred("no answer")) {
      log.warn({ ...deviceFields(device), error: lastError }, "device does not answer");
    }
    if (change === "quarantined") {
      log.warn({ ...deviceFields(device), error: lastError }, "device quarantined: probed with growing backoff");
    }
    // The board shows wall time: when the next probe is, as a person reads a clock.
    if (turn.quarantined) health.quarantined(device.id, clock.now() + turn.backoffMs);
  }
}
