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
    expect(result.found.map((unit) => [unit.unitId, unit.probe])).toEqual([
      [1, { register0: 7 }],
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
