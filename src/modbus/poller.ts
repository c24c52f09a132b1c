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
import { defaultReconnectMaxMs, type PollingDevice, type PollingGateway } from "./polling-config.ts";
import type { RegisterDecoding } from "./register-model.ts";
import { decodeBits, decodeWords } from "./decode.ts";
import { describeTarget, type LinkOpener, type LinkTarget, type ModbusLink, openModbusLink } from "./link.ts";
import { breakKey, planReadRequests, type ReadRequest, splitRequest } from "./plan.ts";

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
}

const largestBitRead = 2000;
const exceptionIllegalAddress = 2;
const exceptionIllegalValue = 3;

type DeviceState = {
  device: PollingDevice;
  /** Monotonic time of the next cycle (a wall-clock step must not stop or rush polling). */
  nextDue: number;
  breaks: Set<string>;
  /** Registers set aside after failing on their own: id -> when to try again (monotonic). */
  failingRegisters: Map<string, number>;
  failedCycles: number;
  quarantined: boolean;
  /** The plan of the last cycle, reused while nothing it depends on changed. */
  plan: ReadRequest[] | null;
  backoffMs: number;
  failureLogged: boolean;
};

export function startGatewayPoller(options: PollerOptions) {
  const { gateway, sink, clock, logger } = options;
  const openLink = options.openLink ?? openModbusLink;
  const quarantineAfter = options.quarantineAfter ?? 3;
  const maxBackoffMs = options.maxBackoffMs ?? 300_000;
  // A link is retried more often than a silent device is probed: a failed connect
  // costs the bus nothing, and a peer that comes back should be polled within
  // seconds, not minutes (issue 16, defect 10); nor less often than a device is probed.
  const reconnectMaxMs = Math.min(gateway.reconnectMaxMs ?? defaultReconnectMaxMs, maxBackoffMs);
  const failingRegisterRetryMs = options.failingRegisterRetryMs ?? 600_000;
  const log = logger.child({ gateway: gateway.serial });
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
    }));
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
          await sleep(linkBackoffMs);
          linkBackoffMs = Math.min(linkBackoffMs * 2, reconnectMaxMs);
          continue;
        }
      }
      const state = states.reduce((earliest, candidate) =>
        candidate.nextDue < earliest.nextDue ? candidate : earliest,
      );
      const wait = state.nextDue - clock.monotonic();
      if (wait > 0) {
        await sleep(wait);
        continue;
      }
      const started = clock.monotonic();
      const result = await pollDevice(link, state);
      if (result === "disconnected") {
        await link.close();
        link = null;
        reportLink(name, false, `${name}: connection lost`);
        continue;
      }
      scheduleNext(state, started, result === "answered");
    }
    await link?.close();
  }

  function scheduleNext(state: DeviceState, started: number, answered: boolean): void {
    const { device } = state;
    if (answered) {
      if (state.quarantined) log.info({ device: deviceLabel(device) }, "device answers again; back in the poll cycle");
      else if (state.failureLogged) log.info({ device: deviceLabel(device) }, "device answers again");
      state.failedCycles = 0;
      state.quarantined = false;
      state.failureLogged = false;
      state.backoffMs = device.pollIntervalMs;
      state.nextDue = Math.max(started + device.pollIntervalMs, clock.monotonic());
      return;
    }
    state.failedCycles++;
    if (!state.failureLogged) {
      log.warn({ device: deviceLabel(device) }, "device does not answer");
      state.failureLogged = true;
    }
    if (state.failedCycles >= quarantineAfter) {
      if (!state.quarantined)
        log.warn({ device: deviceLabel(device) }, "device quarantined: probed with growing backoff");
      state.quarantined = true;
      state.backoffMs = Math.min(state.backoffMs * 2, Math.max(maxBackoffMs, device.pollIntervalMs));
      state.nextDue = clock.monotonic() + state.backoffMs;
    } else {
      state.nextDue = Math.max(started + device.pollIntervalMs, clock.monotonic());
    }
  }

  /** One poll cycle of one device. */
  async function pollDevice(link: ModbusLink, state: DeviceState): Promise<"answered" | "silent" | "disconnected"> {
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
            log.info({ device: deviceLabel(device), register: register.id }, "register reads again");
          }
        }
        continue;
      }
      if (outcome.kind === "disconnected") {
        if (values.length > 0) sink.readings(gateway.id, values);
        return "disconnected";
      }
      if (outcome.kind === "exception") {
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
        const [register] = request.registers;
        if (register !== undefined && request.registers.length === 1 && !state.failingRegisters.has(register.id)) {
          log.warn(
            { device: deviceLabel(device), register: register.id, exception: outcome.code },
            "register refused by the device; set aside",
          );
        }
        for (const failed of request.registers)
          state.failingRegisters.set(failed.id, clock.monotonic() + failingRegisterRetryMs);
        state.plan = null;
      }
      // A timeout: that request got no answer; the rest of the cycle goes on.
    }
    if (values.length > 0) sink.readings(gateway.id, values);
    if (answered) sink.answered(gateway.id, clock.now());
    return answered ? "answered" : "silent";
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

function deviceLabel(device: PollingDevice): string {
  return device.name ?? `unit ${device.slaveId}`;
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
