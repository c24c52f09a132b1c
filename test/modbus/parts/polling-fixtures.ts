/** Devices and registers as the poller takes them, for the tests of its parts without sockets. */
import { systemClock } from "../../../src/lib/clock.ts";
import { silentLogger } from "../../../src/lib/logger.ts";
import type { LinkOpener } from "../../../src/modbus/link.ts";
import { type GatewayPoller, type PollerOptions, startGatewayPoller } from "../../../src/modbus/poller.ts";
import type { PolledRegister, PollingDevice, PollingGateway } from "../../../src/modbus/polling-config.ts";

/** An int16 holding register at `address`; `extra` adds a poll interval, a write, ... */
export function holdingRegister(id: string, address: number, extra: Partial<PolledRegister> = {}): PolledRegister {
  return { id, address, functionCode: 3, dataType: "int16", byteOrder: "ABCD", bit: null, length: null, ...extra };
}

/** A device named `id` on unit `slaveId`, polled every 20 ms with a 30 ms timeout, no retries, no registers unless given. */
export function pollingDevice(id: string, slaveId: number, overrides: Partial<PollingDevice> = {}): PollingDevice {
  return {
    id,
    name: id,
    slaveId,
    host: null,
    port: null,
    pollIntervalMs: 20,
    timeoutMs: 30,
    retries: 0,
    maxRegistersPerRequest: 125,
    maxGap: 8,
    pauseMs: 0,
    storageIntervalMs: 60_000,
    registers: [],
    ...overrides,
  };
}

/** A gateway on one RTU-over-TCP line (the test gives the link: no socket is opened) with these devices. */
export function lineGateway(serial: string, devices: PollingDevice[]): PollingGateway {
  return {
    id: "gw",
    serial,
    bus: { type: "rtu_over_tcp", host: "127.0.0.1", port: 4001 },
    heartbeatMs: 60_000,
    devices,
  };
}

/** A poller of `gateway` on `openLink`, on the system clock, silent, its readings dropped unless `options.sink` takes them. */
export function startLinePoller(
  gateway: PollingGateway,
  openLink: LinkOpener,
  options: Partial<Omit<PollerOptions, "gateway" | "openLink">> = {},
): GatewayPoller {
  const sink = { readings: () => {}, answered: () => {}, unreachable: () => {} };
  return startGatewayPoller({ gateway, sink, clock: systemClock, logger: silentLogger(), openLink, ...options });
}
