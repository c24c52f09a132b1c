/**
 * A write through the server in the write audit (docs/api.md section 4.8, `fieldhub
 * writes list`): one entry per register of the device that the write covers whole,
 * with the value asked decoded from the words written, and the value before from the
 * words last read. A write that covers no register whole (a part of a 32-bit value,
 * an address fieldhub does not poll, a SunSpec point) is one entry of its device with
 * the request as sent (docs/polling.md); so is one that covers registers whole and
 * addresses outside them too, besides its registers' entries.
 */
import type { RegisterWriteResult } from "../lib/register-write.ts";
import { decodeBits, decodeWords } from "../modbus/decode.ts";
import type { WritePayload } from "../modbus/link.ts";
import type { PollingDevice } from "../modbus/polling-config.ts";
import { registerSpan, type WriteFunctionCode } from "../modbus/register-model.ts";
import type { ReadData } from "./served-bus.ts";

/** A register a write covers whole, by its public id; raw values (the auditor scales them as the API shows them). */
export interface WrittenRegister {
  registerId: string;
  rawAsked: number;
  rawBefore: number | null;
  /** Where in the request it starts, and how many addresses it takes. */
  offset: number;
  span: number;
}

/** One write through the server as the audit records it. */
export interface ServerWrite {
  /** The Modbus device's public id. */
  deviceId: string;
  actor: string;
  /** The registers it covers whole; none: it is recorded by the device and `request`. */
  registers: WrittenRegister[];
  /** Some address it writes is in no register of `registers`: recorded by the device and `request` as well. */
  beyondRegisters: boolean;
  /** What the client sent: coils as 0 or 1. */
  request: { functionCode: WriteFunctionCode; address: number; values: number[] };
  result: RegisterWriteResult;
  detail: string;
  requestedAt: number;
  finishedAt: number;
}

export type WriteAuditor = (write: ServerWrite) => Promise<void>;

/** The values a write request carries, as the audit stores them. */
export function writtenValues(payload: WritePayload): number[] {
  return payload.bits !== null ? payload.bits.map((bit) => (bit ? 1 : 0)) : [...payload.words];
}

/** The registers a write covers whole, with the value each is asked to take and held before. */
export function writtenRegisters(
  device: PollingDevice,
  write: { functionCode: WriteFunctionCode; start: number; payload: WritePayload },
  before: ReadData | null,
): WrittenRegister[] {
  const table = write.functionCode === 5 || write.functionCode === 15 ? 1 : 3;
  const count = write.payload.bits?.length ?? write.payload.words?.length ?? 0;
  const entries: WrittenRegister[] = [];
  for (const register of device.registers) {
    if (register.functionCode !== table || register.dataType === "string") continue;
    // A SunSpec point's config address is its offset in its model, not where it is on the device (docs/sunspec.md).
    if (register.sunspec !== undefined) continue;
    const offset = register.address - write.start;
    if (offset < 0 || offset + registerSpan(register) > count) continue;
    const asked =
      write.payload.bits !== null
        ? decodeBits(write.payload.bits, offset)
        : decodeWords(register, write.payload.words, offset);
    if (typeof asked !== "number") continue;
    const held =
      before === null
        ? null
        : before.bits !== null
          ? decodeBits(before.bits, offset)
          : decodeWords(register, before.words, offset);
    entries.push({
      registerId: register.id,
      rawAsked: asked,
      rawBefore: typeof held === "number" ? held : null,
      offset,
      span: registerSpan(register),
    });
  }
  return entries;
}

/** Whether some of the request's `count` addresses belong to none of the registers it covers whole. */
export function writesBeyondRegisters(registers: readonly WrittenRegister[], count: number): boolean {
  const covered = new Uint8Array(count);
  for (const register of registers) covered.fill(1, register.offset, register.offset + register.span);
  return covered.includes(0);
}
