/**
 * Polls one gateway's Modbus devices and reports readings and reachability.
 *
 * A gateway's devices are served by channels, one per connection: on a serial
 * bus or a serial server (RTU over TCP) all devices share one channel, so only
 * one request is on the wire at a time and devices take turns by due time; on
 * Modbus TCP each host:port has its own channel and channels run concurrently.
 *
 * Per device: the planner's fewest requests; a block the device rejects
 * (exception 2 or 3) is split and the split remembered; a register that fails on
 * its own is set aside and retried now and then; a device that stops answering
 * is quarantined with growing backoff, costing the bus at most one timeout per
 * backoff period, and rejoins by itself when it answers. Failures are logged when
 * they start and when they end, not every cycle.
 */
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { PolledValue } from "../lib/polled-value.ts";
import { scalerFor } from "../lib/register-scaling.ts";
import type { RegisterWriteOutcome } from "../lib/register-write.ts";
import { decodeBits, decodeWords } from "./decode.ts";
import { createDeviceHealthBoard, type DeviceHealthBoard } from "./device-health.ts";
import { describeTarget, type LinkOpener, type LinkTarget, type ModbusLink, openModbusLink } from "./link.ts";
import { breakKey, planReadRequests, type ReadRequest, splitRequest } from "./plan.ts";
import {
  defaultReconnectMaxMs,
  type PolledRegister,
  type PollingDevice,
  type PollingGateway,
} from "./polling-config.ts";
import type { RegisterDecoding } from "./register-model.ts";
import { registerSpan } from "./register-model.ts";
import { payloadFor, rawForValue, type WritableRegister } from "./write-value.ts";

/** Where a poller reports; ingest implements it (the Modbus layer does not know ingest). */
export interface PollSink {
  readings(gatewayId: string, values: PolledValue[]): void;
  /** A device of the gateway answered (a Modbus exception is an answer too). */
  answered(gatewayId: string, at: number): void;
  /** No channel of the gateway can reach its equipment; `fatal` when the bus cannot be used at all. */
  unreachable(gatewayId: string, at: number, reason: string, fatal: boolean): void;
}

export interface BusStats {
  requests: number;
  errors: number;
  timeouts: number;
  exceptions: number;
  reconnects: number;
  /** Sum and count of request round-trip times (ms). */
  rttTotalMs: number;
  rttCount: number;
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
}

/** Work queued onto a channel between polls: a register write or a read-back. */
type ChannelJob = { run(link: ModbusLink): Promise<void>; started: boolean };

const largestBitRead = 2000;
const exceptionIllegalAddress = 2;
const exceptionIllegalValue = 3;
/** A gateway in front of the device answers these when the device itself does not (Modbus application protocol, section 7). */
const exceptionsMeaningNoAnswer = new Set([10, 11]);
const exceptionNames: Record<number, string> = {
  1: "illegal function",
  2: "illegal data address",
  3: "illegal data value",
  4: "server device failure",
  5: "acknowledge",
  6: "server device busy",
  8: "memory parity error",
  10: "gateway path unavailable",
  11: "gateway target device failed to respond",
};

type DeviceState = {
  device: PollingDevice;
  /** Monotonic time of the next cycle (a wall-clock step must not stop or rush polling). */
  nextDue: number;
  breaks: Set<string>;
  /** Registers set aside after failing on their own: id -> when to try again. */
  failingRegisters: Map<string, number>;
  failedCycles: number;
  quarantined: boolean;
  /** The plan of the last cycle, reused while nothing it depends on changed. */
  plan: ReadRequest[] | null;
  backoffMs: number;
  failureLogged: boolean;
  /** The last failure in words, for the log line that says the device went silent. */
  lastError: string | null;
};

