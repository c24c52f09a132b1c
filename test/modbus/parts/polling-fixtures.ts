/** Devices and registers as the poller takes them, for the tests of its parts without sockets. */
import type { PolledRegister, PollingDevice } from "../../../src/modbus/polling-config.ts";

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
