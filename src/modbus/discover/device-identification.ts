/**
 * Read Device Identification (function 43, MEI type 14; Modbus Application Protocol
 * V1.1b3, section 6.21): the basic objects a device names itself with, read as a
 * stream (read code 01) and continued while the device says more follows.
 *
 * Request PDU:  0x2B 0x0E readCode objectId
 * Response PDU: 0x2B 0x0E readCode conformity moreFollows nextObjectId count
 *               (objectId length bytes...) x count
 */
import type { PduAnswer } from "./pdu-transport.ts";

export const READ_DEVICE_ID = 0x2b;
const MEI_DEVICE_ID = 0x0e;
/** Read code 01: the basic objects (0 VendorName, 1 ProductCode, 2 MajorMinorRevision) as a stream. */
const BASIC_STREAM = 0x01;
/** A device that keeps saying "more follows" is not followed past this many requests. */
const MAX_REQUESTS = 4;

export interface DeviceIdentification {
  vendor: string | null;
  product: string | null;
  revision: string | null;
}

export interface DeviceIdResponse {
  readCode: number;
  conformity: number;
  moreFollows: boolean;
  nextObjectId: number;
  /** Object id to its text (latin-1, trailing NULs and spaces dropped). */
  objects: Map<number, string>;
}

export function encodeDeviceIdRequest(objectId: number, readCode = BASIC_STREAM): Uint8Array {
  return Uint8Array.of(READ_DEVICE_ID, MEI_DEVICE_ID, readCode, objectId);
}

/** The response PDU's fields; throws with what is wrong when it is not one. */
export function decodeDeviceIdResponse(pdu: Uint8Array): DeviceIdResponse {
  if (pdu.length < 7) throw new Error(`device identification answer of ${pdu.length} bytes is too short`);
  if (pdu[0] !== READ_DEVICE_ID || pdu[1] !== MEI_DEVICE_ID) {
    throw new Error(`not a device identification answer (function ${pdu[0]}, MEI type ${pdu[1]})`);
  }
  const count = pdu[6]!;
  const objects = new Map<number, string>();
  let at = 7;
  for (let index = 0; index < count; index++) {
    if (at + 2 > pdu.length)
      throw new Error(`device identification answer ends before its object ${index + 1} of ${count}`);
    const id = pdu[at]!;
    const length = pdu[at + 1]!;
    if (at + 2 + length > pdu.length) throw new Error(`device identification object ${id} runs past the answer`);
    objects.set(id, textOf(pdu.subarray(at + 2, at + 2 + length)));
    at += 2 + length;
  }
  return { readCode: pdu[2]!, conformity: pdu[3]!, moreFollows: pdu[4] === 0xff, nextObjectId: pdu[5]!, objects };
}

function textOf(bytes: Uint8Array): string {
  return Buffer.from(bytes)
    .toString("latin1")
    .replace(/[\0\s]+$/u, "")
    .trim();
}

export type DeviceIdOutcome =
  | { ok: true; identification: DeviceIdentification }
  /** Why there is none: an exception (1: the device does not know function 43), a malformed answer, no answer. */
  | { ok: false; reason: string };

/** Reads the basic identification objects of one unit, following "more follows" a bounded number of times. */
export async function readDeviceIdentification(
  request: (pdu: Uint8Array) => Promise<PduAnswer>,
): Promise<DeviceIdOutcome> {
  const objects = new Map<number, string>();
  let objectId = 0;
  for (let round = 0; round < MAX_REQUESTS; round++) {
    const answer = await request(encodeDeviceIdRequest(objectId));
    if (!answer.ok) {
      if (answer.kind === "exception") return { ok: false, reason: describeException(answer.code) };
      return { ok: false, reason: answer.kind === "disconnected" ? answer.message : answer.kind.replace("_", " ") };
    }
    let response: DeviceIdResponse;
    try {
      response = decodeDeviceIdResponse(answer.pdu);
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
    for (const [id, text] of response.objects) objects.set(id, text);
    // Continue only where the device points past what it sent; anything else would loop.
    if (!response.moreFollows || response.objects.size === 0 || response.nextObjectId <= objectId) break;
    objectId = response.nextObjectId;
  }
  const text = (id: number) => {
    const value = objects.get(id);
    return value === undefined || value === "" ? null : value;
  };
  return { ok: true, identification: { vendor: text(0), product: text(1), revision: text(2) } };
}

/** Modbus exception codes a scan meets, in words (Modbus Application Protocol, section 7). */
const exceptionNames: Record<number, string> = {
  1: "illegal function",
  2: "illegal data address",
  3: "illegal data value",
  4: "server device failure",
  6: "server device busy",
  10: "gateway path unavailable",
  11: "gateway target device failed to respond",
};

export function exceptionName(code: number): string | null {
  return exceptionNames[code] ?? null;
}

/** `exception 2 (illegal data address)`. */
export function describeException(code: number): string {
  const name = exceptionName(code);
  return name === null ? `exception ${code}` : `exception ${code} (${name})`;
}
