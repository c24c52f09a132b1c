/**
 * Float values, bit-exact. Three forms:
 *  - xor32 / xor64: Gorilla's XOR with the previous value's bits. An unchanged
 *    value is one bit; otherwise the XOR's meaningful bits are written inside the
 *    previous window of leading/trailing zeros when they fit ('10'), or with a new
 *    window ('11', leading zeros, length). Good for values that repeat or move in
 *    their low bits only.
 *  - float32 bit steps: the difference of consecutive float32 bit patterns as
 *    integers (integers.ts). Within one sign and exponent the bit pattern is the
 *    value in ulps, so noise of +-k ulps costs about log2(2k) bits where XOR pays
 *    for control bits and a window; block.ts keeps the shorter of this and xor32.
 * NaN, the infinities and -0 are ordinary bit patterns to all three.
 */
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { readIntegers, writeIntegers } from "./integers.ts";

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const f64Words = new Uint32Array(f64.buffer);
// Float64Array words are little-endian on every platform Bun runs on.
const lowWord = 0;
const highWord = 1;

export function float32Bits(value: number): number {
  f32[0] = value;
  return f32Bits[0] as number;
}

function bitsFloat32(bits: number): number {
  f32Bits[0] = bits;
  return f32[0] as number;
}

const trailingZeros32 = (value: number): number => 31 - Math.clz32(value & -value);

export function writeXor32(out: ByteWriter, values: ArrayLike<number>, count: number): void {
  let previous = float32Bits(values[0] as number);
  out.bits(previous, 32);
  let lead = -1;
  let trail = 0;
  for (let index = 1; index < count; index++) {
    const bits = float32Bits(values[index] as number);
    const xor = (bits ^ previous) >>> 0;
    previous = bits;
    if (xor === 0) {
      out.bits(0, 1);
      continue;
    }
    const newLead = Math.clz32(xor);
    const newTrail = trailingZeros32(xor);
    if (lead >= 0 && newLead >= lead && newTrail >= trail) {
      out.bits(0b10, 2);
      out.bits(xor >>> trail, 32 - lead - trail);
      continue;
    }
    lead = newLead;
    trail = newTrail;
    const length = 32 - lead - trail;
    out.bits(0b11, 2);
    out.bits(lead, 5);
    out.bits(length - 1, 5);
    out.bits(xor >>> trail, length);
  }
  out.align();
}

export function readXor32(input: ByteReader, count: number, into: Float64Array, at: (index: number) => number): void {
  let previous = input.bits(32);
  into[at(0)] = bitsFloat32(previous);
  let lead = 0;
  let trail = 0;
  for (let index = 1; index < count; index++) {
    if (input.bits(1) === 1) {
      if (input.bits(1) === 1) {
        lead = input.bits(5);
        const length = input.bits(5) + 1;
        trail = 32 - lead - length;
      }
      const meaningful = input.bits(32 - lead - trail);
      // `* 2 ** trail` rather than `<< trail`: a 32-bit window would overflow the shift.
      previous = (previous ^ (meaningful * 2 ** trail)) >>> 0;
    }
    into[at(index)] = bitsFloat32(previous);
  }
  input.align();
}

export function writeFloat32Steps(out: ByteWriter, values: ArrayLike<number>, count: number): void {
  const bits = new Float64Array(count);
  for (let index = 0; index < count; index++) bits[index] = float32Bits(values[index] as number);
  out.varint(bits[0] as number);
  const steps = new Float64Array(count - 1);
  for (let index = 1; index < count; index++) steps[index - 1] = (bits[index] as number) - (bits[index - 1] as number);
  writeIntegers(out, steps, 0, count - 1);
}

