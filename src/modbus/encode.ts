/**
 * Encodes a value into the 16-bit words a device would hold for a register: the
 * inverse of decodeWords, for simulated equipment (the demo) and tests.
 */
import { type RegisterDecoding, registerSpan } from "./register-model.ts";

export function encodeWords(register: RegisterDecoding, value: number | string): number[] {
  const span = registerSpan(register);
  const bytes = new Uint8Array(span * 2);
  const view = new DataView(bytes.buffer);
  const numeric = typeof value === "number" ? value : Number(value);
  switch (register.dataType) {
    case "int16":
      view.setInt16(0, numeric);
      break;
    case "uint16":
      view.setUint16(0, numeric);
      break;
    case "bool":
      view.setUint16(0, numeric ? 1 << (register.bit ?? 0) : 0);
      break;
    case "int32":
      view.setInt32(0, numeric);
      break;
    case "uint32":
      view.setUint32(0, numeric);
      break;
    case "float32":
      view.setFloat32(0, numeric);
      break;
    case "int64":
      view.setBigInt64(0, BigInt(Math.trunc(numeric)));
      break;
    case "uint64":
      view.setBigUint64(0, BigInt(Math.trunc(numeric)));
      break;
    case "float64":
      view.setFloat64(0, numeric);
      break;
    case "string": {
      const text = String(value);
      for (let index = 0; index < bytes.length; index++)
        bytes[index] = index < text.length ? text.charCodeAt(index) & 0xff : 0;
      break;
    }
  }
  // Bytes are now big-endian (ABCD); reorder them as the register's byte order puts them on the wire.
  const words: number[] = [];
  for (let index = 0; index < span; index++) words.push(((bytes[index * 2] ?? 0) << 8) | (bytes[index * 2 + 1] ?? 0));
  const swapBytes = register.byteOrder === "BADC" || register.byteOrder === "DCBA";
  const swapWords = (register.byteOrder === "CDAB" || register.byteOrder === "DCBA") && register.dataType !== "string";
  const ordered = swapWords && span > 1 ? words.reverse() : words;
  return swapBytes ? ordered.map((word) => ((word & 0xff) << 8) | (word >> 8)) : ordered;
}
