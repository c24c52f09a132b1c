/**
 * A scan of unit ids on one link (docs/discover.md): each unit is asked one cheap,
 * read-only question, and each unit that answers is asked who it is (function 43/14)
 * and whether it describes itself through SunSpec models. Nothing is ever written.
 *
 * The probe is a read of one holding register at address 0 (function 3), or the probes
 * the scan is given, each asked only of a unit silent to the ones before (probe.ts). Any
 * answer counts, a Modbus exception included, except a gateway's 0x0A and 0x0B. One
 * request at a time, so a unit costs at most one timeout a probe: a silent bus of N
 * units takes at most N x probes x timeout.
 */
import { type DeviceIdentification, describeException, readDeviceIdentification } from "./device-identification.ts";
import type { PduAnswer, PduTransport } from "./pdu-transport.ts";
import { defaultProbe, type Probe, type ProbeAnswer, probeAnswer, probeRequest } from "./probe.ts";

const READ_HOLDING_REGISTERS = 3;

/** The words of `count` holding registers from `address`, or why not (thrown). */
export type RegisterReader = (address: number, count: number) => Promise<number[]>;

export interface ScanOptions<SunSpec> {
  units: readonly number[];
  timeoutMs: number;
  /** Asked in turn until the unit answers one (default: holding register 0 alone). */
  probes?: readonly Probe[];
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
  /** The probe the unit answered, and its answer: the register's value, the exception it gave, or its identification. */
  probe: Probe;
  answer: ProbeAnswer;
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

  /** The probe the unit answered and its answer, "garbled", or null when it was silent to every probe. */
  const probeUnit = async (unitId: number) => {
    for (const probe of options.probes ?? [defaultProbe]) {
      let answer = await ask(unitId, probeRequest(probe));
      // A broken answer is asked again once: a collision or noise, or a line set up wrongly.
      if (!answer.ok && answer.kind === "bad_frame") answer = await ask(unitId, probeRequest(probe));
      const answered = probeAnswer(answer, probe);
      if (answered === "garbled") return answered;
      if (answered !== null) return { probe, answer: answered };
    }
    return null;
  };

  for (const unitId of options.units) {
    const answered = await probeUnit(unitId);
    tried++;
    if (answered === "garbled") garbled.push(unitId);
    else if (answered !== null) {
      const identity = await readDeviceIdentification((pdu) => ask(unitId, pdu));
      found.push({
        unitId,
        ...answered,
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
