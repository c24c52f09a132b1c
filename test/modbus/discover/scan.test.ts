/**
 * The scan's rules over a scripted link (src/modbus/discover/scan.ts): what counts as an
 * answer, a broken answer asked again once, a dropped TCP link opened again, and one
 * request at a time.
 */
import { describe, expect, test } from "bun:test";
import type { PduAnswer, PduTransport } from "../../../src/modbus/discover/pdu-transport.ts";
import { LinkLostError, scanUnits } from "../../../src/modbus/discover/scan.ts";

type Script = (unitId: number, pdu: number[]) => PduAnswer;

/** A link that answers each request by `script`, recording [unit, function code] of each. */
function scriptedLink(script: Script) {
  const requests: [number, number][] = [];
  let open = true;
  const link: PduTransport = {
    description: "scripted",
    get isOpen() {
      return open;
    },
    async request(unitId, pdu) {
      requests.push([unitId, pdu[0]!]);
      return script(unitId, [...pdu]);
    },
    async close() {
      open = false;
    },
  };
  return { link, requests };
}

const register = (value: number): PduAnswer => ({ ok: true, pdu: Uint8Array.of(3, 2, value >> 8, value & 0xff) });
const exception = (code: number): PduAnswer => ({ ok: false, kind: "exception", code });
const silence: PduAnswer = { ok: false, kind: "timeout" };

describe("what counts as a unit that answers", () => {
  test("a value and a device's exception count; silence and the gateway exceptions 0x0A and 0x0B do not", async () => {
    const answers: Record<number, PduAnswer> = {
      1: register(7),
      2: exception(2),
      3: exception(0x0a),
      4: exception(0x0b),
      5: silence,
      6: exception(4),
    };
    const { link } = scriptedLink((unit, pdu) => (pdu[0] === 3 ? answers[unit]! : exception(1)));
    const progress: [number, number][] = [];
    const result = await scanUnits(link, {
      units: [1, 2, 3, 4, 5, 6],
      timeoutMs: 100,
      onProgress: (tried, found) => progress.push([tried, found]),
    });
    expect(result.found.map((unit) => [unit.unitId, unit.answer])).toEqual([
      [1, { value: 7 }],
      [2, { exception: 2, name: "illegal data address" }],
      [6, { exception: 4, name: "server device failure" }],
    ]);
    expect(result.found[0]!.identificationMissing).toBe("exception 1 (illegal function)");
    expect(progress).toEqual([
      [1, 1],
      [2, 2],
      [3, 2],
      [4, 2],
      [5, 2],
      [6, 3],
    ]);
  });

  test("a broken answer is asked again once: good the second time it is found, broken twice it is garbled, not found", async () => {
    const tries = new Map<number, number>();
    const { link, requests } = scriptedLink((unit, pdu) => {
      if (pdu[0] !== 3) return exception(1);
      const count = (tries.get(unit) ?? 0) + 1;
      tries.set(unit, count);
      if (unit === 1) return count === 1 ? { ok: false, kind: "bad_frame" } : register(1);
      return { ok: false, kind: "bad_frame" };
    });
    const result = await scanUnits(link, { units: [1, 2], timeoutMs: 100 });
    expect(result.found.map((unit) => unit.unitId)).toEqual([1]);
    expect(result.garbled).toEqual([2]);
    expect(requests.filter(([unit, code]) => unit === 2 && code === 3)).toHaveLength(2);
  });
});

describe("a link that drops", () => {
  test("is opened again once and the request repeated; the scan goes on", async () => {
    let dropped = false;
    const first = scriptedLink((unit) => {
      if (unit === 2 && !dropped) {
        dropped = true;
        return { ok: false, kind: "disconnected", message: "the connection was closed" };
      }
      return silence;
    });
    const second = scriptedLink((unit, pdu) => (unit === 2 && pdu[0] === 3 ? register(9) : silence));
    let reopened = 0;
    const result = await scanUnits(first.link, {
      units: [1, 2, 3],
      timeoutMs: 100,
      reopen: async () => {
        reopened++;
        return second.link;
      },
    });
    expect(reopened).toBe(1);
    expect(result.found.map((unit) => unit.unitId)).toEqual([2]);
  });

  test("without a way to open it again, or when that fails, the scan ends with LinkLostError", async () => {
    const gone = scriptedLink(() => ({ ok: false, kind: "disconnected", message: "device disappeared" }));
    await expect(scanUnits(gone.link, { units: [1], timeoutMs: 100 })).rejects.toThrow(LinkLostError);
    const refused = scanUnits(gone.link, {
      units: [1],
      timeoutMs: 100,
      reopen: () => Promise.reject(new Error("connection refused")),
    });
    await expect(refused).rejects.toThrow("device disappeared; connection refused");
  });
});

describe("more than one probe (--probe)", () => {
  test("the next probe is asked only of a unit silent to the ones before; a gateway's 0x0B counts as silence, a broken answer does not go on", async () => {
    const probes = [
      { functionCode: 3, address: 0 },
      { functionCode: 3, address: 40000 },
    ] as const;
    const { link, requests } = scriptedLink((unit, pdu) => {
      if (pdu[0] !== 3) return exception(1);
      const address = (pdu[1]! << 8) | pdu[2]!;
      if (unit === 1) return register(1); // answers the first probe
      if (unit === 2) return address === 40000 ? register(0x5375) : silence; // silent for an address it lacks
      if (unit === 3) return address === 40000 ? exception(2) : exception(0x0b); // behind a gateway that timed out
      if (unit === 4) return { ok: false, kind: "bad_frame" };
      return silence;
    });
    const result = await scanUnits(link, { units: [1, 2, 3, 4, 5], timeoutMs: 100, probes: [...probes] });
    expect(result.found.map((unit) => [unit.unitId, unit.probe, unit.answer])).toEqual([
      [1, probes[0], { value: 1 }],
      [2, probes[1], { value: 0x5375 }],
      [3, probes[1], { exception: 2, name: "illegal data address" }],
    ]);
    expect(result.garbled).toEqual([4]);
    const probesOf = (unit: number) => requests.filter(([id, code]) => id === unit && code === 3).length;
    // Unit 1 is not asked the second probe; a silent unit is asked each probe once; the garbled unit twice, the first only.
    expect([1, 4, 5].map(probesOf)).toEqual([1, 2, 2]);
  });

  test("the device identification as a probe: a unit that answers only 43/14 is found", async () => {
    const { link } = scriptedLink((_unit, pdu) =>
      pdu[0] === 0x2b ? { ok: true, pdu: Uint8Array.of(0x2b, 0x0e, 1, 1, 0, 0, 0) } : silence,
    );
    const result = await scanUnits(link, {
      units: [7],
      timeoutMs: 100,
      probes: [{ functionCode: 3, address: 0 }, { functionCode: 0x2b }],
    });
    expect(result.found.map((unit) => [unit.unitId, unit.answer])).toEqual([[7, { identified: true }]]);
  });
});
