/**
 * A page of readings over closed blocks and the open tail (docs/api.md section 4.6, rules
 * 1 to 3): `since` inclusive, `until` exclusive, ordered by (ts, register id) either
 * way, continuing strictly after a keyset cursor. Each register is walked lazily,
 * block by block, and several registers are merged through a heap, so a page costs
 * what its rows need (a block or two per register), not what the window spans.
 */

import { aggregateAt, type DecodedBlock, lowerBound, type ReadingColumns } from "../../codec/block.ts";
import type { OpenTail } from "../../codec/tail.ts";
import type { ReadingAggregate } from "../../contract/readings.ts";
import type { BlockTable } from "./blocks.ts";

export interface PageSource {
  blocks: BlockTable;
  tail: OpenTail;
  periodSeconds: number;
  /** Periods before this one are closed (in blocks); it and later ones are in the tail. */
  openPeriod: number;
  /** The earliest period with blocks, if any. */
  firstPeriod: number | null;
}

type Order = "asc" | "desc";
type Slice = { columns: ReadingColumns; from: number; to: number };

/** One register's readings in [low, high) stored seconds, as slices in the page's order. */
function* registerSlices(source: PageSource, registerId: number, low: number, high: number, order: Order) {
  const { blocks, tail, periodSeconds, openPeriod, firstPeriod } = source;
  const openStart = openPeriod * periodSeconds;
  const lastClosed = Math.min(Math.floor((high - 1) / periodSeconds), openPeriod - 1);
  const firstWanted = Math.max(Math.floor(low / periodSeconds), firstPeriod ?? lastClosed + 1);
  const tailSlice = (): Slice | null => {
    const open = tail.of(registerId);
    if (open === undefined) return null;
    const from = open.lowerBound(Math.max(low, openStart));
    const to = open.lowerBound(high);
    return to > from ? { columns: open, from, to } : null;
  };
  const blockSlice = (block: DecodedBlock): Slice | null => {
    const from = lowerBound(block.ts, block.count, low);
    const to = lowerBound(block.ts, block.count, high);
    return to > from ? { columns: block, from, to } : null;
  };
  if (order === "asc") {
    for (let period = firstWanted; period <= lastClosed; period++) {
      for (const row of blocks.blocks(period, registerId, "asc")) {
        if (row.lastSeconds < low) continue;
        if (row.startSeconds >= high) return;
        const slice = blockSlice(blocks.decoded(period, registerId, row));
        if (slice !== null) yield slice;
      }
    }
    if (high > openStart) {
      const slice = tailSlice();
      if (slice !== null) yield slice;
    }
    return;
  }
  if (high > openStart) {
    const slice = tailSlice();
    if (slice !== null) yield slice;
  }
  for (let period = lastClosed; period >= firstWanted; period--) {
    for (const row of blocks.blocks(period, registerId, "desc")) {
      if (row.startSeconds >= high) continue;
      if (row.lastSeconds < low) return;
      const slice = blockSlice(blocks.decoded(period, registerId, row));
      if (slice !== null) yield slice;
    }
  }
}

/** Walks one register's readings one at a time. */
class RegisterCursor {
  seconds = 0;
  private slice: Slice | null = null;
  private at = 0;

  constructor(
    readonly registerId: number,
    private readonly slices: Generator<Slice>,
    private readonly ascending: boolean,
  ) {}

  /** Moves to the next reading; false when there is none. */
  advance(): boolean {
    if (this.slice !== null) {
      this.at += this.ascending ? 1 : -1;
      if (this.at >= this.slice.from && this.at < this.slice.to) {
        this.seconds = this.slice.columns.ts[this.at] as number;
        return true;
      }
    }
    const next = this.slices.next();
    if (next.done === true) return false;
    this.slice = next.value;
    this.at = this.ascending ? next.value.from : next.value.to - 1;
    this.seconds = next.value.columns.ts[this.at] as number;
    return true;
  }

  raw(): number | null {
    const columns = (this.slice as Slice).columns;
    return columns.nulls?.[this.at] === 1 ? null : (columns.values[this.at] as number);
  }

  aggregate(): ReadingAggregate | null {
    return aggregateAt((this.slice as Slice).columns.aggregates, this.at);
  }
}

export type PagedReading = {
  registerId: number;
  seconds: number;
  raw: number | null;
  aggregate: ReadingAggregate | null;
};

/**
 * Up to `limit` readings of `registerIds`, each register within its own [low, high)
 * stored seconds (the keyset cursor makes the bounds differ per register by one
 * second), merged in (seconds, register id) order.
 */
export function readPage(
  source: PageSource,
  bounds: { registerId: number; low: number; high: number }[],
  order: Order,
  limit: number,
): PagedReading[] {
  const ascending = order === "asc";
  const before = (a: RegisterCursor, b: RegisterCursor): boolean =>
    ascending
      ? a.seconds < b.seconds || (a.seconds === b.seconds && a.registerId < b.registerId)
      : a.seconds > b.seconds || (a.seconds === b.seconds && a.registerId > b.registerId);
  const heap: RegisterCursor[] = [];
  for (const { registerId, low, high } of bounds) {
    if (high <= low) continue;
    const cursor = new RegisterCursor(registerId, registerSlices(source, registerId, low, high, order), ascending);
    if (cursor.advance()) heap.push(cursor);
  }
  const swap = (i: number, j: number) => {
    const held = heap[i] as RegisterCursor;
    heap[i] = heap[j] as RegisterCursor;
    heap[j] = held;
  };
  const siftDown = (start: number) => {
    let at = start;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let best = at;
      if (left < heap.length && before(heap[left] as RegisterCursor, heap[best] as RegisterCursor)) best = left;
      if (right < heap.length && before(heap[right] as RegisterCursor, heap[best] as RegisterCursor)) best = right;
      if (best === at) return;
      swap(at, best);
      at = best;
    }
  };
  for (let index = (heap.length >>> 1) - 1; index >= 0; index--) siftDown(index);
  const rows: PagedReading[] = [];
  while (rows.length < limit && heap.length > 0) {
    const top = heap[0] as RegisterCursor;
    rows.push({ registerId: top.registerId, seconds: top.seconds, raw: top.raw(), aggregate: top.aggregate() });
    if (!top.advance()) {
      const last = heap.pop() as RegisterCursor;
      if (heap.length === 0) break;
      heap[0] = last;
    }
    siftDown(0);
  }
  return rows;
}
