/**
 * The register write protocol's outcomes, decided on a scripted link (no sockets):
 * acknowledged and read back, refused (exception), no answer (outcome unknown, the
 * write never sent twice) and what the later read-back settles, a mismatch, a read
 * before that fails, and the read-modify-write of a bit.
 */
import { describe, expect, test } from "bun:test";
import type { ModbusLink, ReadOutcome, WriteOutcome, WritePayload } from "../../../src/modbus/link.ts";
import type { PollingDevice } from "../../../src/modbus/polling-config.ts";
import {
  rawToWrite,
  readRegister,
  settledByReadBack,
  type WriteTarget,
  writeAndReadBack,
} from "../../../src/modbus/write-protocol.ts";
import type { WritableRegister } from "../../../src/modbus/write-value.ts";

const device: PollingDevice = {
  id: "dev",
  name: "boiler",
  slaveId: 3,
  host: null,
  port: null,
  pollIntervalMs: 1000,
  timeoutMs: 500,
  retries: 2,
  maxRegistersPerRequest: 125,
  maxGap: 8,
  pauseMs: 0,
  storageIntervalMs: 60_000,
  registers: [],
};
const setpoint: WritableRegister = {
  id: "setpoint",
  address: 40,
  functionCode: 3,
  dataType: "int16",
  byteOrder: "ABCD",
  bit: null,
  length: null,
  write: { functionCode: 6, min: 0, max: 100, scaleFactor: 0.5 },
};
const target: WriteTarget = { device, register: setpoint };

/** A link that answers reads and writes from scripts, and records every request. */
function scriptedLink(reads: ReadOutcome[], writes: WriteOutcome[]) {
  const sent: string[] = [];
  const payloads: WritePayload[] = [];
  const link: ModbusLink = {
    isOpen: true,
    close: async () => {},
    read: async (functionCode, unitId, start, count) => {
      sent.push(`read ${functionCode}:${start}x${count} unit ${unitId}`);
      return reads.shift() ?? { ok: false, kind: "timeout" };
    },
    write: async (functionCode, unitId, start, payload) => {
      sent.push(`write ${functionCode}:${start} unit ${unitId}`);
      payloads.push(payload);
      return writes.shift() ?? { ok: false, kind: "timeout" };
    },
  };
  return { link, sent, payloads };
}
const words = (...values: number[]): ReadOutcome => ({ ok: true, words: values, bits: null });
const noPause = async () => {};
const asked = { value: 21.5, raw: 43 };

