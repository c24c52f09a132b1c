/**
 * The Modbus register model: function codes and the tables they read, data types and
 * the words they span, byte orders, and how one register is read and decoded. The
 * config writes registers in these terms (and asks register-rules.ts what they need);
 * the planner and the decoder read them.
 */

/** 1 coils, 2 discrete inputs (one bit each); 3 holding, 4 input registers (16-bit words). */
export const functionCodes = [1, 2, 3, 4] as const;
export type FunctionCode = (typeof functionCodes)[number];
/** Holding registers: what a register without a function code is read with. */
export const defaultFunctionCode: FunctionCode = 3;

/** The table each function code reads, and whether its entries are single bits. */
export const functionCodeTables: Record<FunctionCode, { table: string; bits: boolean }> = {
  1: { table: "coils", bits: true },
  2: { table: "discrete inputs", bits: true },
  3: { table: "holding registers", bits: false },
  4: { table: "input registers", bits: false },
};

/** The last protocol address (addresses are 0-based, 16 bits). */
export const lastAddress = 65535;
/** The last bit of a 16-bit register (0 = least significant), for `bool` on function codes 3 and 4. */
export const lastBit = 15;
/** A string's length in registers (two characters each) is 1 to this. */
export const maxStringLength = 123;

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

/** The 16-bit words one value of each data type spans on function codes 3 and 4 (a string: its `length`). */
export const wordsPerValue: Record<Exclude<DataType, "string">, number> = {
  int16: 1,
  uint16: 1,
  int32: 2,
  uint32: 2,
  float32: 2,
  int64: 4,
  uint64: 4,
  float64: 4,
  bool: 1,
};

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

/**
 * Function codes that write: 5 one coil, 15 coils, 6 one holding register, 16 holding
 * registers. Only coils (read with 1) and holding registers (read with 3) are writable.
 */
export const writeFunctionCodes = [5, 6, 15, 16] as const;
export type WriteFunctionCode = (typeof writeFunctionCodes)[number];

/** How a writable register is written, and the values a write may set (engineering units). */
export interface RegisterWrite {
  functionCode: WriteFunctionCode;
  min: number;
  max: number;
  /** value = raw x scale_factor; null is 1. */
  scaleFactor: number | null;
}

/**
 * The write function codes that fit a register read with `functionCode` as `dataType`:
 * coils take 5 or 15; a one-word holding register (a bit of one too) 6 or 16; a
 * multi-word value 16 only. Empty: the register cannot be written (input registers,
 * discrete inputs, strings). The first is the default.
 */
export function writeFunctionsFor(functionCode: FunctionCode, dataType: DataType): readonly WriteFunctionCode[] {
  if (functionCode === 1) return [5, 15];
  if (functionCode !== 3 || dataType === "string") return [];
  return wordsPerValue[dataType] === 1 ? [6, 16] : [16];
}

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
  /** Present when the register is writable (config `writable: true`). */
  write?: RegisterWrite;
}

/** How many protocol units (16-bit words, or bits for function codes 1 and 2) a register spans. */
export function registerSpan(register: Pick<RegisterDecoding, "functionCode" | "dataType" | "length">): number {
  if (functionCodeTables[register.functionCode].bits) return 1;
  return register.dataType === "string" ? (register.length ?? 1) : wordsPerValue[register.dataType];
}
