/**
 * Function 43/14 frames (Modbus Application Protocol V1.1b3, section 6.21) built and
 * read by fieldhub's own codec, and the stream read's continuation: followed while the
 * device points past what it sent, never in a loop.
 */
import { describe, expect, test } from "bun:test";
import {
  decodeDeviceIdResponse,
  encodeDeviceIdRequest,
  readDeviceIdentification,
} from "../../../src/modbus/discover/device-identification.ts";
import type { PduAnswer } from "../../../src/modbus/discover/pdu-transport.ts";

/** A response PDU as the specification lays it out. */
function response(objects: [number, string][], more = false, nextObjectId = 0): Uint8Array {
  const body = objects.flatMap(([id, text]) => [id, text.length, ...Buffer.from(text, "latin1")]);
  return Uint8Array.from([0x2b, 0x0e, 0x01, 0x81, more ? 0xff : 0x00, nextObjectId, objects.length, ...body]);
}

describe("43/14 frames", () => {
  test("the request is 2B 0E, the read code and the first object id", () => {
    expect([...encodeDeviceIdRequest(0)]).toEqual([0x2b, 0x0e, 0x01, 0x00]);
    expect([...encodeDeviceIdRequest(3, 0x04)]).toEqual([0x2b, 0x0e, 0x04, 0x03]);
  });

  test("the specification's example answer (section 6.21) reads as its three objects", () => {
    // 2B 0E 01 01 00 00 03, then "Company identification", "Product code XX", "V2.11"
    const decoded = decodeDeviceIdResponse(
      response([
        [0, "Company identification"],
        [1, "Product code XX"],
        [2, "V2.11"],
      ]),
    );
    expect(decoded.moreFollows).toBe(false);
    expect(Object.fromEntries(decoded.objects)).toEqual({
      0: "Company identification",
      1: "Product code XX",
      2: "V2.11",
    });
  });

  test("trailing NULs and spaces are not part of a name; latin-1 bytes are kept", () => {
    const decoded = decodeDeviceIdResponse(response([[0, "Société\0\0  "]]));
    expect(decoded.objects.get(0)).toBe("Société");
  });

  test("a short answer, another MEI type and an object running past the end are refused with what is wrong", () => {
    expect(() => decodeDeviceIdResponse(Uint8Array.of(0x2b, 0x0e, 1, 1, 0))).toThrow("too short");
    expect(() => decodeDeviceIdResponse(Uint8Array.of(0x2b, 0x0d, 1, 1, 0, 0, 0))).toThrow("MEI type 13");
    const cut = response([[0, "Vendor"]]).slice(0, 12);
    expect(() => decodeDeviceIdResponse(cut)).toThrow("runs past the answer");
    const missing = Uint8Array.of(0x2b, 0x0e, 1, 1, 0, 0, 2, 0, 1, 65);
    expect(() => decodeDeviceIdResponse(missing)).toThrow("ends before its object 2 of 2");
  });
});

describe("reading a device's identification", () => {
  /** A device that answers each request with the next PDU of `answers`, recording the requests. */
  function device(answers: PduAnswer[]) {
    const requests: number[][] = [];
    const request = async (pdu: Uint8Array): Promise<PduAnswer> => {
      requests.push([...pdu]);
      return answers.shift() ?? { ok: false, kind: "timeout" };
    };
    return { requests, request };
  }

  test("an answer in two parts is followed from the object id the device names", async () => {
    const { requests, request } = device([
      { ok: true, pdu: response([[0, "Fronius"]], true, 1) },
      {
        ok: true,
        pdu: response([
          [1, "Symo 10.0-3-M"],
          [2, "3.14.1"],
        ]),
      },
    ]);
    expect(await readDeviceIdentification(request)).toEqual({
      ok: true,
      identification: { vendor: "Fronius", product: "Symo 10.0-3-M", revision: "3.14.1" },
    });
    expect(requests).toEqual([
      [0x2b, 0x0e, 1, 0],
      [0x2b, 0x0e, 1, 1],
    ]);
  });

  test("a device that says more follows without moving on is asked once, not in a loop", async () => {
    const again = { ok: true as const, pdu: response([[0, "Loop"]], true, 0) };
    const { requests, request } = device([again, again, again, again, again]);
    const outcome = await readDeviceIdentification(request);
    expect(outcome).toEqual({ ok: true, identification: { vendor: "Loop", product: null, revision: null } });
    expect(requests).toHaveLength(1);
  });

  test("a device that keeps pointing further is asked at most four times", async () => {
    const answers: PduAnswer[] = Array.from({ length: 10 }, (_, i) => ({
      ok: true,
      pdu: response([[i, `object ${i}`]], true, i + 1),
    }));
    const { requests, request } = device(answers);
    const outcome = await readDeviceIdentification(request);
    expect(requests).toHaveLength(4);
    expect(outcome).toEqual({
      ok: true,
      identification: { vendor: "object 0", product: "object 1", revision: "object 2" },
    });
  });

  test("an exception, silence and a malformed answer say why there is no identification", async () => {
    expect(await readDeviceIdentification(device([{ ok: false, kind: "exception", code: 1 }]).request)).toEqual({
      ok: false,
      reason: "exception 1 (illegal function)",
    });
    expect(await readDeviceIdentification(device([]).request)).toEqual({ ok: false, reason: "timeout" });
    expect(await readDeviceIdentification(device([{ ok: true, pdu: Uint8Array.of(0x2b, 0x0e, 1) }]).request)).toEqual({
      ok: false,
      reason: "device identification answer of 3 bytes is too short",
    });
  });
});
