/**
 * Bus diagnostics without sockets (docs/polling.md, "Bus diagnostics"): modbus-serial's
 * errors become outcomes (CRC and framing errors apart from timeouts and lost
 * connections), each device's counters count what its requests came back with, and a
 * poller on a scripted line shows them per device in its health and in /metrics, where
 * a failing device's counters grow and its neighbour's stay clean; a write's read-back
 * retried counts as a retry.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createMetricsRegistry } from "../../../src/lib/metrics.ts";
import { DeviceBusCounters } from "../../../src/modbus/bus-stats.ts";
import {
  classify,
  type LinkOpener,
  type ModbusLink,
  type ReadOutcome,
  type WriteOutcome,
} from "../../../src/modbus/link.ts";
import { registerModbusMetrics } from "../../../src/modbus/metrics.ts";
import type { PollingDevice } from "../../../src/modbus/polling-config.ts";
import { holdingRegister, lineGateway, pollingDevice, startLinePoller } from "./polling-fixtures.ts";

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

describe("modbus-serial's errors as outcomes", () => {
  test("a bad CRC and a broken frame are told apart from a timeout, an exception and a lost connection", () => {
    expect(classify(new Error("CRC error"), true)).toEqual({ ok: false, kind: "bad_frame", fault: "crc" });
    expect(classify(new Error("Data length error, expected 25 got 7"), true)).toEqual({
      ok: false,
      kind: "bad_frame",
      fault: "framing",
    });
    expect(classify(new Error("Unexpected data error, expected address 1 got 2"), true)).toMatchObject({
      kind: "bad_frame",
      fault: "framing",
    });
    expect(classify(Object.assign(new Error("Modbus exception 2"), { modbusCode: 2 }), true)).toEqual({
      ok: false,
      kind: "exception",
      code: 2,
    });
    expect(classify(Object.assign(new Error("Timed out"), { errno: "ETIMEDOUT" }), true)).toEqual({
      ok: false,
      kind: "timeout",
    });
    // Once the port is closed, whatever the message, the link must be opened again.
    expect(classify(new Error("CRC error"), false)).toMatchObject({ kind: "disconnected" });
    expect(classify(new Error("Port Not Open"), true)).toMatchObject({ kind: "disconnected" });
  });
});

describe("a device's counters", () => {
  test("count requests, timeouts, exceptions by code, CRC and framing errors, and response times in buckets", () => {
    const counters = new DeviceBusCounters();
    counters.transaction({ ok: true, words: [1], bits: null }, 3);
    counters.transaction({ ok: false, kind: "exception", code: 2 }, 4);
    counters.transaction({ ok: false, kind: "exception", code: 2 }, 4);
    counters.transaction({ ok: false, kind: "exception", code: 6 }, 4);
    counters.transaction({ ok: false, kind: "timeout" }, 1000);
    counters.transaction({ ok: false, kind: "bad_frame", fault: "crc" }, 60);
    counters.transaction({ ok: false, kind: "bad_frame", fault: "framing" }, 400);
    counters.transaction({ ok: true }, 20_000);
    counters.retried();
    expect(counters.snapshot()).toEqual({
      requests: 8,
      timeouts: 1,
      exceptions: { "2": 2, "6": 1 },
      crcErrors: 1,
      framingErrors: 1,
      retries: 1,
      meanResponseMs: (3 + 4 * 3 + 1000 + 60 + 400 + 20_000) / 8,
    });
    // Buckets <= 5 ms, 10, 25, 50, 100, 250, 500 ms, 1, 2.5, 5 s, +Inf (not cumulative here).
    expect([...counters.responseBuckets]).toEqual([4, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1]);
  });
});

function device(id: string, slaveId: number): PollingDevice {
  return pollingDevice(id, slaveId, {
    timeoutMs: 20,
    retries: 1,
    // The second refused by the meter (exception 2 on its own): set aside after the first cycle.
    registers: [holdingRegister(`${id}-a`, 0), holdingRegister(`${id}-b`, 90)],
  });
}

/**
 * Unit 1 answers, and refuses address 90 with exception 2. Unit 2 is behind a noisy
 * stretch of line: its answers alternate between a bad CRC and a timeout.
 */
function scriptedLine(): LinkOpener {
  let unitTwoRequests = 0;
  const link: ModbusLink = {
    isOpen: true,
    close: async () => {},
    read: async (_fc, unit, start, count): Promise<ReadOutcome> => {
      await Bun.sleep(1);
      if (unit === 1) {
        if (start === 90) return { ok: false, kind: "exception", code: 2 };
        return { ok: true, words: Array.from({ length: count }, () => 7), bits: null };
      }
      unitTwoRequests++;
      if (unitTwoRequests % 2 === 1) return { ok: false, kind: "bad_frame", fault: "crc" };
      await Bun.sleep(20);
      return { ok: false, kind: "timeout" };
    },
  };
  return async () => link;
}

