/**
 * A scan of unit ids on one link (docs/discover.md): each unit is asked one cheap,
 * read-only question, and each unit that answers is asked who it is (function 43/14)
 * and whether it describes itself through SunSpec models. Nothing is ever written.
 *
 * The probe is a read of one holding register at address 0 (function 3). Any answer
 * counts, a Modbus exception included (most devices answer exception 2 for an address
 * they do not have), except the gateway exceptions 0x0A and 0x0B: a Modbus TCP gateway
 * answers them for a unit id behind it that is not there. One request at a time, so a
 * unit costs at most one timeout: a silent bus of N units takes at most N x timeout.
 */
import {
  type DeviceIdentification,
  describeException,
  exceptionName,
  readDeviceIdentification,
} from "./device-identification.ts";
import type { PduAnswer, PduTransport } from "./pdu-transport.ts";

const READ_HOLDING_REGISTERS = 3;
/** Exceptions a gateway gives for a unit that is not behind it (Modbus Application Protocol, section 7). */
const GATEWAY_PATH_UNAVAILABLE = 0x0a;
const GATEWAY_TARGET_NO_RESPONSE = 0x0b;

/** The words of `count` holding registers from `address`, or why not (thrown). */
export type RegisterReader = (address: number, count: number) => Promise<number[]>;

export interface ScanOptions<SunSpec> {
  units: readonly number[];
  timeoutMs: number;
  /** Called after each unit: how many were tried, how many answered. */
  onProgress?(tried: number, found: number): void;
  /** Opens the link again after it dropped (a TCP server may close on a request it dislikes). */
  reopen?(): Promise<PduTransport>;
  /**
   * What the unit says through SunSpec, read with `read`; null when it has no SunSpec map.
   * `lastReadSilent` tells whether the last read got no answer at all (a device silent
   * for addresses it lacks, not worth asking at the next base).
   */
  sunspec?(read: RegisterReader, lastReadSilent: () => boolean): Promise<SunSpec | null>;
}

export interface FoundUnit<SunSpec> {
  unitId: number;
  /** The probe's answer: holding register 0's value, or the exception the unit gave. */
  probe: { register0: number } | { exception: number; name: string | null };
  identification: DeviceIdentification | null;
  /** Why there is no identification (the unit's exception, no answer), or null. */
  identificationMissing: string | null;
  sunspec: SunSpec | null;
}

export interface ScanResult<SunSpec> {
  found: FoundUnit<SunSpec>[];
  /** Units whose answers came back broken twice (wrong baud rate or parity, or two devices at one id). */
  garbled: number[];
  tried: number;
}

/** The link dropped and could not be opened again: the scan cannot go on. */
export class LinkLostError extends Error {}

export async function scanUnits<SunSpec>(
  transport: PduTransport,
  options: ScanOptions<SunSpec>,
): Promise<ScanResult<SunSpec>> {
  let link = transport;
  const found: FoundUnit<SunSpec>[] = [];
  const garbled: number[] = [];
  let tried = 0;

  /** One request; a dropped link is opened again once and the request repeated. */
  const ask = async (unitId: number, pdu: Uint8Array): Promise<PduAnswer> => {
    const answer = await link.request(unitId, pdu, options.timeoutMs);
    if (answer.ok || answer.kind !== "disconnected") return answer;
    if (options.reopen === undefined) throw new LinkLostError(answer.message);
    try {
      link = await options.reopen();
    } catch (error) {
      throw new LinkLostError(`${answer.message}; ${(error as Error).message}`);
    }
    const again = await link.request(unitId, pdu, options.timeoutMs);
    if (!again.ok && again.kind === "disconnected") throw new LinkLostError(again.message);
    return again;
  };

  let lastReadSilent = false;
  const readRegisters =
    (unitId: number): RegisterReader =>
    async (address, count) => {
      const answer = await ask(unitId, readRequest(address, count));
      lastReadSilent = !answer.ok && answer.kind === "timeout";
      return wordsOf(answer, count, `holding registers ${address}..${address + count - 1}`);
    };

  for (const unitId of options.units) {
    let probe = await ask(unitId, readRequest(0, 1));
    // A broken answer is asked again once: a collision or noise, or a line set up wrongly.
    if (!probe.ok && probe.kind === "bad_frame") probe = await ask(unitId, readRequest(0, 1));
    tried++;
    const answered = probeAnswer(probe);
    if (answered === "garbled") garbled.push(unitId);
    else if (answered !== null) {
      const identity = await readDeviceIdentification((pdu) => ask(unitId, pdu));
      found.push({
        unitId,
        probe: answered,
        identification: identity.ok ? identity.identification : null,
        identificationMissing: identity.ok ? null : identity.reason,
        sunspec:
          options.sunspec === undefined ? null : await options.sunspec(readRegisters(unitId), () => lastReadSilent),
      });
    }
    options.onProgress?.(tried, found.length);
  }
  return { found, garbled, tried };
}

function probeAnswer(answer: PduAnswer): FoundUnit<unknown>["probe"] | "garbled" | null {
  if (answer.ok) {
    // A well-formed answer to a one-register read: byte count 2 and the word.
    if (answer.pdu.length !== 4 || answer.pdu[1] !== 2) return "garbled";
    return { register0: (answer.pdu[2]! << 8) | answer.pdu[3]! };
  }
  if (answer.kind === "exception") {
    if (answer.code === GATEWAY_PATH_UNAVAILABLE || answer.code === GATEWAY_TARGET_NO_RESPONSE) return null;
    return { exception: answer.code, name: exceptionName(answer.code) };
  }
  if (answer.kind === "bad_frame") return "garbled";
  return null;
}

export function readRequest(address: number, count: number): Uint8Array {
  return Uint8Array.of(READ_HOLDING_REGISTERS, address >> 8, address & 0xff, count >> 8, count & 0xff);
}

/** The words of a function-3 answer of `count` registers; throws with what went wrong otherwise. */
export function wordsOf(answer: PduAnswer, count: number, what: string): number[] {
  if (!answer.ok) {
    const why =
      answer.kind === "exception"
        ? describeException(answer.code)
        : answer.kind === "disconnected"
          ? answer.message
          : answer.kind.replace("_", " ");
    throw new Error(`${what}: ${why}`);
  }
  const { pdu } = answer;
  if (pdu.length !== 2 + 2 * count || pdu[1] !== 2 * count) throw new Error(`${what}: malformed answer`);
  const words: number[] = [];
  for (let at = 2; at < pdu.length; at += 2) words.push((pdu[at]! << 8) | pdu[at + 1]!);
  return words;
}
