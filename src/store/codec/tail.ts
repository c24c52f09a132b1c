/**
 * The open periods' readings in memory, by register, in time order: the copy of
 * `history_tail` that reads use, since that table has no index to find one
 * register's rows by (its inserts must land on its last page). Loaded once at open;
 * about 13 bytes a reading, 41 with aggregates, in arrays that double: a store's
 * period bounds it (four hours by default: about 14 MB for 1,000 registers at one
 * stored reading a minute with aggregates; a day's period, ~85 MB).
 */
import type { ReadingAggregate } from "../contract/readings.ts";
import { type AggregateColumns, aggregateAt, type DecodedBlock, lowerBound, type ReadingColumns } from "./block.ts";

/** A register's aggregate columns, allocated with its first aggregate (about 28 bytes a reading more). */
class TailAggregates implements AggregateColumns {
  constructor(
    public samples: Int32Array,
    public min: Float64Array,
    public max: Float64Array,
    public mean: Float64Array,
  ) {}

  static sized(size: number): TailAggregates {
    return new TailAggregates(
      new Int32Array(size),
      new Float64Array(size),
      new Float64Array(size),
      new Float64Array(size),
    );
  }

  copyWithin(target: number, start: number, end: number): void {
    this.samples.copyWithin(target, start, end);
    this.min.copyWithin(target, start, end);
    this.max.copyWithin(target, start, end);
    this.mean.copyWithin(target, start, end);
  }

  set(index: number, aggregate: ReadingAggregate | null): void {
    this.samples[index] = aggregate?.samples ?? 0;
    this.min[index] = aggregate?.rawMin ?? 0;
    this.max[index] = aggregate?.rawMax ?? 0;
    this.mean[index] = aggregate?.rawMean ?? 0;
  }

  grown(size: number): TailAggregates {
    const next = TailAggregates.sized(size);
    next.samples.set(this.samples);
    next.min.set(this.min);
    next.max.set(this.max);
    next.mean.set(this.mean);
    return next;
  }
}

export class RegisterTail implements ReadingColumns {
  ts = new Int32Array(16);
  values = new Float64Array(16);
  nullFlags = new Uint8Array(16);
  count = 0;
  private nullCount = 0;
  aggregates: TailAggregates | null = null;

  get nulls(): Uint8Array | null {
    return this.nullCount === 0 ? null : this.nullFlags;
  }

  /** The aggregate of reading `index`, or null. */
  aggregate(index: number): ReadingAggregate | null {
    return aggregateAt(this.aggregates, index);
  }

  /** Attaches `aggregate` to the reading at `seconds`; false when none is held there. */
  setAggregate(seconds: number, aggregate: ReadingAggregate | null): boolean {
    const at = this.lowerBound(seconds);
    if (at >= this.count || this.ts[at] !== seconds) return false;
    if (aggregate === null && this.aggregates === null) return true;
    if (this.aggregates === null) this.aggregates = TailAggregates.sized(this.ts.length);
    this.aggregates.set(at, aggregate);
    return true;
  }

  /** Index of the first reading at or after `seconds`. */
  lowerBound(seconds: number): number {
    return lowerBound(this.ts, this.count, seconds);
  }

  has(seconds: number): boolean {
    const at = this.lowerBound(seconds);
    return at < this.count && this.ts[at] === seconds;
  }

  /** Adds a reading unless one is already held for that second (the first one stays). */
  insert(seconds: number, raw: number | null, aggregate: ReadingAggregate | null = null): boolean {
    const at =
      this.count === 0 || (this.ts[this.count - 1] as number) < seconds ? this.count : this.lowerBound(seconds);
    if (at < this.count && this.ts[at] === seconds) return false;
    if (this.count === this.ts.length) this.grow();
    if (at < this.count) {
      this.ts.copyWithin(at + 1, at, this.count);
      this.values.copyWithin(at + 1, at, this.count);
      this.nullFlags.copyWithin(at + 1, at, this.count);
      this.aggregates?.copyWithin(at + 1, at, this.count);
    }
    if (aggregate !== null && this.aggregates === null) this.aggregates = TailAggregates.sized(this.ts.length);
    this.aggregates?.set(at, aggregate);
    this.ts[at] = seconds;
    this.values[at] = raw ?? 0;
    this.nullFlags[at] = raw === null ? 1 : 0;
    if (raw === null) this.nullCount++;
    this.count++;
    return true;
  }

  /** Removes the readings before `seconds`; returns how many. */
  dropBefore(seconds: number): number {
    const cut = this.lowerBound(seconds);
    if (cut === 0) return 0;
    for (let index = 0; index < cut; index++) this.nullCount -= this.nullFlags[index] as number;
    this.ts.copyWithin(0, cut, this.count);
    this.values.copyWithin(0, cut, this.count);
    this.nullFlags.copyWithin(0, cut, this.count);
    this.aggregates?.copyWithin(0, cut, this.count);
    this.count -= cut;
    return cut;
  }

  raw(index: number): number | null {
    return this.nullFlags[index] === 1 ? null : (this.values[index] as number);
  }

  private grow(): void {
    const size = this.ts.length * 2;
    const ts = new Int32Array(size);
    ts.set(this.ts);
    const values = new Float64Array(size);
    values.set(this.values);
    const nullFlags = new Uint8Array(size);
    nullFlags.set(this.nullFlags);
    this.ts = ts;
    this.values = values;
    this.nullFlags = nullFlags;
    this.aggregates = this.aggregates?.grown(size) ?? null;
  }
}

export class OpenTail {
  readonly registers = new Map<number, RegisterTail>();

  of(registerId: number): RegisterTail | undefined {
    return this.registers.get(registerId);
  }

  insert(registerId: number, seconds: number, raw: number | null, aggregate: ReadingAggregate | null = null): boolean {
    let tail = this.registers.get(registerId);
    if (tail === undefined) {
      tail = new RegisterTail();
      this.registers.set(registerId, tail);
    }
    return tail.insert(seconds, raw, aggregate);
  }

  clear(): void {
    this.registers.clear();
  }

  has(registerId: number, seconds: number): boolean {
    return this.registers.get(registerId)?.has(seconds) ?? false;
  }

  dropBefore(seconds: number): number {
    let dropped = 0;
    for (const [registerId, tail] of this.registers) {
      dropped += tail.dropBefore(seconds);
      if (tail.count === 0) this.registers.delete(registerId);
    }
    return dropped;
  }

  countBefore(seconds: number): number {
    let count = 0;
    for (const tail of this.registers.values()) count += tail.lowerBound(seconds);
    return count;
  }

  /** The earliest second held, or null when empty. */
  earliest(): number | null {
    let earliest: number | null = null;
    for (const tail of this.registers.values()) {
      const first = tail.ts[0] as number;
      if (tail.count > 0 && (earliest === null || first < earliest)) earliest = first;
    }
    return earliest;
  }
}

/** A block's readings added to `into` (a reading already held for its second stays), aggregates with them. */
export function addBlock(into: RegisterTail, block: DecodedBlock, from = 0): void {
  for (let index = from; index < block.count; index++) {
    into.insert(
      block.ts[index] as number,
      block.nulls?.[index] === 1 ? null : (block.values[index] as number),
      aggregateAt(block.aggregates, index),
    );
  }
}
