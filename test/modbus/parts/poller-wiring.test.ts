/**
 * The poller's parts wired together (startGatewayPoller) on a scripted link, no
 * sockets: one transaction on the wire at a time, a write goes next after the poll
 * in flight and its read, write and read-back are never split, and a quarantined
 * device (all its poll groups) is sent nothing between its probes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import pino from "pino";
import { type Logger, silentLogger } from "../../../src/lib/logger.ts";
import type { LinkOpener, ModbusLink, ReadOutcome, WriteOutcome } from "../../../src/modbus/link.ts";
import type { PollingDevice } from "../../../src/modbus/polling-config.ts";
import { holdingRegister, lineGateway, pollingDevice, startLinePoller } from "./polling-fixtures.ts";

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function device(id: string, slaveId: number, overrides: Partial<PollingDevice> = {}): PollingDevice {
  return pollingDevice(id, slaveId, {
    registers: [
      holdingRegister(`${id}-a`, 0),
      // Far from the first: a second request per cycle.
      holdingRegister(`${id}-b`, 200, { write: { functionCode: 6, min: 0, max: 1000, scaleFactor: null } }),
    ],
    ...overrides,
  });
}

type Sent = { kind: "read" | "write"; unit: number; start: number; at: number; ended: number };

/** One serial line's worth of equipment: each request takes `latencyMs`; `deadUnits` (as they are at each request) never answer. */
function scriptedBus(latencyMs: number, deadUnits: number[] = []) {
  const sent: Sent[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const held = new Map<number, number>();
  const transaction = async <T, S>(entry: Omit<Sent, "at" | "ended">, answer: () => T, silent: S): Promise<T | S> => {
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    const record: Sent = { ...entry, at: performance.now(), ended: 0 };
    sent.push(record);
    const dead = deadUnits.includes(entry.unit);
    await Bun.sleep(dead ? 30 : latencyMs);
    record.ended = performance.now();
    inFlight--;
    return dead ? silent : answer();
  };
  const link: ModbusLink = {
    isOpen: true,
    close: async () => {},
    read: (_fc, unit, start, count): Promise<ReadOutcome> =>
      transaction(
        { kind: "read", unit, start },
        () => ({
          ok: true as const,
          words: Array.from({ length: count }, (_, i) => held.get(start + i) ?? 0),
          bits: null,
        }),
        { ok: false as const, kind: "timeout" as const },
      ),
    write: (_fc, unit, start, payload): Promise<WriteOutcome> =>
      transaction(
        { kind: "write", unit, start },
        () => {
          held.set(start, payload.words?.[0] ?? 0);
          return { ok: true as const };
        },
        { ok: false as const, kind: "timeout" as const },
      ),
  };
  const openLink: LinkOpener = async () => link;
  return { openLink, sent, mostInFlight: () => mostInFlight };
}

function start(
  devices: PollingDevice[],
  openLink: LinkOpener,
  maxBackoffMs = 300_000,
  logger: Logger = silentLogger(),
) {
  const poller = startLinePoller(lineGateway("GW-PARTS", devices), openLink, { maxBackoffMs, logger });
  stops.push(() => poller.stop());
  return poller;
}

describe("the poller's parts together", () => {
  test("writes interleave with polls on one line: one request at a time, a write next after the poll in flight, never split", async () => {
    const bus = scriptedBus(5);
    const poller = start([device("one", 1), device("two", 2), device("three", 3)], bus.openLink);
    await Bun.sleep(100);
    let queuedDuringPoll = 0;
    for (let value = 1; value <= 10; value++) {
      const queuedAt = performance.now();
      const inFlightThen = bus.sent.findLast((entry) => entry.at <= queuedAt);
      const outcome = await poller.writeRegister("two-b", value);
      expect(outcome.result).toBe("written");
      expect(outcome.readBack).toBe(value);
      // The write's three requests come next on the wire, back to back, right after the request in flight.
      const first = bus.sent.findIndex((entry) => entry.at >= queuedAt);
      const next = bus.sent.slice(first, first + 3).map((entry) => `${entry.kind} ${entry.unit}:${entry.start}`);
      expect(next).toEqual(["read 2:200", "write 2:200", "read 2:200"]);
      if (inFlightThen !== undefined && inFlightThen.ended > queuedAt) {
        queuedDuringPoll++;
        expect(bus.sent[first - 1]).toBe(inFlightThen);
      }
      await Bun.sleep(7 * value);
    }
    expect(bus.mostInFlight()).toBe(1);
    // Polls run back to back (5 ms each, due every 20 ms on three devices): most writes arrive during one.
    expect(queuedDuringPoll).toBeGreaterThan(3);
    // Polls went on around the writes.
    expect(bus.sent.filter((entry) => entry.kind === "read" && entry.unit === 3).length).toBeGreaterThan(10);
  });

  test("a quarantined device is sent nothing between its probes, and its neighbour is polled meanwhile", async () => {
    const bus = scriptedBus(2, [9]);
    start([device("alive", 1), device("dead", 9)], bus.openLink, 160);
    await Bun.sleep(1_500);
    const dead = bus.sent.filter((entry) => entry.unit === 9);
    // Three full cycles (two requests each, no retries), then one-request probes.
    const probes = dead.slice(6);
    expect(dead.slice(0, 6).every((entry) => entry.kind === "read")).toBe(true);
    expect(probes.length).toBeGreaterThan(3);
    expect(probes.every((entry) => entry.start === 0)).toBe(true);
    // Each probe waits its backoff after the failed one before it: 40, 80, 160, 160 ... ms (poll interval 20, doubled).
    const failed = dead.slice(5);
    for (let index = 1; index < failed.length; index++) {
      const backoff = Math.min(40 * 2 ** (index - 1), 160);
      expect(failed[index]!.at - failed[index - 1]!.ended).toBeGreaterThanOrEqual(backoff - 5);
    }
    // 1.5 s of 20 ms cycles with two requests each: the live device had ~70 cycles; the dead one costs a few probes.
    expect(bus.sent.filter((entry) => entry.unit === 1).length).toBeGreaterThan(60);
    expect(dead.length).toBeLessThan(6 + 12);
  });

  test("a silent device with three poll groups is quarantined once: one probe per backoff, one log line; back, every group is polled", async () => {
    const dead = [9];
    const bus = scriptedBus(2, dead);
    const lines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
    const registers = [20, 40, 80].map((pollIntervalMs, group) =>
      holdingRegister(`group-${group}`, group * 100, { pollIntervalMs }),
    );
    start([device("alive", 1), pollingDevice("meter", 9, { registers })], bus.openLink, 160, logger);
    const toMeter = () => bus.sent.filter((entry) => entry.unit === 9);
    const logged = (message: string) => lines.filter((line) => JSON.parse(line).msg === message).length;
    const until = async (condition: () => boolean) => {
      while (!condition()) await Bun.sleep(10);
    };
    // Three failed cycles (one per group, due at once) quarantine the device; then four probes.
    await until(() => toMeter().length >= 3 + 4);
    expect(
      toMeter()
        .slice(3)
        .every((entry) => entry.start === 0),
    ).toBe(true);
    expect(logged("device quarantined: probed with growing backoff")).toBe(1);
    expect(logged("device does not answer")).toBe(1);

    dead.length = 0;
    const revivedAt = performance.now();
    const polledSince = (start: number) => toMeter().some((entry) => entry.at > revivedAt && entry.start === start);
    await until(() => polledSince(100) && polledSince(200));
    expect(logged("device answers again; back in the poll cycle")).toBe(1);
    expect(logged("device quarantined: probed with growing backoff")).toBe(1);
  });

  test("a device whose fast group gets no answer while its slow one does is probed by the slow one", async () => {
    const reads: number[] = [];
    const link: ModbusLink = {
      isOpen: true,
      close: async () => {},
      read: async (_fc, _unit, start, count): Promise<ReadOutcome> => {
        reads.push(start);
        await Bun.sleep(start === 0 ? 30 : 2);
        if (start === 0) return { ok: false, kind: "timeout" };
        return { ok: true, words: Array.from({ length: count }, () => 0), bits: null };
      },
    };
    const registers = [
      holdingRegister("fast", 0, { pollIntervalMs: 20 }),
      holdingRegister("slow", 100, { pollIntervalMs: 100 }),
    ];
    start([pollingDevice("meter", 9, { registers })], async () => link, 160);
    // Quarantined after the fast group's silent cycles; the slow group keeps answering its probes.
    const slowReads = () => reads.filter((address) => address === 100).length;
    const deadline = performance.now() + 3_000;
    while (slowReads() < 5 && performance.now() < deadline) await Bun.sleep(10);
    expect(slowReads()).toBeGreaterThanOrEqual(5);
  });
});