describe("write protocol", () => {
  test("acknowledged and read back equal: written, with the value before and after", async () => {
    const { link, sent, payloads } = scriptedLink([words(40), words(43)], [{ ok: true }]);
    const outcome = await writeAndReadBack(link, target, asked, noPause);
    expect(outcome).toEqual({ result: "written", valueBefore: 20, readBack: 21.5, readBackRaw: 43, detail: null });
    expect(sent).toEqual(["read 3:40x1 unit 3", "write 6:40 unit 3", "read 3:40x1 unit 3"]);
    expect(payloads).toEqual([{ words: [43], bits: null }]);
  });

  test("a Modbus exception to the write: refused, nothing read back", async () => {
    const { link, sent } = scriptedLink([words(40)], [{ ok: false, kind: "exception", code: 3 }]);
    const outcome = await writeAndReadBack(link, target, asked, noPause);
    expect(outcome.result).toBe("refused");
    expect(outcome.detail).toBe("the device refused the write: Modbus exception 3");
    expect(outcome.valueBefore).toBe(20);
    expect(sent).toHaveLength(2);
  });

  test("no answer to the write: timeout, outcome unknown, the write sent once only (retries are for reads)", async () => {
    const { link, sent } = scriptedLink([words(40)], [{ ok: false, kind: "timeout" }]);
    const outcome = await writeAndReadBack(link, target, asked, noPause);
    expect(outcome).toMatchObject({ result: "timeout", valueBefore: 20, readBack: null, readBackRaw: null });
    expect(outcome.detail).toContain("the outcome is unknown and the write was not retried");
    expect(sent.filter((request) => request.startsWith("write"))).toHaveLength(1);
    expect(sent).toHaveLength(2);
  });

  test("after an unknown outcome, the later read-back settles it: the value the device holds, or no answer", async () => {
    const unknown = await writeAndReadBack(scriptedLink([words(40)], []).link, target, asked, noPause);
    const took = await readRegister(scriptedLink([words(43)], []).link, target);
    expect(took).toEqual({ ok: true, raw: 43, words: [43] });
    expect(settledByReadBack(unknown.detail, 21.5)).toBe(`${unknown.detail}; read back afterwards: 21.5`);
    // The read-back has the device's retries: three timeouts before it gives up.
    const silent = scriptedLink([], []);
    expect(await readRegister(silent.link, target)).toEqual({ ok: false, kind: "timeout" });
    expect(silent.sent).toHaveLength(3);
    expect(settledByReadBack(unknown.detail, null)).toEndWith("; read back afterwards: no answer");
  });

  test("acknowledged but reading back another value: mismatch, with what it reads", async () => {
    const { link } = scriptedLink([words(40), words(41)], [{ ok: true }]);
    const outcome = await writeAndReadBack(link, target, asked, noPause);
    expect(outcome).toEqual({
      result: "mismatch",
      valueBefore: 20,
      readBack: 20.5,
      readBackRaw: 41,
      detail: "the device reads back 20.5 after writing 21.5",
    });
  });

  test("acknowledged but no answer to the read-back: mismatch without a value", async () => {
    const { link } = scriptedLink([words(40)], [{ ok: true }]);
    const outcome = await writeAndReadBack(link, target, asked, noPause);
    expect(outcome).toMatchObject({ result: "mismatch", readBack: null, readBackRaw: null });
  });

  test("the read before fails: nothing is written (not_sent on silence, refused on an exception)", async () => {
    const silent = scriptedLink([], [{ ok: true }]);
    expect((await writeAndReadBack(silent.link, target, asked, noPause)).result).toBe("not_sent");
    expect(silent.sent.every((request) => request.startsWith("read"))).toBe(true);
    const refusing = scriptedLink([{ ok: false, kind: "exception", code: 2 }], [{ ok: true }]);
    const outcome = await writeAndReadBack(refusing.link, target, asked, noPause);
    expect(outcome.result).toBe("refused");
    expect(refusing.sent).toEqual(["read 3:40x1 unit 3"]);
  });

  test("pause_ms between the read, the write and the read-back", async () => {
    const pauses: number[] = [];
    const { link } = scriptedLink([words(40), words(43)], [{ ok: true }]);
    await writeAndReadBack(
      { ...link },
      { device: { ...device, pauseMs: 30 }, register: setpoint },
      asked,
      async (ms) => {
        pauses.push(ms);
      },
    );
    expect(pauses).toEqual([30, 30]);
  });

  test("a bit of a holding register is written into the word read just before", async () => {
    const bit: WritableRegister = {
      ...setpoint,
      dataType: "bool",
      bit: 4,
      write: { functionCode: 6, min: 0, max: 1, scaleFactor: null },
    };
    const { link, payloads } = scriptedLink([words(0b1000_0001), words(0b1001_0001)], [{ ok: true }]);
    const outcome = await writeAndReadBack(link, { device, register: bit }, { value: 1, raw: 1 }, noPause);
    expect(payloads).toEqual([{ words: [0b1001_0001], bits: null }]);
    expect(outcome.result).toBe("written");
  });

  test("a value out of bounds or off the scale is invalid before anything is sent", () => {
    expect(rawToWrite(setpoint, 21.5)).toEqual({ raw: 43 });
    expect(rawToWrite(setpoint, 101)).toMatchObject({
      result: "invalid",
      detail: "value must be between 0 and 100; got 101",
    });
    expect(rawToWrite(setpoint, 21.2)).toMatchObject({ result: "invalid" });
  });
});
