/**
 * A sequence of signed safe integers (differences, mostly) as frame-of-reference
 * groups: each group of up to 128 stores its minimum and a bit width, then every
 * value minus the minimum in that many bits. A constant group costs two or three
 * bytes whatever its length (runs, as RLE would), a group of steps in -1..1 two
 * bits a value (as simple8b would), and one outlier widens only its own group.
 * Deflate over the whole block then squeezes skewed small values further.
 */
import { type ByteReader, type ByteWriter, bitWidth } from "./bytes.ts";

const groupSize = 128;

export function writeIntegers(out: ByteWriter, values: ArrayLike<number>, from: number, to: number): void {
  for (let start = from; start < to; start += groupSize) {
    const end = Math.min(to, start + groupSize);
    let min = values[start] as number;
    let max = min;
    for (let index = start + 1; index < end; index++) {
      const value = values[index] as number;
      if (value < min) min = value;
      else if (value > max) max = value;
    }
    const width = bitWidth(max - min);
    out.signed(min);
    out.byte(width);
    if (width === 0) continue;
    for (let index = start; index < end; index++) out.bits((values[index] as number) - min, width);
    out.align();
  }
}

/** Reads `count` values written by writeIntegers into `into` from `offset`. */
export function readIntegers(input: ByteReader, count: number, into: { [index: number]: number }, offset = 0): void {
  for (let start = 0; start < count; start += groupSize) {
    const end = Math.min(count, start + groupSize);
    const min = input.signed();
    const width = input.byte();
    if (width === 0) {
      for (let index = start; index < end; index++) into[offset + index] = min;
      continue;
    }
    for (let index = start; index < end; index++) into[offset + index] = min + input.bits(width);
    input.align();
  }
}
