/**
 * One block: a register's readings over part of a period, encoded on their own.
 *
 *   flags byte (bit 0: the rest is deflated)
 *   count (varint)
 *   times (timestamps.ts), relative to the start the block is keyed by
 *   null count (varint); when some but not all are null, their positions as gaps (integers.ts)
 *   value form (byte) and the values that are not null:
 *     0 integers: first (zigzag varint), then the differences (integers.ts)
 *     1 float32 bit steps, 2 xor32, 3 xor64 (floats.ts)
 *   with flag bit 1 (blocks written since aggregates, docs/api.md section 4.6): the aggregates,
 *     samples per reading (integers.ts; 0: the reading has none), then for each of
 *     min, max and mean the positions where it differs from the reading's value
 *     (count, gaps) and those values (value form and values, as above; the means
 *     as their sums over samples when that is exact, a byte says which). The common
 *     case, a steady value (min = max = mean = value, samples constant), costs a
 *     few bytes a block. A block without the bit decodes with no aggregates.
 *
 * The form is chosen per block from the values themselves: whole numbers within
 * +-2^50 (and not -0) are integers; numbers that survive a float32 round trip
 * bit for bit (every value of a float32 register) take the shorter of the two
 * float32 forms; anything else is float64. So integers stay exact, float32
 * bit-exact, float64 exact, and null stays null.
 */
import type { ReadingAggregate } from "../contract/readings.ts";
import { ByteReader, ByteWriter } from "./bytes.ts";
import { readFloat32Steps, readXor32, readXor64, writeFloat32Steps, writeXor32, writeXor64 } from "./floats.ts";
import { readIntegers, writeIntegers } from "./integers.ts";
import { readTimes, writeTimes } from "./timestamps.ts";

/** Per-period aggregates by reading (raw values); `samples` 0 where a reading has none. */
export interface AggregateColumns {
  samples: ArrayLike<number>;
  min: ArrayLike<number>;
  max: ArrayLike<number>;
  mean: ArrayLike<number>;
}

/** Readings of one register in time order: stored seconds, raw values, and which are null. */
export interface ReadingColumns {
  count: number;
  ts: ArrayLike<number>;
  /** Raw values; an entry whose `nulls` flag is set is not a value (its slot holds 0). */
  values: ArrayLike<number>;
  /** 1 where the reading's raw value is null; null when none is. */
  nulls: ArrayLike<number> | null;
  /** The readings' aggregates; null (or absent) when none has one. */
  aggregates?: AggregateColumns | null;
}

export interface DecodedBlock extends ReadingColumns {
  ts: Int32Array;
  values: Float64Array;
  nulls: Uint8Array | null;
  aggregates: AggregateColumns | null;
}

/** The aggregate of reading `index` of `columns`, or null. */
export function aggregateAt(columns: AggregateColumns | null | undefined, index: number): ReadingAggregate | null {
  if (columns === null || columns === undefined) return null;
  const samples = columns.samples[index] as number;
  if (samples === 0) return null;
  return {
    rawMin: columns.min[index] as number,
    rawMax: columns.max[index] as number,
    rawMean: columns.mean[index] as number,
    samples,
  };
}

const deflated = 1;
const withAggregates = 2;
/** How a block's differing means are written: as they are, or as the sums they are of (exact). */
const meanAsValues = 0;
const meanAsSums = 1;
const integerForm = 0;
const float32StepsForm = 1;
const xor32Form = 2;
const xor64Form = 3;
const integerLimit = 2 ** 50;