export function readFloat32Steps(
  input: ByteReader,
  count: number,
  into: Float64Array,
  at: (index: number) => number,
): void {
  let bits = input.varint();
  into[at(0)] = bitsFloat32(bits);
  const steps = new Float64Array(count - 1);
  readIntegers(input, count - 1, steps);
  for (let index = 1; index < count; index++) {
    bits += steps[index - 1] as number;
    into[at(index)] = bitsFloat32(bits);
  }
}

export function writeXor64(out: ByteWriter, values: ArrayLike<number>, count: number): void {
  f64[0] = values[0] as number;
  let high = f64Words[highWord] as number;
  let low = f64Words[lowWord] as number;
  out.bits(high, 32);
  out.bits(low, 32);
  let lead = -1;
  let trail = 0;
  for (let index = 1; index < count; index++) {
    f64[0] = values[index] as number;
    const nextHigh = f64Words[highWord] as number;
    const nextLow = f64Words[lowWord] as number;
    const xorHigh = (nextHigh ^ high) >>> 0;
    const xorLow = (nextLow ^ low) >>> 0;
    high = nextHigh;
    low = nextLow;
    if (xorHigh === 0 && xorLow === 0) {
      out.bits(0, 1);
      continue;
    }
    const newLead = xorHigh !== 0 ? Math.clz32(xorHigh) : 32 + Math.clz32(xorLow);
    const newTrail = xorLow !== 0 ? trailingZeros32(xorLow) : 32 + trailingZeros32(xorHigh);
    if (lead >= 0 && newLead >= lead && newTrail >= trail) {
      out.bits(0b10, 2);
    } else {
      lead = newLead;
      trail = newTrail;
      out.bits(0b11, 2);
      out.bits(lead, 6);
      out.bits(64 - lead - trail - 1, 6);
    }
    writeShifted(out, xorHigh, xorLow, trail, 64 - lead - trail);
  }
  out.align();
}

/** Writes the `length` bits of (high:low) >> shift. */
function writeShifted(out: ByteWriter, high: number, low: number, shift: number, length: number): void {
  let shiftedHigh: number;
  let shiftedLow: number;
  if (shift === 0) {
    shiftedHigh = high;
    shiftedLow = low;
  } else if (shift >= 32) {
    shiftedHigh = 0;
    shiftedLow = high >>> (shift - 32);
  } else {
    shiftedHigh = high >>> shift;
    shiftedLow = ((low >>> shift) | (high << (32 - shift))) >>> 0;
  }
  if (length > 32) {
    out.bits(shiftedHigh, length - 32);
    out.bits(shiftedLow, 32);
  } else {
    out.bits(shiftedLow, length);
  }
}

export function readXor64(input: ByteReader, count: number, into: Float64Array, at: (index: number) => number): void {
  let high = input.bits(32);
  let low = input.bits(32);
  f64Words[highWord] = high;
  f64Words[lowWord] = low;
  into[at(0)] = f64[0] as number;
  let lead = 0;
  let trail = 0;
  for (let index = 1; index < count; index++) {
    if (input.bits(1) === 1) {
      if (input.bits(1) === 1) {
        lead = input.bits(6);
        trail = 64 - lead - (input.bits(6) + 1);
      }
      const length = 64 - lead - trail;
      const partHigh = length > 32 ? input.bits(length - 32) : 0;
      const partLow = input.bits(Math.min(32, length));
      let xorHigh: number;
      let xorLow: number;
      if (trail === 0) {
        xorHigh = partHigh;
        xorLow = partLow;
      } else if (trail >= 32) {
        xorHigh = (partLow << (trail - 32)) >>> 0;
        xorLow = 0;
      } else {
        xorHigh = ((partHigh << trail) | (partLow >>> (32 - trail))) >>> 0;
        xorLow = (partLow << trail) >>> 0;
      }
      high = (high ^ xorHigh) >>> 0;
      low = (low ^ xorLow) >>> 0;
    }
    f64Words[highWord] = high;
    f64Words[lowWord] = low;
    into[at(index)] = f64[0] as number;
  }
  input.align();
}