describe("a poller's counters per device", () => {
  test("the failing device's counters grow in its health and in /metrics; its neighbour's show only what it did", async () => {
    const gateway = lineGateway("GW-COUNT", [device("meter", 1), device("noisy", 2)]);
    const poller = startLinePoller(gateway, scriptedLine(), { quarantineAfter: 1000 });
    stops.push(() => poller.stop());
    await Bun.sleep(600);
    await poller.stop();

    const meter = poller.health.device("meter").counters;
    const noisy = poller.health.device("noisy").counters;
    // The meter: answers, one exception 2 for the refused register, then that register is set aside.
    expect(meter.requests).toBeGreaterThan(10);
    expect(meter).toMatchObject({ timeouts: 0, crcErrors: 0, framingErrors: 0, retries: 0, exceptions: { "2": 1 } });
    // The noisy device: every attempt fails; each request is tried twice (retries: 1): a CRC error, then a timeout.
    expect(noisy.requests).toBeGreaterThan(6);
    expect(noisy.crcErrors + noisy.timeouts).toBe(noisy.requests);
    expect(Math.abs(noisy.crcErrors - noisy.timeouts)).toBeLessThanOrEqual(1);
    // (The poller may stop between a retry's decision and its sending.)
    expect(Math.abs(noisy.retries - noisy.requests / 2)).toBeLessThanOrEqual(1);
    expect(noisy.exceptions).toEqual({});
    expect(noisy.meanResponseMs).toBeGreaterThan(5);

    const registry = createMetricsRegistry();
    registerModbusMetrics(registry, [poller], new Map([["gw", "GW-COUNT"]]));
    const text = await registry.metrics();
    const value = (line: string) =>
      Number(
        text
          .split("\n")
          .find((entry) => entry.startsWith(`${line} `))
          ?.split(" ")[1],
      );
    expect(value('fieldhub_modbus_device_requests_total{gateway="GW-COUNT",device="meter"}')).toBe(meter.requests);
    expect(value('fieldhub_modbus_device_timeouts_total{gateway="GW-COUNT",device="meter"}')).toBe(0);
    expect(value('fieldhub_modbus_device_timeouts_total{gateway="GW-COUNT",device="noisy"}')).toBe(noisy.timeouts);
    expect(value('fieldhub_modbus_device_crc_errors_total{gateway="GW-COUNT",device="noisy"}')).toBe(noisy.crcErrors);
    expect(value('fieldhub_modbus_device_retries_total{gateway="GW-COUNT",device="noisy"}')).toBe(noisy.retries);
    expect(value('fieldhub_modbus_device_exceptions_total{gateway="GW-COUNT",device="meter",code="2"}')).toBe(1);
    // The exception code is a label of the exceptions counter only.
    expect(text).not.toMatch(/fieldhub_modbus_device_(requests|timeouts|retries)_total\{[^}]*code=/);
    expect(value('fieldhub_modbus_device_response_seconds_count{gateway="GW-COUNT",device="noisy"}')).toBe(
      noisy.requests,
    );
    expect(value('fieldhub_modbus_device_response_seconds_bucket{gateway="GW-COUNT",device="noisy",le="+Inf"}')).toBe(
      noisy.requests,
    );
    // Cumulative buckets: never decreasing, ending at the count.
    const buckets = text
      .split("\n")
      .filter((line) =>
        line.startsWith('fieldhub_modbus_device_response_seconds_bucket{gateway="GW-COUNT",device="meter"'),
      )
      .map((line) => Number(line.split(" ")[1]));
    expect(buckets).toHaveLength(11);
    expect(buckets.every((count, index) => index === 0 || count >= buckets[index - 1]!)).toBe(true);
    expect(buckets.at(-1)).toBe(meter.requests);
  });
});

test("a write's read-back sent again after a timeout is counted in the device's retries, in its health and /metrics", async () => {
  let held = 0;
  let readBackLost = false;
  const link: ModbusLink = {
    isOpen: true,
    close: async () => {},
    read: async (_fc, _unit, _start, count): Promise<ReadOutcome> => {
      await Bun.sleep(1);
      if (readBackLost) {
        readBackLost = false;
        return { ok: false, kind: "timeout" };
      }
      return { ok: true, words: Array.from({ length: count }, () => held), bits: null };
    },
    write: async (_fc, _unit, _start, payload): Promise<WriteOutcome> => {
      held = payload.words?.[0] ?? 0;
      // The first read-back goes unanswered.
      readBackLost = true;
      return { ok: true };
    },
  };
  const write = { functionCode: 6 as const, min: 0, max: 1000, scaleFactor: null };
  const valve = pollingDevice("valve", 1, { retries: 2, registers: [holdingRegister("valve-a", 0, { write })] });
  const poller = startLinePoller(lineGateway("GW-WRITE", [valve]), async () => link);
  stops.push(() => poller.stop());
  expect(await poller.writeRegister("valve-a", 42)).toMatchObject({ result: "written", readBack: 42 });
  await poller.stop();
  // The polls all answered: the one retry is the read-back's.
  expect(poller.health.device("valve").counters.retries).toBe(1);
  const registry = createMetricsRegistry();
  registerModbusMetrics(registry, [poller], new Map([["gw", "GW-WRITE"]]));
  expect(await registry.metrics()).toContain(
    'fieldhub_modbus_device_retries_total{gateway="GW-WRITE",device="valve"} 1\n',
  );
});