/** Encodes readings [from, to) of `columns`; `base` is the stored second the block is keyed by. */
export function encodeBlock(base: number, columns: ReadingColumns, from = 0, to = columns.count): Uint8Array {
  const count = to - from;
  const out = new ByteWriter();
  out.varint(count);
  writeTimes(out, base, columns.ts, from, to);
  const present: number[] = [];
  const nullGaps: number[] = [];
  let lastNull = -1;
  for (let index = from; index < to; index++) {
    if (columns.nulls !== null && columns.nulls[index] === 1) {
      nullGaps.push(index - from - lastNull - 1);
      lastNull = index - from;
    } else {
      present.push(columns.values[index] as number);
    }
  }
  out.varint(nullGaps.length);
  if (nullGaps.length > 0 && present.length > 0) writeIntegers(out, nullGaps, 0, nullGaps.length);
  if (present.length > 0) writeValues(out, present);
  const aggregated = writeAggregates(out, columns, from, to);
  const plain = out.finish();
  const flags = aggregated ? withAggregates : 0;
  // Deflate's Huffman stage takes skewed small values (mostly-zero differences)
  // well below their packed width; kept only when it wins.
  const packed = Bun.deflateSync(plain, { level: 9 });
  if (packed.length < plain.length) {
    const block = new Uint8Array(packed.length + 1);
    block[0] = deflated | flags;
    block.set(packed, 1);
    return block;
  }
  const block = new Uint8Array(plain.length + 1);
  block[0] = flags;
  block.set(plain, 1);
  return block;
}

/** The aggregate section of readings [from, to); false (nothing written) when none has an aggregate. */
function writeAggregates(out: ByteWriter, columns: ReadingColumns, from: number, to: number): boolean {
  const aggregates = columns.aggregates;
  if (aggregates === null || aggregates === undefined) return false;
  let any = false;
  for (let index = from; index < to && !any; index++) any = (aggregates.samples[index] as number) > 0;
  if (!any) return false;
  writeIntegers(out, aggregates.samples, from, to);
  for (const part of [aggregates.min, aggregates.max, aggregates.mean]) {
    const gaps: number[] = [];
    const differing: number[] = [];
    const counts: number[] = [];
    let last = -1;
    for (let index = from; index < to; index++) {
      if ((aggregates.samples[index] as number) === 0) continue;
      const value = columns.nulls?.[index] === 1 ? null : (columns.values[index] as number);
      const own = part[index] as number;
      if (Object.is(own, value)) continue;
      gaps.push(index - from - last - 1);
      last = index - from;
      differing.push(own);
      counts.push(aggregates.samples[index] as number);
    }
    out.varint(gaps.length);
    if (gaps.length === 0) continue;
    writeIntegers(out, gaps, 0, gaps.length);
    if (part !== aggregates.mean) {
      writeValues(out, differing);
      continue;
    }
    // The mean of whole numbers is a sum over a count: the sums, whole numbers, take
    // the integer form (a few bits each) where the means would take float64's XOR.
    const sums = differing.map((mean, slot) => Math.round(mean * (counts[slot] as number)));
    const exact = sums.every(
      (sum, slot) => Number.isSafeInteger(sum) && Object.is(sum / (counts[slot] as number), differing[slot]),
    );
    out.byte(exact ? meanAsSums : meanAsValues);
    writeValues(out, exact ? sums : differing);
  }
  return true;
}

function readAggregates(input: ByteReader, block: DecodedBlock): AggregateColumns {
  const { count } = block;
  const samples = new Float64Array(count);
  readIntegers(input, count, samples);
  const parts = [new Float64Array(count), new Float64Array(count), new Float64Array(count)];
  for (const part of parts) {
    const isMean = part === parts[2];
    for (let index = 0; index < count; index++) part[index] = block.values[index] as number;
    const differing = input.varint();
    if (differing === 0) continue;
    const gaps = new Float64Array(differing);
    readIntegers(input, differing, gaps);
    const positions = new Int32Array(differing);
    let position = -1;
    gaps.forEach((gap, slot) => {
      position += gap + 1;
      positions[slot] = position;
    });
    const sums = isMean && input.byte() === meanAsSums;
    readValues(input, differing, part, (slot) => positions[slot] as number);
    if (sums)
      for (const position of positions) part[position] = (part[position] as number) / (samples[position] as number);
  }
  return { samples, min: parts[0] as Float64Array, max: parts[1] as Float64Array, mean: parts[2] as Float64Array };
}

