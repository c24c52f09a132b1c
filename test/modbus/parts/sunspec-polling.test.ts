/**
 * A SunSpec device on a scripted line (docs/sunspec.md, "Polling"): the poller reads
 * the model chain before polling its points, keeps trying each cycle while the device
 * is silent (its health says why), places each point at its model's address once the
 * chain is read, polls nothing of a model the device lacks, and reads the chain once.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { systemClock } from "../../../src/lib/clock.ts";
import { silentLogger } from "../../../src/lib/logger.ts";
import type { PolledValue } from "../../../src/lib/polled-value.ts";
import { scaleValue } from "../../../src/lib/register-scaling.ts";
import { createDeviceHealthBoard } from "../../../src/modbus/device-health.ts";
import type { LinkOpener, ModbusLink, ReadOutcome } from "../../../src/modbus/link.ts";
import { startGatewayPoller } from "../../../src/modbus/poller.ts";
import type { PolledRegister, PollingGateway } from "../../../src/modbus/polling-config.ts";
import { sunSpecRegisters } from "../../../src/modbus/sunspec/points.ts";
import { sunSpecBase, sunSpecWords } from "../../harness/sunspec-device.ts";
import { pollingDevice } from "./polling-fixtures.ts";

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** The SunSpec map of test/harness/sunspec-device.ts on a line that times out until `answering` is set. */
function sunSpecLine() {
  const words = sunSpecWords();
  const state = { answering: false, reads: [] as { start: number; count: number }[] };
  const link: ModbusLink = {
    isOpen: true,
    close: async () => {},
    read: async (_fc, _unit, start, count): Promise<ReadOutcome> => {
      state.reads.push({ start, count });
      if (!state.answering) return { ok: false, kind: "timeout" };
      const from = start - sunSpecBase;
      if (from < 0 || from + count > words.length) return { ok: false, kind: "exception", code: 2 };
      return { ok: true, words: words.slice(from, from + count), bits: null };
    },
  };
  const openLink: LinkOpener = async () => link;
  return { state, openLink };
}

/** The config's registers for models 1, 103 and 160 (and 124, which the device lacks), as normalise.ts makes them. */
function sunSpecPolledRegisters(): PolledRegister[] {
  const made = sunSpecRegisters({ models: [1, 103, 160, 124], repeats: 3 });
  return made.map((register) => ({
    id: register.name,
    name: register.name,
    functionCode: 3,
    address: register.place.offset,
    dataType: register.dataType,
    byteOrder: "ABCD",
    bit: null,
    length: register.length ?? null,
    sunspec: register.place,
    ...(register.notImplemented === undefined ? {} : { notImplemented: register.notImplemented }),
    ...(register.scaleFactorRegister === undefined ? {} : { scaleFactorRegisterId: register.scaleFactorRegister }),
  }));
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await Bun.sleep(5);
  }
}

describe("a SunSpec device's model chain", () => {
  test("read once the device answers; points placed at their models' addresses, absent models not polled", async () => {
    const line = sunSpecLine();
    const health = createDeviceHealthBoard();
    const values: PolledValue[] = [];
    const gateway: PollingGateway = {
      id: "gw",
      serial: "GW-SUNSPEC",
      bus: { type: "rtu_over_tcp", host: "127.0.0.1", port: 4001 },
      heartbeatMs: 60_000,
      devices: [pollingDevice("inverter", 1, { registers: sunSpecPolledRegisters() })],
    };
    const sink = {
      readings: (_: string, polled: PolledValue[]) => values.push(...polled),
      answered: () => {},
      unreachable: () => {},
    };
    const poller = startGatewayPoller({
      gateway,
      sink,
      clock: systemClock,
      logger: silentLogger(),
      openLink: line.openLink,
      health,
    });
    stops.push(() => poller.stop());

    // Silent: the chain is tried again each cycle, and the health says why.
    await until(() => line.state.reads.length >= 3);
    expect(values).toEqual([]);
    expect(health.reader.device("inverter").lastError).toBe(
      "SunSpec model chain not read: timeout after 30 ms at 3:40000",
    );
    // A silent device costs one request a cycle: the other bases are not tried.
    expect(line.state.reads.every((read) => read.start === sunSpecBase && read.count === 2)).toBe(true);

    line.state.answering = true;
    // The first answer is a quarantined device's probe (its first request only); then full cycles.
    await until(() => values.some((value) => value.registerId === "160.module.2.DCA"));
    const latest = (id: string) => values.filter((value) => value.registerId === id).at(-1);
    const w = latest("103.W");
    expect(scaleValue(w?.raw ?? null, w?.scaleFactor ?? null)).toBe(1234.5);
    expect(latest("103.VAr")?.raw).toBeNull();
    expect(latest("1.SN")?.text).toBe("SN-0042");
    const dca = latest("160.module.2.DCA");
    expect(scaleValue(dca?.raw ?? null, dca?.scaleFactor ?? null)).toBe(4.98);
    // The device has two modules and no model 124.
    expect(values.some((value) => value.registerId.startsWith("160.module.3."))).toBe(false);
    expect(values.some((value) => value.registerId.startsWith("124."))).toBe(false);

    // The chain is walked once: after it, only the points' requests (none of them at the id/length pairs alone).
    const readsSoFar = line.state.reads.length;
    await until(() => line.state.reads.length >= readsSoFar + 6);
    const chainHeaders = line.state.reads.slice(readsSoFar).filter((read) => read.count === 2);
    expect(chainHeaders).toEqual([]);
  });
});
