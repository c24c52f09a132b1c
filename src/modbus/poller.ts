/**
 * Polls one gateway's Modbus devices, writes their registers, and reports readings
 * and reachability (docs/polling.md). This file only wires the parts:
 *
 * - channel.ts: a channel per connection (on a serial bus or a serial server all
 *   devices share one, so one request is on the wire at a time; on Modbus TCP each
 *   host:port has its own and channels run concurrently), with its queue of turns
 *   (channel-queue.ts: writes, then pass-through requests, then polls) and the
 *   reconnect backoff;
 * - poll-loop.ts: each channel's devices polled by due time, one cycle each
 *   (device-cycle.ts: plan, splits, registers set aside), quarantine decided by
 *   quarantine.ts;
 * - write-protocol.ts: a register write (read, write once, read back) as one turn;
 * - a Modbus TCP server's requests (src/modbus-server/) as pass-through turns, its
 *   writes as write turns, each sent once; the poll cycle keeps its requests' words
 *   for it (read-cache.ts);
 * - bus-stats.ts and device-health.ts: what the parts count and saw.
 */
import type { Clock } from "../lib/clock.ts";
import type { DeviceHealth, DeviceHealthStatus } from "../lib/device-health.ts";
import type { Logger } from "../lib/logger.ts";
import type { PolledValue } from "../lib/polled-value.ts";
import { scalerFor } from "../lib/register-scaling.ts";
import type { RegisterWriteOutcome } from "../lib/register-write.ts";
import { BusCounters, type BusStats, type DeviceBusCounters } from "./bus-stats.ts";
import { Channel, channelsOf } from "./channel.ts";
import { createDeviceHealthBoard, type DeviceHealthBoard } from "./device-health.ts";
import {
  type LinkOpener,
  type ModbusLink,
  openModbusLink,
  type ReadOutcome,
  type WriteOutcome,
  type WritePayload,
} from "./link.ts";
import { PollLoop } from "./poll-loop.ts";
import { defaultReconnectMaxMs, type PollingDevice, type PollingGateway } from "./polling-config.ts";
import type { ReadCache } from "./read-cache.ts";
import type { FunctionCode, WriteFunctionCode } from "./register-model.ts";
import { Sleeper } from "./sleeper.ts";
import {
  notSentInTime,
  rawToWrite,
  readRegister,
  type WriteTarget,
  writeAndReadBack,
  writeOutcome,
} from "./write-protocol.ts";
import type { WritableRegister } from "./write-value.ts";

/** Where a poller reports; ingest implements it (the Modbus layer does not know ingest). */
export interface PollSink {
  readings(gatewayId: string, values: PolledValue[]): void;
  /** A device of the gateway answered (a Modbus exception is an answer too). */
  answered(gatewayId: string, at: number): void;
  /** No channel of the gateway can reach its equipment; `fatal` when the bus cannot be used at all. */
  unreachable(gatewayId: string, at: number, reason: string, fatal: boolean): void;
  /** A Modbus device's health status changed (docs/polling.md, "Failures"); absent where nothing listens (tests, benchmarks). */
  deviceHealth?(gatewayId: string, deviceId: string, previous: DeviceHealthStatus, health: DeviceHealth): void;
}

export interface PollerOptions {
  gateway: PollingGateway;
  sink: PollSink;
  clock: Clock;
  logger: Logger;
  openLink?: LinkOpener;
  /** Failed cycles in a row before a device is quarantined. */
  quarantineAfter?: number;
  /** Longest wait between two probes of a quarantined device. */
  maxBackoffMs?: number;
  /** How long a register that failed on its own is left out before it is tried again. */
  failingRegisterRetryMs?: number;
  /** Where each device's health is kept (one board for every gateway of the process); a board of its own when absent. */
  health?: DeviceHealthBoard;
  /** How long a write may wait for its turn on the connection before it is given up unsent. */
  writeQueueTimeoutMs?: number;
  /** Where each planned request's words are kept as read (for the Modbus TCP server). */
  readCache?: ReadCache;
}

