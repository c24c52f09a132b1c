/**
 * Decoders from what a Modbus read returns (16-bit words for function codes 3/4,
 * bits for 1/2) to a register's value. A read block holds the words of many
 * registers; each register is decoded at its offset inside that block.
 *
 * Decoders never throw: missing words, non-finite floats and an impossible
 * definition (a `bool` without a bit 0..15, which config validation should refuse)
 * all decode to null ("no value"), because one odd register must not stop the poll
 * cycle of a whole bus.
 */
import { type ByteOrder, type RegisterDecoding, registerSpan } from "./register-model.ts";

const TWO_POW_32 = 2 ** 32;

/**
 * Decodes `register` from `words` (the words of a whole read block, function
 * codes 3/4), the register's first word at `offset`.
 *
 * - Integers and floats follow the byte orders documented on `ByteOrder`.
 * - int64/uint64 come back as a JS number: exact up to 2^53 in magnitude, beyond
 *   that rounded to the nearest double (a JSON number could not carry more anyway).
 * - float32 comes back as the shortest decimal that is the same float32 (the device
 *   meant 123.456, not 123.45600128173828); no information is lost.
 * - NaN and ±Infinity decode to null: the device's way of saying "no value", and
 *   JSON has no such numbers.
 * - bool: bit `register.bit` (0 = least significant) of the word, as 0 or 1; null without a bit 0..15.
 * - string: `register.length` words, two Latin-1 bytes each, trailing NULs and spaces trimmed.
 *
 * Returns null when the block does not hold the register's words (offset + span beyond it).
 */
export function decodeWords(
  register: RegisterDecoding,
  words: readonly number[],
  offset: number,
): number | string | null {
  const span = registerSpan(register);
  if (!Number.isInteger(offset) || offset < 0 || offset + span > words.length) return null;
  const bytes = wireBytesBigEndian(words, offset, span, register.dataType === "string" ? "string" : register.byteOrder);
  if (bytes === null) return null;
  const view = bytes === scratch ? scratchView : new DataView(bytes.buffer);

  switch (register.dataType) {
    case "int16":
      return view.getInt16(0);
    case "uint16":
      return view.getUint16(0);
    case "int32":
      return view.getInt32(0);
    case "uint32":
      return view.getUint32(0);
    case "float32":
      return finiteOrNull(shortestFloat32(view.getFloat32(0)));
    // High half times 2^32 is exact, so the sum is rounded once: the nearest double
    // to the true 64-bit value, without BigInt on the hot path.
    case "int64":
      return view.getInt32(0) * TWO_POW_32 + view.getUint32(4);
    case "uint64":
      return view.getUint32(0) * TWO_POW_32 + view.getUint32(4);
    case "float64":
      return finiteOrNull(view.getFloat64(0));
    case "bool": {
      const bit = register.bit;
      if (bit === null || !Number.isInteger(bit) || bit < 0 || bit > 15) return null;
      return (view.getUint16(0) >> bit) & 1;
    }
    case "string":
      return latin1Trimmed(bytes, register.byteOrder);
  }
}

/** Decodes one coil or discrete input (function codes 1/2) as 0 or 1; null when `offset` is outside `bits`. */
export function decodeBits(bits: readonly boolean[], offset: number): number | null {
  if (!Number.isInteger(offset) || offset < 0 || offset >= bits.length) return null;
  return bits[offset] ? 1 : 0;
}

/**
 * The register's bytes rearranged into big-endian order (A B C D ... as named on
 * `ByteOrder`), ready for DataView's default big-endian getters. Strings keep their
 * word order and only get their byte swap applied later, so "string" here means
 * "words as they are".
 */
// Numbers (at most 8 bytes) are assembled in one reused buffer: no allocation per
// register on the poll path. Strings get their own bytes.
const scratch = new Uint8Array(8);
const scratchView = new DataView(scratch.buffer);

function wireBytesBigEndian(
  words: readonly number[],
  offset: number,
  span: number,
  order: ByteOrder | "string",
): Uint8Array | null {
  // CDAB and DCBA put the low word first; BADC and DCBA swap the bytes within each word.
  const reverseWords = order === "CDAB" || order === "DCBA";
  const swapBytes = order === "BADC" || order === "DCBA";
  const bytes = order !== "string" && span <= 4 ? scratch : new Uint8Array(span * 2);
  for (let i = 0; i < span; i++) {
    const raw = words[offset + (reverseWords ? span - 1 - i : i)];
    // A hole in a sparse array is a missing word, not a zero.
    if (raw === undefined || !Number.isFinite(raw)) return null;
    const word = raw & 0xffff;
    bytes[2 * i] = swapBytes ? word & 0xff : word >> 8;
    bytes[2 * i + 1] = swapBytes ? word >> 8 : word & 0xff;
  }
  return bytes;
}

/** Two characters per word, high byte first unless the order swaps bytes (BADC, DCBA). */
function latin1Trimmed(bytes: Uint8Array, order: ByteOrder): string {
  const swapBytes = order === "BADC" || order === "DCBA";
  let text = "";
  for (let i = 0; i < bytes.length; i += 2) {
    const first = bytes[i]!;
    const second = bytes[i + 1]!;
    text += swapBytes ? String.fromCharCode(second, first) : String.fromCharCode(first, second);
  }
  // Devices pad fixed-width strings with NULs or spaces; neither is part of the value.
  return text.replace(/[\0 ]+$/, "");
}

/** The shortest decimal that reads back as the same float32 (at most 9 significant digits always do). */
export function shortestFloat32(value: number): number {
  if (!Number.isFinite(value)) return value;
  // For a normal float32, toPrecision(6) also finds any shorter form (its trailing
  // zeros vanish), so the search starts there; only subnormals need it from 1 digit.
  const first = value === 0 || Math.abs(value) >= 1.1754943508222875e-38 ? 6 : 1;
  for (let digits = first; digits < 9; digits++) {
    const candidate = Number(value.toPrecision(digits));
    if (Math.fround(candidate) === value) return candidate;
  }
  return Number(value.toPrecision(9));
}

function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}
