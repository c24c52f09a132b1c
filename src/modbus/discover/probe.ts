/**
 * The requests a scan asks each unit id to learn whether a device is there
 * (docs/discover.md, "How a unit is found"). By default one: a read of holding register
 * 0. A device that stays silent for an address it lacks, instead of answering exception 2,
 * is found only by a request it answers: another register (`hr:40000`, `ir:0`) or its
 * device identification (`id`). Each probe after the first is asked only of a unit that
 * did not answer the ones before, so each costs a silent unit one more timeout.
 */
import { encodeDeviceIdRequest, exceptionName, READ_DEVICE_ID } from "./device-identification.ts";
import type { PduAnswer } from "./pdu-transport.ts";

export type Probe =
  /** A read of one register: function 3 (holding) or 4 (input). */
  | { functionCode: 3 | 4; address: number }
  /** Read Device Identification (43/14), the basic objects from object 0. */
  | { functionCode: typeof READ_DEVICE_ID };

/** What a unit answered to the probe that found it. */
export type ProbeAnswer =
  | { value: number }
  | { exception: number; name: string | null }
  /** It answered its device identification. */
  | { identified: true };

/** Exceptions a gateway gives for a unit that is not behind it (Modbus Application Protocol, section 7). */
const GATEWAY_PATH_UNAVAILABLE = 0x0a;
const GATEWAY_TARGET_NO_RESPONSE = 0x0b;

export const defaultProbe: Probe = { functionCode: 3, address: 0 };

/** `hr:0`, `ir:30001`, `id`: how the command line names a probe. */
export function probeName(probe: Probe): string {
  if (probe.functionCode === READ_DEVICE_ID) return "id";
  return `${probe.functionCode === 3 ? "hr" : "ir"}:${probe.address}`;
}

/** A probe from its name, or null when the text names none. */
export function probeNamed(name: string): Probe | null {
  if (name === "id") return { functionCode: READ_DEVICE_ID };
  const match = /^(hr|ir):(\d{1,5})$/u.exec(name);
  if (match === null || Number(match[2]) > 0xffff) return null;
  return { functionCode: match[1] === "hr" ? 3 : 4, address: Number(match[2]) };
}

/** `holding register 0`, `device identification (43/14)`: what a report calls it. */
export function describeProbe(probe: Probe): string {
  if (probe.functionCode === READ_DEVICE_ID) return "device identification (43/14)";
  return `${probe.functionCode === 3 ? "holding" : "input"} register ${probe.address}`;
}

export function isDefaultProbe(probe: Probe): boolean {
  return probe.functionCode === 3 && probe.address === 0;
}

export function probeRequest(probe: Probe): Uint8Array {
  if (probe.functionCode === READ_DEVICE_ID) return encodeDeviceIdRequest(0);
  const { functionCode, address } = probe;
  return Uint8Array.of(functionCode, address >> 8, address & 0xff, 0, 1);
}

/**
 * Whether the unit answered: its answer, "garbled" for an answer that came back broken,
 * or null for silence. Any answer counts, a Modbus exception included (most devices
 * answer exception 2 for an address they lack), except the gateway exceptions 0x0A and
 * 0x0B: a Modbus TCP gateway answers them for a unit id behind it where nothing answers.
 */
export function probeAnswer(answer: PduAnswer, probe: Probe): ProbeAnswer | "garbled" | null {
  if (answer.ok) {
    if (probe.functionCode === READ_DEVICE_ID) return answer.pdu[1] === 0x0e ? { identified: true } : "garbled";
    // A well-formed answer to a one-register read: byte count 2 and the word.
    if (answer.pdu.length !== 4 || answer.pdu[1] !== 2) return "garbled";
    return { value: (answer.pdu[2]! << 8) | answer.pdu[3]! };
  }
  if (answer.kind === "exception") {
    if (answer.code === GATEWAY_PATH_UNAVAILABLE || answer.code === GATEWAY_TARGET_NO_RESPONSE) return null;
    return { exception: answer.code, name: exceptionName(answer.code) };
  }
  if (answer.kind === "bad_frame") return "garbled";
  return null;
}