/** A pass-through request that never reached the wire. */
export type NotSent = { ok: false; kind: "not_sent" };
const notSent = (): NotSent => ({ ok: false, kind: "not_sent" });

export function startGatewayPoller(options: PollerOptions) {
  const { gateway, sink, clock, logger } = options;
  const openLink = options.openLink ?? openModbusLink;
  const maxBackoffMs = options.maxBackoffMs ?? 300_000;
  // A link is retried more often than a silent device is probed: a failed connect
  // costs the bus nothing, and a peer that comes back should be polled within
  // seconds, not minutes; nor less often than a device is probed.
  const reconnectMaxMs = Math.min(gateway.reconnectMaxMs ?? defaultReconnectMaxMs, maxBackoffMs);
  const health = options.health ?? createDeviceHealthBoard();
  const writeQueueTimeoutMs = options.writeQueueTimeoutMs ?? 10_000;
  const log = logger.child({
    gateway: gateway.serial,
    gateway_name: gateway.name ?? gateway.serial,
    gateway_id: gateway.id,
  });
  const counters = new BusCounters();
  const { deviceHealth } = sink;
  if (deviceHealth !== undefined) {
    health.watch(
      gateway.devices.map((device) => device.id),
      (deviceId, previous, next) => deviceHealth.call(sink, gateway.id, deviceId, previous, next),
    );
  }
  const pauses = new Sleeper();
  const readings = (values: PolledValue[]) => sink.readings(gateway.id, values);
  const readBack = (registerId: string, raw: number) =>
    readings([{ registerId, ts: clock.now(), monotonic: clock.monotonic(), raw }]);

  // The gateway is unreachable when no channel of it is up.
  const channelUp = new Map<string, boolean>();
  const parts = channelsOf(gateway).map(({ target, devices }) => {
    const connectTimeoutMs = Math.max(...devices.map((device) => device.timeoutMs), 1000);
    const deviceIds = devices.map((device) => device.id);
    const channel: Channel = new Channel({
      target,
      connectTimeoutMs,
      openLink,
      reconnectMaxMs,
      counters,
      deviceCounters: new Map(devices.map((device) => [device.slaveId, health.countersOf(device.id)])),
      log,
      onUp: () => {
        channelUp.set(channel.name, true);
        polling.reconnected();
      },
      onDown: (reason, fatal) => {
        channelUp.set(channel.name, false);
        if (![...channelUp.values()].some(Boolean)) sink.unreachable(gateway.id, clock.now(), reason, fatal);
        health.linkDown(deviceIds, clock.now(), reason);
      },
    });
    const polling: PollLoop = new PollLoop({
      channel,
      devices,
      clock,
      log,
      health,
      readings,
      answered: (at) => sink.answered(gateway.id, at),
      quarantineAfter: options.quarantineAfter ?? 3,
      maxBackoffMs,
      failingRegisterRetryMs: options.failingRegisterRetryMs ?? 600_000,
      readCache: options.readCache,
    });
    return { channel, polling, devices };
  });
  const channelOfDevice = new Map(
    parts.flatMap(({ channel, devices }) => devices.map((device) => [device.id, channel])),
  );

  function findWritable(registerId: string): WriteTarget | null {
    for (const device of gateway.devices) {
      const register = device.registers.find((candidate) => candidate.id === registerId);
      if (register?.write !== undefined) {
        const counters = health.countersOf(device.id);
        return { device, register: register as WritableRegister, retried: () => counters.retried() };
      }
    }
    return null;
  }

  /** Writes `value` (engineering units) to a writable register, as a write-class turn on its device's channel. */
  async function writeRegister(registerId: string, value: number): Promise<RegisterWriteOutcome> {
    const target = findWritable(registerId);
    if (target === null) return writeOutcome("invalid", "the register is not writable");
    const asked = rawToWrite(target.register, value);
    if (!("raw" in asked)) return asked;
    const channel = channelOfDevice.get(target.device.id);
    const unsent = () => notSentInTime(writeQueueTimeoutMs);
    if (channel === undefined) return unsent();
    const run = (link: Parameters<typeof writeAndReadBack>[0]) =>
      writeAndReadBack(link, target, { value, raw: asked.raw }, (ms) => pauses.sleep(ms));
    const outcome = await channel
      .transact({ run, unsent, expiresAfterMs: writeQueueTimeoutMs }, "write")
      .catch((error: unknown) => {
        log.error({ err: error }, "queued Modbus job failed");
        return unsent();
      });
    if (outcome.readBackRaw !== null) readBack(registerId, outcome.readBackRaw);
    return outcome;
  }

  /** Reads one writable register now, between polls (after a write whose outcome was unknown). */
  async function readRegisterNow(registerId: string): Promise<{ value: number | null; raw: number | null } | null> {
    const target = findWritable(registerId);
    const channel = target === null ? undefined : channelOfDevice.get(target.device.id);
    if (target === null || channel === undefined) return null;
    const read = await channel
      .transact(
        { run: (link) => readRegister(link, target), unsent: () => null, expiresAfterMs: writeQueueTimeoutMs },
        "write",
      )
      .catch((error: unknown) => {
        log.error({ err: error }, "queued Modbus job failed");
        return null;
      });
    if (read === null || !read.ok || read.raw === null) return null;
    readBack(registerId, read.raw);
    return { value: scalerFor(target.register.write.scaleFactor)(read.raw), raw: read.raw };
  }

  /**
   * A Modbus TCP server client's read (a pass-through turn) or write (a write turn)
   * on the device's channel, sent once, never retried: the device's answer, or
   * `not_sent` when it never reached the wire.
   */
  function passThrough<T extends ReadOutcome | WriteOutcome>(
    deviceId: string,
    priority: "passthrough" | "write",
    send: (link: ModbusLink, device: PollingDevice) => Promise<T> | undefined,
  ): Promise<T | NotSent> {
    const channel = channelOfDevice.get(deviceId);
    const device = gateway.devices.find((candidate) => candidate.id === deviceId);
    if (channel === undefined || device === undefined) return Promise.resolve(notSent());
    return channel
      .transact<T | NotSent>(
        {
          run: (link) => send(link, device) ?? Promise.resolve(notSent()),
          unsent: notSent,
          expiresAfterMs: writeQueueTimeoutMs,
        },
        priority,
      )
      .catch((error: unknown) => {
        log.error({ err: error }, "queued Modbus job failed");
        return notSent();
      });
  }
  const passThroughRead = (deviceId: string, functionCode: FunctionCode, start: number, count: number) =>
    passThrough(deviceId, "passthrough", (link, device) =>
      link.read(functionCode, device.slaveId, start, count, device.timeoutMs),
    );
  const passThroughWrite = (deviceId: string, functionCode: WriteFunctionCode, start: number, payload: WritePayload) =>
    passThrough(deviceId, "write", (link, device) =>
      link.write?.(functionCode, device.slaveId, start, payload, device.timeoutMs),
    );

  const running = parts.flatMap(({ channel, polling }) => [
    channel.run().catch((error) => {
      log.error({ err: error, link: channel.name }, "poll channel stopped on an error");
    }),
    polling.run().catch((error) => {
      log.error({ err: error, link: channel.name }, "poll channel stopped on an error");
      channel.stop();
    }),
  ]);
  if (parts.length === 0) log.info("gateway has no Modbus devices to poll");

  return {
    gatewayId: gateway.id,
    stats: (): BusStats => counters.snapshot(),
    /** Each device's bus counters, live (read at a scrape, never copied on the poll path). */
    deviceCounters: (): { device: string; counters: DeviceBusCounters }[] =>
      gateway.devices.map((device) => ({
        device: device.name ?? `unit ${device.slaveId}`,
        counters: health.countersOf(device.id),
      })),
    health: health.reader,
    writeRegister,
    readRegisterNow,
    passThroughRead,
    passThroughWrite,
    async stop(): Promise<void> {
      pauses.stop();
      for (const { channel, polling } of parts) {
        polling.stop();
        channel.stop();
      }
      await Promise.all(running);
    },
  };
}
export type GatewayPoller = ReturnType<typeof startGatewayPoller>;
