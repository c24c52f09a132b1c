/**
 * A period's aggregate as a history_tail row carries it (`agg`, schema.ts): written
 * once, when the period has ended, on the row of the register's next reading (or
 * on a row of its own when none came), so the tail stays append-only and a
 * reading is never rewritten (docs/architecture.md "Reading history").
 *
 *   flags byte: bit 0 the row carries no reading of its own; bits 1-3 min, max,
 *     mean differ from the reading's value (else they equal it and are left out);
 *     bits 4-6 that one is written as 8 float64 bytes (else a zigzag varint)
 *   back (zigzag varint): the row's second less the aggregated reading's
 *   samples (varint), then min, max, mean where they differ
 *
 * A steady value polled n times a period costs 3 bytes.
 */

import { ByteReader, ByteWriter } from "../../codec/bytes.ts";
import type { ReadingAggregate } from "../../contract/readings.ts";

const standaloneFlag = 1;
const integerLimit = 2 ** 50;
const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);

export type TailAggregate = { standalone: boolean; back: number; aggregate: ReadingAggregate };

export function encodeTailAggregate(
  aggregate: ReadingAggregate,
  value: number | null,
  back: number,
  standalone: boolean,
): Uint8Array {
  const parts = [aggregate.rawMin, aggregate.rawMax, aggregate.rawMean];
  let flags = standalone ? standaloneFlag : 0;
  parts.forEach((part, index) => {
    if (Object.is(part, value)) return;
    flags |= 2 << index;
    if (!(Number.isInteger(part) && Math.abs(part) <= integerLimit && !Object.is(part, -0))) flags |= 16 << index;
  });
  const out = new ByteWriter();
  out.byte(flags);
  out.signed(back);
  out.varint(aggregate.samples);
  parts.forEach((part, index) => {
    if ((flags & (2 << index)) === 0) return;
    if ((flags & (16 << index)) === 0) out.signed(part);
    else {
      f64[0] = part;
      for (const byte of f64Bytes) out.byte(byte);
    }
  });
  return out.finish();
}

/** Decodes an `agg` column; `valueAt` gives the aggregated reading's value (for the parts left out). */
export function decodeTailAggregate(
  data: Uint8Array,
  valueAt: (back: number) => number | null,
): TailAggregate & { complete: boolean } {
  const input = new ByteReader(data as Uint8Array<ArrayBuffer>);
  const flags = input.byte();
  const back = input.signed();
  const samples = input.varint();
  const value = valueAt(back);
  let complete = true;
  const parts = [0, 1, 2].map((index) => {
    if ((flags & (2 << index)) === 0) {
      if (value === null) complete = false;
      return value ?? Number.NaN;
    }
    if ((flags & (16 << index)) === 0) return input.signed();
    for (let byte = 0; byte < 8; byte++) f64Bytes[byte] = input.byte();
    return f64[0] as number;
  });
  return {
    standalone: (flags & standaloneFlag) !== 0,
    back,
    complete,
    aggregate: { rawMin: parts[0] as number, rawMax: parts[1] as number, rawMean: parts[2] as number, samples },
  };
}

/** Whether an `agg` column marks a row carrying no reading of its own (read before the reading is looked up). */
export function isStandaloneAggregate(data: Uint8Array): boolean {
  return ((data[0] as number) & standaloneFlag) !== 0;
}
