/**
 * How a register is read and decoded: the vocabulary the config produces and
 * the Modbus layer consumes (neither imports the other).
 */

/** 1 coils, 2 discrete inputs (one bit each); 3 holding, 4 input registers (16-bit words). */
export const functionCodes = [1, 2, 3, 4] as const;
export type FunctionCode = (typeof functionCodes)[number];

export const dataTypes = [
  "int16",
  "uint16",
  "int32",
  "uint32",
  "float32",
  "int64",
  "uint64",
  "float64",
  "bool",
  "string",
] as const;
export type DataType = (typeof dataTypes)[number];

/**
 * Byte order of a multi-byte value, named by where the bytes of the big-endian
 * value A B C D (E F G H for 64 bits) arrive on the wire:
 * - ABCD: big-endian words, high word first (the Modbus convention);
 * - CDAB: words swapped (low word first), bytes within a word big-endian;
 * - BADC: bytes swapped within each word, high word first;
 * - DCBA: fully little-endian.
 * For 64-bit values the same four names apply to four words (CDAB: low word first).
 * For 16-bit values only the byte swap matters (BADC and DCBA swap the two bytes).
 * For strings: ABCD/CDAB keep each word's bytes in order, BADC/DCBA swap them.
 */
export const byteOrders = ["ABCD", "CDAB", "BADC", "DCBA"] as const;
export type ByteOrder = (typeof byteOrders)[number];

export interface RegisterDecoding {
  /** Public register id (UUID). */
  id: string;
  functionCode: FunctionCode;
  /** Protocol address, 0-based (what goes in the request PDU). */
  address: number;
  dataType: DataType;
  byteOrder: ByteOrder;
  /** For `bool` on function codes 3/4: the bit (0 = least significant) of the 16-bit word. */
  bit: number | null;
  /** For `string`: its length in registers (two characters each). */
  length: number | null;
}

/** How many protocol units (16-bit words, or bits for function codes 1 and 2) a register spans. */
export function registerSpan(register: Pick<RegisterDecoding, "functionCode" | "dataType" | "length">): number {
  if (register.functionCode === 1 || register.functionCode === 2) return 1;
  switch (register.dataType) {
    case "int32":
    case "uint32":
    case "float32":
      return 2;
    case "int64":
    case "uint64":
    case "float64":
      return 4;
    case "string":
      return register.length ?? 1;
    default:
      return 1;
  }
}
