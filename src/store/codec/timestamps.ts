/**
 * A block's reading times (whole stored seconds, ascending, distinct). The first is
 * written relative to the block's key start, the first step as is, then every later
 * step in one of two forms, whichever is shorter for the block:
 *  - delta of delta (Gorilla, Prometheus chunkenc): 0 while the step stays the same,
 *    so a regular series costs about nothing and a drifting one stays small;
 *  - the step minus the first step: a poll that slips one second and back (the
 *    usual jitter of rounding milliseconds down to seconds) is one non-zero value,
 *    where delta of delta makes two or three.
 */
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { readIntegers, writeIntegers } from "./integers.ts";

const deltaOfDelta = 0;
const stepFromFirst = 1;

export function writeTimes(out: ByteWriter, base: number, ts: ArrayLike<number>, from: number, to: number): void {
  const count = to - from;
  out.signed((ts[from] as number) - base);
  if (count < 2) return;
  const firstStep = (ts[from + 1] as number) - (ts[from] as number);
  out.varint(firstStep);
  if (count < 3) return;
  const ofDelta = new Float64Array(count - 2);
  const fromFirst = new Float64Array(count - 2);
  let changes = 0;
  let outliers = 0;
  for (let index = from + 2; index < to; index++) {
    const step = (ts[index] as number) - (ts[index - 1] as number);
    const previous = (ts[index - 1] as number) - (ts[index - 2] as number);
    ofDelta[index - from - 2] = step - previous;
    fromFirst[index - from - 2] = step - firstStep;
    if (step !== previous) changes++;
    if (step !== firstStep) outliers++;
  }
  // Fewer non-zero values is what both the bit groups and deflate reward.
  if (outliers <= changes) {
    out.byte(stepFromFirst);
    writeIntegers(out, fromFirst, 0, count - 2);
  } else {
    out.byte(deltaOfDelta);
    writeIntegers(out, ofDelta, 0, count - 2);
  }
}

export function readTimes(input: ByteReader, base: number, count: number): Int32Array {
  const ts = new Int32Array(count);
  if (count === 0) return ts;
  ts[0] = base + input.signed();
  if (count < 2) return ts;
  const firstStep = input.varint();
  ts[1] = (ts[0] as number) + firstStep;
  if (count < 3) return ts;
  const form = input.byte();
  const steps = new Float64Array(count - 2);
  readIntegers(input, count - 2, steps);
  if (form === stepFromFirst) {
    for (let index = 2; index < count; index++) {
      ts[index] = (ts[index - 1] as number) + firstStep + (steps[index - 2] as number);
    }
  } else {
    let step = firstStep;
    for (let index = 2; index < count; index++) {
      step += steps[index - 2] as number;
      ts[index] = (ts[index - 1] as number) + step;
    }
  }
  return ts;
}
