/**
 * The register write protocol (docs/polling.md, "Register writes"), decided on
 * whatever link it is given: read the register (with the device's retries), write
 * once, read it back (with retries), `pause_ms` between the three. The write request
 * itself is never retried: after a timeout the device may have applied it, and
 * sending it again could apply it twice or after someone else's change. Its outcome
 * is then unknown (`timeout`); the register is read again later (`readRegister`,
 * queued by the caller) and `settledByReadBack` words what that read found.
 *
 * The whole protocol is one turn on the channel: nothing comes between the read and
 * the write, which the read-modify-write of a bit relies on.
 */

import { scalerFor } from "../lib/register-scaling.ts";
import type { RegisterWriteOutcome } from "../lib/register-write.ts";
import { decodeValue, readWithRetries } from "./device-cycle.ts";
import type { ModbusLink, ReadOutcome } from "./link.ts";
import type { ReadRequest } from "./plan.ts";
import type { PollingDevice } from "./polling-config.ts";
import { registerSpan } from "./register-model.ts";
import { payloadFor, rawForValue, type WritableRegister } from "./write-value.ts";

export interface WriteTarget {
  device: PollingDevice;
  register: WritableRegister;
  /** Each retry of its reads (before the write, read-back), for the device's bus counters. */
  retried?: () => void;
}

/** A register as read: its raw value, and the words it came in (the word a bit write changes). */
export type RegisterRead =
  | { ok: true; raw: number | null; words: number[] | null }
  | Exclude<ReadOutcome, { ok: true }>;

export function writeOutcome(
  result: RegisterWriteOutcome["result"],
  detail: string | null,
  more: Partial<RegisterWriteOutcome> = {},
): RegisterWriteOutcome {
  return { result, valueBefore: null, readBack: null, readBackRaw: null, detail, ...more };
}

/** The raw value to write for `value`, or the `invalid` outcome saying why nothing is sent. */
export function rawToWrite(register: WritableRegister, value: number): { raw: number } | RegisterWriteOutcome {
  const converted = rawForValue(register, value);
  return "problem" in converted ? writeOutcome("invalid", converted.problem) : converted;
}

/** A write that never got its turn on the connection. */
export function notSentInTime(waitedMs: number): RegisterWriteOutcome {
  return writeOutcome("not_sent", `the connection did not get to the write within ${waitedMs} ms; nothing was written`);
}

/** Reads the register alone, with the device's retries. */
export async function readRegister(
  link: ModbusLink,
  { device, register, retried }: WriteTarget,
): Promise<RegisterRead> {
  const request: ReadRequest = {
    functionCode: register.functionCode,
    start: register.address,
    count: registerSpan(register),
    registers: [register],
  };
  const read = await readWithRetries(
    () => link.read(request.functionCode, device.slaveId, request.start, request.count, device.timeoutMs),
    device.retries,
    retried,
  );
  if (!read.ok) return read;
  return { ok: true, raw: decodeValue(register, request, read, 0, 0).raw, words: read.words };
}

/** Writes `raw` (`value` in engineering units): read before, one write, read back. */
export async function writeAndReadBack(
  link: ModbusLink,
  target: WriteTarget,
  asked: { value: number; raw: number },
  pause: (ms: number) => Promise<void>,
): Promise<RegisterWriteOutcome> {
  const { device, register } = target;
  const scale = scalerFor(register.write.scaleFactor);
  const before = await readRegister(link, target);
  if (!before.ok) {
    if (before.kind === "exception") {
      return writeOutcome("refused", `the device refused the read before the write: Modbus exception ${before.code}`);
    }
    return writeOutcome(
      "not_sent",
      `the device did not answer the read before the write (${before.kind}); nothing was written`,
    );
  }
  const valueBefore = before.raw === null ? null : scale(before.raw);
  if (device.pauseMs > 0) await pause(device.pauseMs);
  if (link.write === undefined) return writeOutcome("not_sent", "this connection cannot write", { valueBefore });
  const payload = payloadFor(register, asked.raw, before.words?.[0] ?? null);
  const written = await link.write(
    register.write.functionCode,
    device.slaveId,
    register.address,
    payload,
    device.timeoutMs,
  );
  if (!written.ok) {
    if (written.kind === "exception") {
      return writeOutcome("refused", `the device refused the write: Modbus exception ${written.code}`, { valueBefore });
    }
    return writeOutcome(
      "timeout",
      `no answer to the write within ${device.timeoutMs} ms (${written.kind}); the outcome is unknown and the write was not retried`,
      { valueBefore },
    );
  }
  if (device.pauseMs > 0) await pause(device.pauseMs);
  const after = await readRegister(link, target);
  if (!after.ok || after.raw === null) {
    return writeOutcome("mismatch", "the device took the write but did not answer the read-back", { valueBefore });
  }
  const more = { valueBefore, readBack: scale(after.raw), readBackRaw: after.raw };
  const same =
    register.dataType === "float32" ? Math.fround(after.raw) === Math.fround(asked.raw) : after.raw === asked.raw;
  if (!same)
    return writeOutcome("mismatch", `the device reads back ${scale(after.raw)} after writing ${asked.value}`, more);
  return writeOutcome("written", null, more);
}

/** The detail of a write whose outcome was unknown, once the register was read again (null: no answer). */
export function settledByReadBack(detail: string | null, readBack: number | null): string {
  return `${detail}; read back afterwards: ${readBack === null ? "no answer" : readBack}`;
}