export function startGatewayPoller(options: PollerOptions) {
  const { gateway, sink, clock, logger } = options;
  const openLink = options.openLink ?? openModbusLink;
  const quarantineAfter = options.quarantineAfter ?? 3;
  const maxBackoffMs = options.maxBackoffMs ?? 300_000;
  // A link is retried more often than a silent device is probed: a failed connect
  // costs the bus nothing, and a peer that comes back should be polled within
  // seconds, not minutes; nor less often than a device is probed.
  const reconnectMaxMs = Math.min(gateway.reconnectMaxMs ?? defaultReconnectMaxMs, maxBackoffMs);
  const failingRegisterRetryMs = options.failingRegisterRetryMs ?? 600_000;
  const health = options.health ?? createDeviceHealthBoard();
  const writeQueueTimeoutMs = options.writeQueueTimeoutMs ?? 10_000;
  const log = logger.child({
    gateway: gateway.serial,
    gateway_name: gateway.name ?? gateway.serial,
    gateway_id: gateway.id,
  });
  const stats: BusStats = {
    requests: 0,
    errors: 0,
    timeouts: 0,
    exceptions: 0,
    reconnects: 0,
    rttTotalMs: 0,
    rttCount: 0,
  };
  let stopped = false;
  const wakers = new Set<() => void>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopped) return resolve();
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      wakers.add(wake);
    });

  const channels = channelsOf(gateway);
  // Writes and read-backs queue on the channel of their device and run in its loop,
  // between two poll cycles: never beside another request on that connection.
  const jobs = new Map<string, ChannelJob[]>();
  const jobWakers = new Map<string, () => void>();
  const channelOfDevice = new Map<string, string>();
  for (const { target, devices } of channels) {
    jobs.set(describeTarget(target), []);
    for (const device of devices) channelOfDevice.set(device.id, describeTarget(target));
  }
  const channelUp = new Map<string, boolean>();
  const reportLink = (channel: string, up: boolean, reason: string, fatal = false) => {
    channelUp.set(channel, up);
    if (!up && ![...channelUp.values()].some(Boolean)) sink.unreachable(gateway.id, clock.now(), reason, fatal);
  };

  async function runChannel(target: LinkTarget, devices: PollingDevice[]): Promise<void> {
    const name = describeTarget(target);
    const states: DeviceState[] = devices.map((device) => ({
      device,
      nextDue: clock.monotonic(),
      breaks: new Set(),
      failingRegisters: new Map(),
      plan: null,
      failedCycles: 0,
      quarantined: false,
      backoffMs: device.pollIntervalMs,
      failureLogged: false,
      lastError: null,
    }));
    const deviceIds = devices.map((device) => device.id);
    const connectTimeoutMs = Math.max(...devices.map((device) => device.timeoutMs), 1000);
    let link: ModbusLink | null = null;
    let linkBackoffMs = 1000;
    let linkFailureLogged = false;

    while (!stopped) {
      if (link === null || !link.isOpen) {
        try {
          link = await openLink(target, connectTimeoutMs);
          if (linkFailureLogged) log.info({ link: name }, "connection restored");
          linkFailureLogged = false;
          linkBackoffMs = 1000;
          channelUp.set(name, true);
          // A new connection is a new chance: devices quarantined while the link
          // was down are probed at once rather than after their device backoff.
          for (const state of states) if (state.quarantined) state.nextDue = Math.min(state.nextDue, clock.monotonic());
        } catch (error) {
          link = null;
          const reason = error instanceof Error ? error.message : String(error);
          const fatal = /EACCES|permission denied|not a tty|ENOTTY/i.test(reason);
          if (!linkFailureLogged) log.warn({ link: name, reason }, "cannot connect; retrying with backoff");
          linkFailureLogged = true;
          stats.reconnects++;
          reportLink(name, false, `${name}: ${reason}`, fatal);
          health.linkDown(deviceIds, clock.now(), `${name}: ${reason}`);
          await sleep(linkBackoffMs);
          linkBackoffMs = Math.min(linkBackoffMs * 2, reconnectMaxMs);
          continue;
        }
      }
      const queue = jobs.get(name) ?? [];
      const job = queue.shift();
      if (job !== undefined) {
        job.started = true;
        await job.run(link);
        continue;
      }
      const state = states.reduce((earliest, candidate) =>
        candidate.nextDue < earliest.nextDue ? candidate : earliest,
      );
      const wait = state.nextDue - clock.monotonic();
      if (wait > 0) {
        await idle(name, wait);
        continue;
      }
      const started = clock.monotonic();
      const result = await pollDevice(link, state);
      if (result !== "disconnected")
        health.cycle(state.device.id, clock.now(), { answered: result !== "silent", partial: result === "partial" });
      if (result === "disconnected") {
        await link.close();
        link = null;
        reportLink(name, false, `${name}: connection lost`);
        health.linkDown(deviceIds, clock.now(), `${name}: connection lost`);
        continue;
      }
      scheduleNext(state, started, result !== "silent");
    }
    await link?.close();
  }

  /** Sleeps until the next poll is due, or a job is queued on the channel. */
  function idle(channel: string, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (stopped) return resolve();
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        jobWakers.delete(channel);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      wakers.add(wake);
      jobWakers.set(channel, wake);
    });
  }

  /** Queues work on the device's channel; it gives up (`onExpired`) when not started in time. */
  function enqueue<T>(deviceId: string, run: (link: ModbusLink) => Promise<T>, onExpired: () => T): Promise<T> {
    const channel = channelOfDevice.get(deviceId);
    const queue = channel === undefined ? undefined : jobs.get(channel);
    if (channel === undefined || queue === undefined || stopped) return Promise.resolve(onExpired());
    return new Promise<T>((resolve) => {
      const job: ChannelJob = {
        started: false,
        run: async (link) => {
          clearTimeout(expiry);
          try {
            resolve(await run(link));
          } catch (error) {
            log.error({ err: error }, "queued Modbus job failed");
            resolve(onExpired());
          }
        },
      };
      const expiry = setTimeout(() => {
        if (job.started) return;
        queue.splice(queue.indexOf(job), 1);
        resolve(onExpired());
      }, writeQueueTimeoutMs);
      queue.push(job);
      jobWakers.get(channel)?.();
    });
  }

  function findWritable(registerId: string): { device: PollingDevice; register: WritableRegister } | null {
    for (const device of gateway.devices) {
      const register = device.registers.find((candidate) => candidate.id === registerId);
      if (register?.write !== undefined) return { device, register: register as WritableRegister };
    }
    return null;
  }

  /**
   * Writes `value` (engineering units) to a writable register: read before, one write
   * request (never retried: after a timeout the device may have taken it), read back.
   */
  function writeRegister(registerId: string, value: number): Promise<RegisterWriteOutcome> {
    const found = findWritable(registerId);
    const outcome = (
      result: RegisterWriteOutcome["result"],
      detail: string | null,
      more: Partial<RegisterWriteOutcome> = {},
    ) =>
      ({
        result,
        valueBefore: null,
        readBack: null,
        readBackRaw: null,
        detail,
        ...more,
      }) satisfies RegisterWriteOutcome;
    if (found === null) return Promise.resolve(outcome("invalid", "the register is not writable"));
    const { device, register } = found;
    const converted = rawForValue(register, value);
    if ("problem" in converted) return Promise.resolve(outcome("invalid", converted.problem));
    const scale = scalerFor(register.write.scaleFactor);
    return enqueue(
      device.id,
      async (link) => {
        const read = () => readOne(link, device, register);
        const before = await read();
        if (!before.ok) {
          if (before.kind === "exception") {
            return outcome("refused", `the device refused the read before the write: Modbus exception ${before.code}`);
          }
          return outcome(
            "not_sent",
            `the device did not answer the read before the write (${before.kind}); nothing was written`,
          );
        }
        const valueBefore = before.raw === null ? null : scale(before.raw);
        if (device.pauseMs > 0) await sleep(device.pauseMs);
        if (link.write === undefined) return outcome("not_sent", "this connection cannot write", { valueBefore });
        const began = performance.now();
        const written = await link.write(
          register.write.functionCode,
          device.slaveId,
          register.address,
          payloadFor(register, converted.raw, before.words?.[0] ?? null),
          device.timeoutMs,
        );
        stats.requests++;
        stats.rttTotalMs += performance.now() - began;
        stats.rttCount++;
        if (!written.ok) {
          stats.errors++;
          if (written.kind === "exception") {
            stats.exceptions++;
            return outcome("refused", `the device refused the write: Modbus exception ${written.code}`, {
              valueBefore,
            });
          }
          if (written.kind === "timeout") stats.timeouts++;
          return outcome(
            "timeout",
            `no answer to the write within ${device.timeoutMs} ms (${written.kind}); the outcome is unknown and the write was not retried`,
            { valueBefore },
          );
        }
        if (device.pauseMs > 0) await sleep(device.pauseMs);
        const after = await read();
        if (!after.ok || after.raw === null) {
          return outcome("mismatch", "the device took the write but did not answer the read-back", { valueBefore });
        }
        sink.readings(gateway.id, [{ registerId, ts: clock.now(), monotonic: clock.monotonic(), raw: after.raw }]);
        const more = { valueBefore, readBack: scale(after.raw), readBackRaw: after.raw };
        const same =
          register.dataType === "float32"
            ? Math.fround(after.raw) === Math.fround(converted.raw)
            : after.raw === converted.raw;
        if (!same) {
          return outcome("mismatch", `the device reads back ${scale(after.raw)} after writing ${value}`, more);
        }
        return outcome("written", null, more);
      },
      () =>
        outcome(
          "not_sent",
          `the connection did not get to the write within ${writeQueueTimeoutMs} ms; nothing was written`,
        ),
    );
  }

  /** Reads one writable register now, between polls (after a write whose outcome was unknown). */
  function readRegisterNow(registerId: string): Promise<{ value: number | null; raw: number | null } | null> {
    const found = findWritable(registerId);
    if (found === null) return Promise.resolve(null);
    const scale = scalerFor(found.register.write.scaleFactor);
    return enqueue(
      found.device.id,
      async (link) => {
        const read = await readOne(link, found.device, found.register);
        if (!read.ok || read.raw === null) return null;
        sink.readings(gateway.id, [{ registerId, ts: clock.now(), monotonic: clock.monotonic(), raw: read.raw }]);
        return { value: scale(read.raw), raw: read.raw };
      },
      () => null,
    );
  }

  async function readOne(link: ModbusLink, device: PollingDevice, register: WritableRegister) {
    const request: ReadRequest = {
      functionCode: register.functionCode,
      start: register.address,
      count: registerSpan(register),
      registers: [register],
    };
    const read = await readWithRetries(link, device, request, device.retries);
    if (!read.ok) return read;
    const decoded = decodeValue(register, request, read, clock.now(), clock.monotonic());
    return { ok: true as const, raw: decoded.raw, words: read.words };
  }

  function scheduleNext(state: DeviceState, started: number, answered: boolean): void {
    const { device } = state;
    if (answered) {
      if (state.quarantined) log.info(deviceFields(device), "device answers again; back in the poll cycle");
      else if (state.failureLogged) log.info(deviceFields(device), "device answers again");
      state.failedCycles = 0;
      state.quarantined = false;
      state.failureLogged = false;
      state.backoffMs = device.pollIntervalMs;
      state.nextDue = Math.max(started + device.pollIntervalMs, clock.monotonic());
      return;
    }
    state.failedCycles++;
    if (!state.failureLogged) {
      log.warn({ ...deviceFields(device), error: state.lastError }, "device does not answer");
      state.failureLogged = true;
    }
    if (state.failedCycles >= quarantineAfter) {
      if (!state.quarantined)
        log.warn(
          { ...deviceFields(device), error: state.lastError },
          "device quarantined: probed with growing backoff",
        );
      state.quarantined = true;
      state.backoffMs = Math.min(state.backoffMs * 2, Math.max(maxBackoffMs, device.pollIntervalMs));
      state.nextDue = clock.monotonic() + state.backoffMs;
      // The board shows wall time: when the next probe is, as a person reads a clock.
      health.quarantined(device.id, clock.now() + state.backoffMs);
    } else {
      state.nextDue = Math.max(started + device.pollIntervalMs, clock.monotonic());
    }
  }

  /** A failure in words, for the health board and the log: `timeout after 1000 ms at 3:40010`. */
  function failed(state: DeviceState, error: string): void {
    state.lastError = error;
    health.failed(state.device.id, clock.now(), error);
  }

  /**
   * One poll cycle of one device: `answered` in full, `partial` (answered, but a
   * request failed), `silent`, or `disconnected`.
   */
  async function pollDevice(
    link: ModbusLink,
    state: DeviceState,
  ): Promise<"answered" | "partial" | "silent" | "disconnected"> {
    const { device } = state;
    const now = clock.monotonic();
    // The plan changes only when a block is split or a register is set aside or due
    // again; with no register set aside, last cycle's plan is still right.
    if (state.plan === null || state.failingRegisters.size > 0) {
      const due: RegisterDecoding[] = [];
      for (const register of device.registers) {
        const retryAt = state.failingRegisters.get(register.id);
        if (retryAt === undefined || retryAt <= now) due.push(register);
      }
      state.plan = planReadRequests(due, {
        maxRegisters: device.maxRegistersPerRequest,
        maxBits: largestBitRead,
        maxGap: device.maxGap,
        breaks: state.breaks,
      });
    }
    let requests = state.plan;
    // A quarantined device gets one probe, without retries, not its whole cycle.
    if (state.quarantined) requests = requests.slice(0, 1);
    const retries = state.quarantined ? 0 : device.retries;

    let answered = false;
    let partial = false;
    const values: PolledValue[] = [];
    const pending = [...requests];
    let first = true;
    while (pending.length > 0 && !stopped) {
      const request = pending.shift() as ReadRequest;
      if (!first && device.pauseMs > 0) await sleep(device.pauseMs);
      first = false;
      const outcome = await readWithRetries(link, device, request, retries);
      if (outcome.ok) {
        answered = true;
        const ts = clock.now();
        const monotonic = clock.monotonic();
        for (const register of request.registers) {
          values.push(decodeValue(register, request, outcome, ts, monotonic));
          if (state.failingRegisters.delete(register.id)) {
            state.plan = null;
            health.readsAgain(device.id, register.id);
            log.info({ ...deviceFields(device), ...registerFields(register) }, "register reads again");
          }
        }
        continue;
      }
      if (outcome.kind === "disconnected") {
        if (values.length > 0) sink.readings(gateway.id, values);
        return "disconnected";
      }
      const at = `${request.functionCode}:${request.start}`;
      if (outcome.kind === "timeout") {
        // That request got no answer; the rest of the cycle goes on.
        failed(state, `timeout after ${device.timeoutMs} ms at ${at}`);
        partial = true;
        continue;
      }
      const error = `exception ${outcome.code} (${exceptionNames[outcome.code] ?? "unknown exception"}) at ${at}`;
      if (exceptionsMeaningNoAnswer.has(outcome.code)) {
        // The gateway answered for a device that did not: the device is as silent as on a timeout.
        failed(state, error);
        partial = true;
        continue;
      }
      answered = true;
      if (outcome.code === exceptionIllegalAddress || outcome.code === exceptionIllegalValue) {
        const halves = splitRequest(request);
        if (halves !== null) {
          // Remember the split, so the next cycles read the halves directly.
          state.breaks.add(breakKey(halves[1].functionCode, halves[1].start));
          state.plan = null;
          pending.unshift(...halves);
          continue;
        }
      }
      failed(state, error);
      partial = true;
      const since = clock.now();
      // Set aside on the monotonic clock; the board shows the wall time of the retry.
      const retryAt = clock.monotonic() + failingRegisterRetryMs;
      for (const register of request.registers) {
        if (!state.failingRegisters.has(register.id)) {
          log.warn(
            { ...deviceFields(device), ...registerFields(register), error },
            "register refused by the device; set aside",
          );
        }
        state.failingRegisters.set(register.id, retryAt);
        health.setAside(device.id, register.id, { reason: error, since, retryAt: since + failingRegisterRetryMs });
      }
      state.plan = null;
    }
    if (values.length > 0) sink.readings(gateway.id, values);
    if (answered) sink.answered(gateway.id, clock.now());
    if (!answered) return "silent";
    return partial ? "partial" : "answered";
  }

  async function readWithRetries(link: ModbusLink, device: PollingDevice, request: ReadRequest, retries: number) {
    let outcome: Awaited<ReturnType<ModbusLink["read"]>> = { ok: false, kind: "timeout" };
    for (let attempt = 0; attempt <= retries && !stopped; attempt++) {
      const began = performance.now();
      outcome = await link.read(request.functionCode, device.slaveId, request.start, request.count, device.timeoutMs);
      stats.requests++;
      stats.rttTotalMs += performance.now() - began;
      stats.rttCount++;
      if (outcome.ok) return outcome;
      stats.errors++;
      if (outcome.kind === "exception") stats.exceptions++;
      if (outcome.kind !== "timeout") return outcome;
      stats.timeouts++;
    }
    return outcome;
  }

  const running = channels.map(({ target, devices }) =>
    runChannel(target, devices).catch((error) => {
      log.error({ err: error, link: describeTarget(target) }, "poll channel stopped on an error");
    }),
  );
  if (channels.length === 0) log.info("gateway has no Modbus devices to poll");

  return {
    gatewayId: gateway.id,
    stats: (): BusStats => ({ ...stats }),
    health: health.reader,
    writeRegister,
    readRegisterNow,
    async stop(): Promise<void> {
      stopped = true;
      for (const wake of [...wakers]) wake();
      await Promise.all(running);
    },
  };
}
export type GatewayPoller = ReturnType<typeof startGatewayPoller>;

