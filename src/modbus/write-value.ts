/**
 * From a value in engineering units to the raw value a writable register takes
 * (raw = value / scale_factor, within [min, max], exactly representable in
 * the data type, or refused with the reason), and from a raw value to the request
 * payload. A bit of a holding register is written by changing that bit of the word
 * read just before (read-modify-write; see docs/polling.md for the race with other
 * masters).
 */
import { shortestFloat32 } from "./decode.ts";
import { encodeWords } from "./encode.ts";
import type { WritePayload } from "./link.ts";
import type { RegisterDecoding, RegisterWrite } from "./register-model.ts";

export type WritableRegister = RegisterDecoding & { write: RegisterWrite };

const integerRanges: Record<string, [number, number]> = {
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

/** The raw value for `value`, or why it cannot be written. */
export function rawForValue(register: WritableRegister, value: number): { raw: number } | { problem: string } {
  const { min, max, scaleFactor } = register.write;
  if (!Number.isFinite(value)) return { problem: "value must be a finite number" };
  if (value < min || value > max) return { problem: `value must be between ${min} and ${max}; got ${value}` };
  const exact = scaleFactor === null || scaleFactor === 1 ? value : value / scaleFactor;
  const { dataType } = register;
  if (dataType === "float32") {
    const single = Math.fround(exact);
    if (shortestFloat32(single) !== exact && single !== exact) {
      return { problem: `value ${value} is not representable as a float32 (nearest: ${shortestFloat32(single)})` };
    }
    return { raw: single };
  }
  if (dataType === "float64") return { raw: exact };
  // Division leaves noise (21.5 / 0.1 = 214.99999999999997): a raw value within a
  // billionth of an integer is that integer.
  const raw = Math.round(exact);
  if (Math.abs(exact - raw) > 1e-9 * Math.max(1, Math.abs(exact))) {
    const step = scaleFactor ?? 1;
    return {
      problem: `value ${value} is not a whole multiple of the scale factor ${step} (raw ${exact} is not an integer)`,
    };
  }
  if (dataType === "bool") {
    if (raw !== 0 && raw !== 1) return { problem: `value must be 0 or 1 for a bool register; got ${value}` };
    return { raw };
  }
  const range = integerRanges[dataType];
  if (range !== undefined && (raw < range[0] || raw > range[1])) {
    return { problem: `raw value ${raw} does not fit a ${dataType} (${range[0]}..${range[1]})` };
  }
  return { raw };
}

/**
 * The request payload that writes `raw`; for a bit of a holding register, `current` is
 * the word as read just before.
 */
export function payloadFor(register: WritableRegister, raw: number, current: number | null): WritePayload {
  if (register.functionCode === 1) return { words: null, bits: [raw === 1] };
  if (register.dataType === "bool") {
    // The bit is counted on the word as decoded: with a byte swap (BADC, DCBA) it sits in the other byte on the wire.
    const bit = register.bit ?? 0;
    const swapped = register.byteOrder === "BADC" || register.byteOrder === "DCBA";
    const mask = 1 << (swapped ? (bit + 8) % 16 : bit);
    const word = current ?? 0;
    return { words: [raw === 1 ? word | mask : word & ~mask & 0xffff], bits: null };
  }
  return { words: encodeWords(register, raw), bits: null };
}