function writeValues(out: ByteWriter, values: number[]): void {
  let integers = true;
  let float32 = true;
  for (const value of values) {
    if (integers && !(Number.isInteger(value) && Math.abs(value) <= integerLimit && !Object.is(value, -0))) {
      integers = false;
    }
    if (float32 && !Object.is(Math.fround(value), value)) float32 = false;
    if (!integers && !float32) break;
  }
  if (integers) {
    out.byte(integerForm);
    out.signed(values[0] as number);
    const steps = new Float64Array(values.length - 1);
    for (let index = 1; index < values.length; index++) {
      steps[index - 1] = (values[index] as number) - (values[index - 1] as number);
    }
    writeIntegers(out, steps, 0, steps.length);
  } else if (float32) {
    const steps = new ByteWriter();
    writeFloat32Steps(steps, values, values.length);
    const xor = new ByteWriter();
    writeXor32(xor, values, values.length);
    const shorter = steps.size <= xor.size ? steps : xor;
    out.byte(shorter === steps ? float32StepsForm : xor32Form);
    const bytes = shorter.finish();
    for (const byte of bytes) out.byte(byte);
  } else {
    out.byte(xor64Form);
    writeXor64(out, values, values.length);
  }
}

export function decodeBlock(base: number, block: Uint8Array): DecodedBlock {
  const rest = block.subarray(1) as Uint8Array<ArrayBuffer>;
  const flags = block[0] as number;
  const body = flags & deflated ? Bun.inflateSync(rest) : rest;
  const input = new ByteReader(body);
  const decoded = readReadings(base, input);
  if (flags & withAggregates) decoded.aggregates = readAggregates(input, decoded);
  return decoded;
}

function readReadings(base: number, input: ByteReader): DecodedBlock {
  const count = input.varint();
  const ts = readTimes(input, base, count);
  const values = new Float64Array(count);
  const nullCount = input.varint();
  let nulls: Uint8Array | null = null;
  let presentAt: Int32Array | null = null;
  if (nullCount > 0) {
    nulls = new Uint8Array(count);
    if (nullCount === count) {
      nulls.fill(1);
      return { count, ts, values, nulls, aggregates: null };
    }
    const gaps = new Float64Array(nullCount);
    readIntegers(input, nullCount, gaps);
    let position = -1;
    for (const gap of gaps) {
      position += gap + 1;
      nulls[position] = 1;
    }
    presentAt = new Int32Array(count - nullCount);
    let slot = 0;
    for (let index = 0; index < count; index++) if (nulls[index] === 0) presentAt[slot++] = index;
  }
  const present = count - nullCount;
  if (present === 0) return { count, ts, values, nulls, aggregates: null };
  const at = presentAt === null ? (index: number) => index : (index: number) => presentAt[index] as number;
  readValues(input, present, values, at);
  return { count, ts, values, nulls, aggregates: null };
}

/** Reads `present` values written by writeValues into `values` at the positions `at` gives. */
function readValues(input: ByteReader, present: number, values: Float64Array, at: (index: number) => number): void {
  const form = input.byte();
  if (form === integerForm) {
    let value = input.signed();
    values[at(0)] = value;
    const steps = new Float64Array(present - 1);
    readIntegers(input, present - 1, steps);
    for (let index = 1; index < present; index++) {
      value += steps[index - 1] as number;
      values[at(index)] = value;
    }
  } else if (form === float32StepsForm) {
    readFloat32Steps(input, present, values, at);
  } else if (form === xor32Form) {
    readXor32(input, present, values, at);
  } else if (form === xor64Form) {
    readXor64(input, present, values, at);
  } else {
    throw new RangeError(`history block value form ${form} unknown`);
  }
}

/** Index of the first of `count` ascending times at or after `seconds`. */
export function lowerBound(ts: ArrayLike<number>, count: number, seconds: number): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ts[middle] as number) < seconds) low = middle + 1;
    else high = middle;
  }
  return low;
}