function decodeValue(
  register: RegisterDecoding,
  request: ReadRequest,
  outcome: { words: number[] | null; bits: boolean[] | null },
  ts: number,
  monotonic: number,
): PolledValue {
  const offset = register.address - request.start;
  if (outcome.bits !== null) return { registerId: register.id, ts, monotonic, raw: decodeBits(outcome.bits, offset) };
  const decoded = decodeWords(register, outcome.words ?? [], offset);
  if (typeof decoded === "string") return { registerId: register.id, ts, monotonic, raw: null, text: decoded };
  return { registerId: register.id, ts, monotonic, raw: decoded };
}

/** A device in log lines: by name (or unit id) and by id. */
function deviceFields(device: PollingDevice) {
  return { device: device.name ?? `unit ${device.slaveId}`, device_id: device.id };
}

/** A register in log lines: by name, id and where it is read. */
function registerFields(register: PolledRegister) {
  return {
    register: register.name ?? null,
    register_id: register.id,
    address: `${register.functionCode}:${register.address}`,
  };
}

/** The connections a gateway needs, each with the devices it serves. */
export function channelsOf(gateway: PollingGateway): { target: LinkTarget; devices: PollingDevice[] }[] {
  const { bus } = gateway;
  if (gateway.devices.length === 0) return [];
  if (bus.type === "rtu") {
    const target: LinkTarget = {
      kind: "serial",
      path: bus.path,
      baudRate: bus.baud,
      dataBits: bus.dataBits,
      parity: bus.parity,
      stopBits: bus.stopBits,
    };
    return [{ target, devices: gateway.devices }];
  }
  if (bus.type === "rtu_over_tcp") {
    return [{ target: { kind: "rtu_over_tcp", host: bus.host, port: bus.port }, devices: gateway.devices }];
  }
  const byEndpoint = new Map<string, { target: LinkTarget; devices: PollingDevice[] }>();
  for (const device of gateway.devices) {
    const host = device.host ?? "127.0.0.1";
    const port = device.port ?? 502;
    const key = `${host}:${port}`;
    const channel = byEndpoint.get(key) ?? { target: { kind: "tcp", host, port }, devices: [] };
    channel.devices.push(device);
    byEndpoint.set(key, channel);
  }
  return [...byEndpoint.values()];
}
