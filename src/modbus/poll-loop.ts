/**
 * The regular polling of one channel's devices (docs/polling.md, "Scheduling" and
 * "Poll groups"): each device's registers are divided into poll groups, one per poll
 * interval, and each group has its own due time. The group due first has its cycle,
 * each request queued as a poll on the channel; then quarantine.ts decides when it is
 * due again. On a shared connection groups (of one device or of several) take turns
 * by due time, so a slow or dead device delays the others by at most its timeouts,
 * and once quarantined by one probe per backoff. Failures are logged when they begin
 * and when they end.
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

/** One poll group of a device, with its own due time. */
type PolledGroup = {
  cycle: DeviceCycle;
  rules: QuarantineRules;
  turn: PollTurn;
  /** "Does not answer" is logged once, when the silence begins, and its end once (shared by the device's groups). */
  silence: LoggedFailure;
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
      const silence = new LoggedFailure();
      // One chain read for the device, shared by its poll groups.
      const sunspec = device.registers.some((register) => register.sunspec !== undefined)
        ? new SunSpecBinding(device.registers, log.child(deviceFields(device)))
        : undefined;
      return pollGroups(device.registers, device.pollIntervalMs).map((group) => {
        const rules = {
          pollIntervalMs: group.intervalMs,
          quarantineAfter: options.quarantineAfter,
          maxBackoffMs: options.maxBackoffMs,
        };
        return {
          cycle: new DeviceCycle(device, parts, group.registers, sunspec),
          rules,
          turn: firstTurn(rules, clock.monotonic()),
          silence,
        };
      });
    });
  }

  /** Polls until `stop()`. */
  async run(): Promise<void> {
    const { clock, health, channel } = this.options;
    while (!this.idle.stopped && !channel.isClosed && this.groups.length > 0) {
      const group = this.groups.reduce((earliest, candidate) =>
        candidate.turn.nextDue < earliest.turn.nextDue ? candidate : earliest,
      );
      const wait = group.turn.nextDue - clock.monotonic();
      if (wait > 0) {
        await this.idle.sleep(wait);
        continue;
      }
      const startedAt = clock.monotonic();
      const result = await group.cycle.run(cycleShape(group.turn, group.cycle.device.retries));
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
    for (const group of this.groups) group.turn = afterReconnect(group.turn, now);
    this.idle.wake();
  }

  stop(): void {
    this.idle.stop();
    this.pauses.stop();
  }

  private settle(group: PolledGroup, result: Exclude<CycleResult, "disconnected">, startedAt: number): void {
    const { clock, log, health } = this.options;
    const { device, lastError } = group.cycle;
    const now = clock.monotonic();
    if (result !== "silent") {
      const { turn, change } = afterAnswer(group.turn, group.rules, startedAt, now);
      group.turn = turn;
      const wasLogged = group.silence.ended();
      if (change === "rejoined") log.info(deviceFields(device), "device answers again; back in the poll cycle");
      else if (wasLogged) log.info(deviceFields(device), "device answers again");
      return;
    }
    const { turn, change } = afterSilence(group.turn, group.rules, startedAt, now);
    group.turn = turn;
    if (group.silence.occurred("no answer")) {
      log.warn({ ...deviceFields(device), error: lastError }, "device does not answer");
    }
    if (change === "quarantined") {
      log.warn({ ...deviceFields(device), error: lastError }, "device quarantined: probed with growing backoff");
    }
    // The board shows wall time: when the next probe is, as a person reads a clock.
    if (turn.quarantined) health.quarantined(device.id, clock.now() + turn.backoffMs);
  }
}
