/**
 * Poll groups without sockets (docs/polling.md, "Poll groups"): the planner divides a
 * device's registers by poll interval and plans each group in its fewest requests,
 * never mixing intervals in a request; the poll loop gives each group its own due time,
 * so on one shared line every group of every device keeps its own rate.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { LinkOpener, ModbusLink, ReadOutcome } from "../../../src/modbus/link.ts";
import { planReadRequests, pollGroups } from "../../../src/modbus/plan.ts";
import type { PolledRegister } from "../../../src/modbus/polling-config.ts";
import { configOf } from "../../config/helpers.ts";
import { holdingRegister, lineGateway, pollingDevice, startLinePoller } from "./polling-fixtures.ts";

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const register = (id: string, address: number, pollIntervalMs?: number): PolledRegister =>
  holdingRegister(id, address, pollIntervalMs === undefined ? {} : { pollIntervalMs });

const planOptions = { maxRegisters: 125, maxBits: 2000, maxGap: 8 };

describe("the planner's poll groups", () => {
  test("registers are grouped by their own interval, the device's when they have none; fastest first, order kept", () => {
    const registers = [
      register("nameplate", 300, 86_400_000),
      register("power", 0, 1000),
      register("energy", 2),
      register("voltage", 1, 1000),
      register("same-as-device", 3, 60_000),
    ];
    const groups = pollGroups(registers, 60_000);
    expect(groups.map((group) => [group.intervalMs, group.registers.map((r) => r.id)])).toEqual([
      [1000, ["power", "voltage"]],
      [60_000, ["energy", "same-as-device"]],
      [86_400_000, ["nameplate"]],
    ]);
  });

  test("a device whose registers set no interval is one group: the plan of today", () => {
    const registers = [register("a", 0), register("b", 1), register("c", 40)];
    const groups = pollGroups(registers, 5000);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.intervalMs).toBe(5000);
    expect(planReadRequests(groups[0]!.registers, planOptions)).toEqual(planReadRequests(registers, planOptions));
  });

  test("each group is read in its own fewest requests: neighbours of another interval are never read with it", () => {
    // 0..7 contiguous: one request if they were one group; two groups interleaved by address.
    const registers = Array.from({ length: 8 }, (_, address) =>
      register(`r${address}`, address, address % 2 === 0 ? 1000 : 10_000),
    );
    const plans = pollGroups(registers, 60_000).map((group) => planReadRequests(group.registers, planOptions));
    // Each group's registers lie within max_gap of each other: one request per group, the planner's minimum.
    expect(plans.map((plan) => plan.length)).toEqual([1, 1]);
    expect(plans[0]![0]!.registers.map((r) => r.id)).toEqual(["r0", "r2", "r4", "r6"]);
    expect(plans[1]![0]!.registers.map((r) => r.id)).toEqual(["r1", "r3", "r5", "r7"]);
    // A group far apart from itself still gets only the requests it needs.
    const far = pollGroups([register("x", 0, 1000), register("y", 500, 1000), register("z", 1)], 60_000);
    expect(far.map((group) => planReadRequests(group.registers, planOptions).length)).toEqual([2, 1]);
  });
});

type Read = { unit: number; start: number; count: number; at: number };

/** A line of equipment answering every read after `latencyMs`; every request recorded. */
function recordingLine(latencyMs: number) {
  const reads: Read[] = [];
  const link: ModbusLink = {
    isOpen: true,
    close: async () => {},
    read: async (_fc, unit, start, count): Promise<ReadOutcome> => {
      reads.push({ unit, start, count, at: performance.now() });
      await Bun.sleep(latencyMs);
      return { ok: true, words: Array.from({ length: count }, () => 0), bits: null };
    },
  };
  const openLink: LinkOpener = async () => link;
  return { reads, openLink };
}

const device = (id: string, slaveId: number, pollIntervalMs: number, registers: PolledRegister[]) =>
  pollingDevice(id, slaveId, { pollIntervalMs, timeoutMs: 50, registers });

describe("the bus schedule of poll groups", () => {
  test("on one line, each group of each device is polled at its own rate, in requests of its own", async () => {
    const line = recordingLine(2);
    const gateway = lineGateway("GW-GROUPS", [
      // Adjacent addresses: one request each cycle if they shared an interval.
      device("meter", 1, 100, [register("power", 0, 40), register("energy", 1), register("serial", 2, 400)]),
      device("neighbour", 2, 60, [register("temp", 0)]),
    ]);
    const poller = startLinePoller(gateway, line.openLink);
    stops.push(() => poller.stop());
    const windowMs = 2000;
    await Bun.sleep(windowMs);
    await poller.stop();

    const count = (unit: number, start: number) =>
      line.reads.filter((read) => read.unit === unit && read.start === start).length;
    // Due at once, then every interval after its cycle began: at most windowMs / interval + 1. Each cycle
    // may start late by a timer's slack and the turn of another group on the line, so allow 15% less.
    const expected = (intervalMs: number) => Math.floor(windowMs / intervalMs) + 1;
    for (const [unit, start, intervalMs] of [
      [1, 0, 40],
      [1, 1, 100],
      [1, 2, 400],
      [2, 0, 60],
    ] as const) {
      expect(count(unit, start)).toBeLessThanOrEqual(expected(intervalMs));
      expect(count(unit, start)).toBeGreaterThanOrEqual(Math.floor(expected(intervalMs) * 0.85));
    }
    // Every request reads one group only: the adjacent registers of other intervals are never merged into it.
    expect(line.reads.every((read) => read.count === 1)).toBe(true);
    // Never two requests at once on the line, and nothing else was sent.
    expect(line.reads.length).toBe(count(1, 0) + count(1, 1) + count(1, 2) + count(2, 0));
    const fast = line.reads.filter((read) => read.unit === 1 && read.start === 0).map((read) => read.at);
    const gaps = fast.slice(1).map((at, index) => at - fast[index]!);
    // The fast group keeps its rate between the other groups' turns: its typical gap is its interval
    // (a timer's slack and one 2 ms request of another group at most; the median, so a GC pause cannot fail it).
    const median = gaps.sort((a, b) => a - b)[Math.floor(gaps.length / 2)]!;
    expect(median).toBeGreaterThanOrEqual(39);
    expect(median).toBeLessThan(40 + 8);
  });
});

test("a template register's override polls it at the override's interval, apart from the template's other registers", async () => {
  const config = configOf({
    organizations: [{ key: "acme", name: "Acme" }],
    gateways: [
      {
        serial: "GW-OVERRIDE",
        name: "G",
        bus: { type: "tcp" },
        devices: [
          {
            name: "Meter",
            host: "127.0.0.1",
            slave_id: 1,
            template: { brand: "Eastron", model: "SDM630" },
            registers: [{ name: "frequency", poll_interval_ms: 100 }],
          },
        ],
      },
    ],
  });
  const gateway = config.polling[0]!;
  const frequency = gateway.devices[0]!.registers.find((r) => r.name === "frequency")!;
  const line = recordingLine(1);
  const poller = startLinePoller(gateway, line.openLink);
  stops.push(() => poller.stop());
  const isFrequency = (read: Read) => read.start === frequency.address && read.count === 2;
  // The template's 15 s interval would read it once in this window; its own 100 ms reads it again and again.
  while (line.reads.filter(isFrequency).length < 4) await Bun.sleep(20);
  await poller.stop();
  const others = line.reads.filter((read) => !isFrequency(read));
  expect(others.length).toBeGreaterThan(0);
  // The rest of the template is read once (its 15 s interval has not come round), never with frequency.
  expect(new Set(others.map((read) => read.start)).size).toBe(others.length);
});
