/**
 * The poller's behaviour on a live TCP link: coalesced reads, blocks split and
 * remembered after exception 2, registers set aside, a dead slave quarantined
 * without stalling its neighbour, a lost connection reported and recovered.
 * The equipment is modbus-serial's TCP server (the demo's simulator); decoding
 * against an independent implementation is tested with pymodbus elsewhere.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type SimulatedRegister, startSimulatedDevice } from "../../src/demo/simulator.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import type { PolledValue } from "../../src/lib/polled-value.ts";
import type { LinkOpener } from "../../src/modbus/link.ts";
import { type PollSink, startGatewayPoller } from "../../src/modbus/poller.ts";
import type { PollingDevice, PollingGateway } from "../../src/modbus/polling-config.ts";
import type { RegisterDecoding } from "../../src/modbus/register-model.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function register(
  id: string,
  address: number,
  dataType: RegisterDecoding["dataType"] = "int16",
  functionCode: RegisterDecoding["functionCode"] = 3,
): RegisterDecoding {
  return { id, address, dataType, functionCode, byteOrder: "ABCD", bit: null, length: null };
}
function simulated(decoding: RegisterDecoding, value: number): SimulatedRegister {
  return { ...decoding, valueAt: () => value };
}

function device(overrides: Partial<PollingDevice> & Pick<PollingDevice, "id" | "registers" | "port">): PollingDevice {
  return {
    name: overrides.id,
    slaveId: 1,
    host: "127.0.0.1",
    pollIntervalMs: 100,
    timeoutMs: 150,
    retries: 0,
    maxRegistersPerRequest: 125,
    maxGap: 8,
    pauseMs: 0,
    storageIntervalMs: 60_000,
    ...overrides,
  };
}

function recordingSink() {
  const values: PolledValue[] = [];
  const answered: number[] = [];
  const unreachable: string[] = [];
  const sink: PollSink = {
    readings: (_gateway, batch) => values.push(...batch),
    answered: (_gateway, at) => answered.push(at),
    unreachable: (_gateway, _at, reason) => unreachable.push(reason),
  };
  return {
    sink,
    values,
    answered,
    unreachable,
    latest: (id: string) => values.filter((value) => value.registerId === id).at(-1)?.raw,
  };
}

function poll(devices: PollingDevice[], sink: PollSink) {
  const gateway: PollingGateway = { id: "gw", serial: "GW-TEST", bus: { type: "tcp" }, heartbeatMs: 60_000, devices };
  const poller = startGatewayPoller({ gateway, sink, clock: systemClock, logger: silentLogger(), maxBackoffMs: 800 });
  cleanups.push(() => poller.stop());
  return poller;
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await Bun.sleep(10);
  }
}

describe("reading plan on the wire", () => {
  test("near registers are read in one request per cycle, decoded per type", async () => {
    const registers = [
      register("a", 0),
      register("b", 1, "uint16"),
      register("c", 10, "float32"),
      register("d", 14, "int32"),
    ];
    // This device answers for the addresses in between too (unused words read as 0).
    const fillers = [2, 3, 4, 5, 6, 7, 8, 9, 12, 13].map((address) => simulated(register(`gap${address}`, address), 0));
    const equipment = await startSimulatedDevice({
      registers: [
        simulated(registers[0]!, -12),
        simulated(registers[1]!, 65000),
        simulated(registers[2]!, 1.5),
        simulated(registers[3]!, -70000),
        ...fillers,
      ],
    });
    cleanups.push(equipment.stop);
    const recorder = recordingSink();
    const poller = poll([device({ id: "dev", port: equipment.port, registers })], recorder.sink);
    await until(() => recorder.answered.length >= 3);
    expect(["a", "b", "c", "d"].map(recorder.latest)).toEqual([-12, 65000, 1.5, -70000]);
    // One request per answered cycle: the four registers span 0..15 with gaps under max_gap.
    const { requests, errors } = poller.stats();
    expect(errors).toBe(0);
    expect(requests).toBeGreaterThanOrEqual(recorder.answered.length);
    expect(requests).toBeLessThanOrEqual(recorder.answered.length + 1);
  });

  test("a block rejected with exception 2 is split, remembered, and every register still read", async () => {
    // 3 and 4 do not exist: the merged block 0..5 is refused, its halves are not.
    const registers = [register("r0", 0), register("r1", 1), register("r2", 2), register("r5", 5)];
    const equipment = await startSimulatedDevice({
      registers: registers.map((decoding, index) => simulated(decoding, index + 100)),
    });
    cleanups.push(equipment.stop);
    const recorder = recordingSink();
    const poller = poll([device({ id: "dev", port: equipment.port, registers })], recorder.sink);
    await until(() => recorder.answered.length >= 2);
    const exceptionsAfterSplit = poller.stats().exceptions;
    expect(exceptionsAfterSplit).toBeGreaterThan(0);
    await until(() => recorder.answered.length >= 6);
    // The split is remembered: later cycles are refused nothing.
    expect(poller.stats().exceptions).toBe(exceptionsAfterSplit);
    expect(["r0", "r1", "r2", "r5"].map(recorder.latest)).toEqual([100, 101, 102, 103]);
  });

  test("a register the device refuses on its own is set aside; its neighbours go on", async () => {
    const registers = [register("ok", 0), register("missing", 40), register("fine", 80)];
    const equipment = await startSimulatedDevice({
      registers: [simulated(registers[0]!, 7), simulated(registers[2]!, 9)],
    });
    cleanups.push(equipment.stop);
    const recorder = recordingSink();
    const poller = poll([device({ id: "dev", port: equipment.port, registers })], recorder.sink);
    await until(() => recorder.answered.length >= 5);
    expect(recorder.latest("ok")).toBe(7);
    expect(recorder.latest("fine")).toBe(9);
    expect(recorder.values.some((value) => value.registerId === "missing")).toBe(false);
    // Refused once, then left out (retried only after failingRegisterRetryMs).
    expect(poller.stats().exceptions).toBe(1);
  });
});

describe("failures", () => {
  test("a dead slave on a shared connection is quarantined and does not stall its neighbour", async () => {
    // The simulator answers unit 1 only; unit 2 never answers (every request times out).
    const live = [register("live", 0)];
    const equipment = await startSimulatedDevice({ registers: [simulated(live[0]!, 42)], unitId: 1 });
    cleanups.push(equipment.stop);
    const recorder = recordingSink();
    const poller = poll(
      [
        device({ id: "alive", slaveId: 1, port: equipment.port, registers: live }),
        device({ id: "dead", slaveId: 2, port: equipment.port, registers: [register("gone", 0)] }),
      ],
      recorder.sink,
    );
    const started = Date.now();
    await Bun.sleep(3_000);
    const elapsed = Date.now() - started;
    const liveReads = recorder.values.filter((value) => value.registerId === "live").length;
    // Without quarantine each cycle would wait a 150 ms timeout: at most ~12 live reads in 3 s.
    expect(liveReads).toBeGreaterThan(18);
    // 3 timeouts before quarantine, then one per backoff period (200, 400, 800, 800 ms ...).
    expect(poller.stats().timeouts).toBeLessThanOrEqual(3 + Math.ceil(elapsed / 200));
    expect(poller.stats().timeouts).toBeLessThan(10);
    expect(recorder.values.some((value) => value.registerId === "gone")).toBe(false);
  });

  test("a lost connection is reported, and polling resumes by itself when the device is back", async () => {
    const registers = [register("x", 0)];
    let equipment = await startSimulatedDevice({ registers: [simulated(registers[0]!, 1)] });
    const port = equipment.port;
    const recorder = recordingSink();
    poll([device({ id: "dev", port, registers })], recorder.sink);
    await until(() => recorder.answered.length >= 2);
    await equipment.stop();
    await until(() => recorder.unreachable.length >= 1);
    expect(recorder.unreachable[0]).toContain(`127.0.0.1:${port}`);
    const answersBefore = recorder.answered.length;
    equipment = await startSimulatedDevice({ registers: [simulated(registers[0]!, 2)], port });
    cleanups.push(equipment.stop);
    await until(() => recorder.answered.length > answersBefore && recorder.latest("x") === 2, 8_000);
  });

  test("a device that cannot be connected to at all is reported unreachable, and nothing else stops", async () => {
    const recorder = recordingSink();
    // Port 1 on loopback: connection refused.
    poll([device({ id: "nowhere", port: 1, registers: [register("n", 0)] })], recorder.sink);
    await until(() => recorder.unreachable.length >= 1);
    expect(recorder.unreachable[0]).toContain("127.0.0.1:1");
  });
});

describe("a gateway in front of the device", () => {
  test("exception 11 (target device failed to respond) counts as no answer: quarantined, nothing set aside", async () => {
    // A Modbus TCP gateway that answers for a serial device that stays silent.
    const openLink: LinkOpener = async () => ({
      isOpen: true,
      read: async () => ({ ok: false, kind: "exception", code: 11 }),
      close: async () => {},
    });
    const recorder = recordingSink();
    const gateway: PollingGateway = {
      id: "gw",
      serial: "GW-TEST",
      bus: { type: "tcp" },
      heartbeatMs: 60_000,
      devices: [device({ id: "behind", port: 502, registers: [register("b", 0)] })],
    };
    const poller = startGatewayPoller({
      gateway,
      sink: recorder.sink,
      clock: systemClock,
      logger: silentLogger(),
      openLink,
    });
    cleanups.push(() => poller.stop());
    await until(() => poller.health.device("behind").status === "quarantined");
    expect(poller.health.device("behind")).toMatchObject({
      lastAnswerAt: null,
      lastError: "exception 11 (gateway target device failed to respond) at 3:0",
      registersSetAside: 0,
    });
    expect(poller.health.setAside("b")).toBeNull();
    expect(recorder.answered).toEqual([]);
  });
});
