/**
 * A keyset page of readings on PostgreSQL (docs/api.md section 4.6, rules 1 to 3), with the
 * semantics of the SQLite engine's page (../codec/page.ts): `since` inclusive,
 * `until` exclusive, ordered by (ts, register id) either way, strictly after the
 * cursor. One statement reads, in one snapshot, each register's first blocks and
 * first tail rows of its window in the page's order (a LATERAL per register on its
 * key); a register whose blocks run out before the page is full gets more blocks.
 * A second held both in a block and in the tail (a resend not yet compacted) is
 * the block's: it was stored first.
 */
import { aggregateAt, type DecodedBlock, decodeBlock, lowerBound } from "../codec/block.ts";
import {
  boundSeconds,
  type ReadingAggregate,
  type ReadingRow,
  type ReadingsPage,
  type ReadingsPageQuery,
  readingEpochMs,
  storedSeconds,
} from "../contract/readings.ts";
import { periodSeconds } from "./blocks.ts";
import type { Sql } from "./connection.ts";

type Order = "asc" | "desc";
type Reading = ReadingRow;
const msOf = (seconds: number) => seconds * 1000 + readingEpochMs;
type Bounds = { registerId: number; low: number; high: number };

const int32 = (value: number) => Math.max(-2_147_483_648, Math.min(2_147_483_647, value));

/** Each register's [low, high) in stored seconds: the window narrowed by the cursor (as ../sqlite/history/history.ts). */
export function pageBounds(query: ReadingsPageQuery): Bounds[] {
  const since = boundSeconds(query.since);
  const until = boundSeconds(query.until);
  const after = query.after;
  const cursor = after === null ? 0 : storedSeconds(after.ts);
  return query.registerIds.map((registerId) => {
    if (after === null) return { registerId, low: since, high: until };
    if (query.order === "asc") {
      const low = registerId > after.registerId ? cursor : cursor + 1;
      return { registerId, low: Math.max(since, low), high: until };
    }
    const high = registerId < after.registerId ? cursor + 1 : cursor;
    return { registerId, low: since, high: Math.min(until, high) };
  });
}

type BlockHit = { register_id: number; start_s: number; last_s: number; count: number; data: Uint8Array };
type TailHit = { register_id: number; s: number; raw: number | null; aggregate: ReadingAggregate | null };
type TailHeld = { seconds: number[]; raws: (number | null)[]; aggregates: (ReadingAggregate | null)[] };

/**
 * Decoded blocks kept for paging, so a cursor walk does not decode the same block
 * for every page. Keyed by (register, start, last, count), which names a block's
 * content: a register's readings in a span only grow (a second's first value stays)
 * and retention changes a cut block's start, so a rewritten block has another key.
 */
export class DecodedBlocks {
  private readonly cache = new Map<string, DecodedBlock>();
  constructor(private readonly size = 512) {}

  of(hit: BlockHit): DecodedBlock {
    // A block re-encoded with an aggregate (aggregates.ts) keeps its key, not its length.
    const key = `${hit.register_id}/${hit.start_s}/${hit.last_s}/${hit.count}/${hit.data.length}`;
    const found = this.cache.get(key);
    if (found !== undefined) {
      this.cache.delete(key);
      this.cache.set(key, found);
      return found;
    }
    const block = decodeBlock(hit.start_s, hit.data);
    this.cache.set(key, block);
    if (this.cache.size > this.size) this.cache.delete(this.cache.keys().next().value as string);
    return block;
  }
}

/** Up to `perRegister` blocks of each register overlapping its [low, high), in `order`, and (with `tailLimit`) its first tail rows. */
async function fetch(
  sql: Sql,
  bounds: (Bounds & { from: number })[],
  order: Order,
  perRegister: number,
  tailLimit: number | null,
): Promise<{ blocks: BlockHit[]; tail: TailHit[] }> {
  const direction = order === "asc" ? "ASC" : "DESC";
  const ids = bounds.map((b) => b.registerId);
  const lows = bounds.map((b) => int32(b.low));
  const highs = bounds.map((b) => int32(b.high));
  // A block never spans a period, so the one holding `low` starts in low's period.
  const froms = bounds.map((b) => int32(b.from));
  const blockPart = `
    SELECT true AS block, b.register_id, b.start_s AS s, b.last_s, b.count, NULL::float8 AS raw, b.data,
      NULL::float8 AS raw_min, NULL::float8 AS raw_max, NULL::float8 AS raw_mean, NULL::int AS samples
      FROM q CROSS JOIN LATERAL (
        SELECT register_id, start_s, last_s, count, data FROM history_blocks
         WHERE register_id = q.id AND start_s >= q.from_s AND start_s < q.high AND last_s >= q.low
         ORDER BY start_s ${direction} LIMIT $5) b`;
  const tailPart = `
    SELECT false, t.register_id, t.ts_s, 0, 0, t.raw_value, NULL::bytea, t.raw_min, t.raw_max, t.raw_mean, t.samples
      FROM q CROSS JOIN LATERAL (
        SELECT register_id, ts_s, raw_value, raw_min, raw_max, raw_mean, samples FROM history_tail
         WHERE register_id = q.id AND ts_s >= q.low AND ts_s < q.high
         ORDER BY ts_s ${direction} LIMIT $6) t`;
  const text = `WITH q AS (SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::int[]) AS q(id, low, high, from_s))
    ${blockPart}${tailLimit === null ? "" : ` UNION ALL ${tailPart}`}`;
  const params: unknown[] = [ids, lows, highs, froms, perRegister];
  if (tailLimit !== null) params.push(tailLimit);
  const rows = (await sql.unsafe(text, params)) as {
    block: boolean;
    register_id: number;
    s: number;
    last_s: number;
    count: number;
    raw: number | null;
    data: Uint8Array | null;
    raw_min: number | null;
    raw_max: number | null;
    raw_mean: number | null;
    samples: number | null;
  }[];
  const blocks: BlockHit[] = [];
  const tail: TailHit[] = [];
  for (const row of rows) {
    if (row.block) {
      blocks.push({
        register_id: row.register_id,
        start_s: row.s,
        last_s: row.last_s,
        count: row.count,
        data: row.data as Uint8Array,
      });
    } else {
      const { raw_min: rawMin, raw_max: rawMax, raw_mean: rawMean, samples } = row;
      const aggregate =
        samples === null || rawMin === null || rawMax === null || rawMean === null
          ? null
          : { rawMin, rawMax, rawMean, samples };
      tail.push({ register_id: row.register_id, s: row.s, raw: row.raw, aggregate });
    }
  }
  return { blocks, tail };
}

/** A block of a register, decoded only when a page reaches it: its readings inside [low, high) are [from, to). */
class Slice {
  private value: { block: DecodedBlock; from: number; to: number } | null = null;

  constructor(
    private readonly hit: BlockHit,
    private readonly decoded: DecodedBlocks,
    private readonly low: number,
    private readonly high: number,
  ) {}

  /** Readings inside the bounds, known without decoding when the block lies wholly inside them. */
  get knownCount(): number | null {
    return this.hit.start_s >= this.low && this.hit.last_s < this.high ? this.hit.count : null;
  }

  get(): { block: DecodedBlock; from: number; to: number } {
    if (this.value === null) {
      const block = this.decoded.of(this.hit);
      this.value = {
        block,
        from: lowerBound(block.ts, block.count, this.low),
        to: lowerBound(block.ts, block.count, this.high),
      };
    }
    return this.value;
  }
}

/**
 * Walks one register's readings in page order over its block slices and its tail
 * rows; a second held by both is the block's (stored first).
 */
class RegisterCursor {
  seconds = 0;
  raw: number | null = null;
  aggregate: ReadingAggregate | null = null;
  private slice = -1;
  private at = 0;
  private tailAt = 0;

  constructor(
    readonly registerId: number,
    private readonly slices: Slice[],
    private readonly tailSeconds: number[],
    private readonly tailRaws: (number | null)[],
    private readonly tailAggregates: (ReadingAggregate | null)[],
    private readonly ascending: boolean,
  ) {
    this.enterNextSlice();
  }

  /** Moves to the next slice with readings inside the bounds (decoding it), or past the last. */
  private enterNextSlice(): void {
    for (this.slice++; this.slice < this.slices.length; this.slice++) {
      const { from, to } = (this.slices[this.slice] as Slice).get();
      if (to > from) {
        this.at = this.ascending ? from : to - 1;
        return;
      }
    }
  }

  private blockHead(): number | null {
    const slice = this.slices[this.slice];
    return slice === undefined ? null : (slice.get().block.ts[this.at] as number);
  }

  private nextInBlocks(): void {
    const { from, to } = (this.slices[this.slice] as Slice).get();
    this.at += this.ascending ? 1 : -1;
    if (this.at < from || this.at >= to) this.enterNextSlice();
  }

  /** Moves to the next reading; false when there is none. */
  advance(): boolean {
    const fromBlock = this.blockHead();
    const fromTail = this.tailSeconds[this.tailAt];
    if (fromBlock === null && fromTail === undefined) return false;
    const tailFirst =
      fromBlock === null || (fromTail !== undefined && (this.ascending ? fromTail < fromBlock : fromTail > fromBlock));
    if (tailFirst) {
      this.seconds = fromTail as number;
      this.raw = this.tailRaws[this.tailAt] ?? null;
      this.aggregate = this.tailAggregates[this.tailAt] ?? null;
      this.tailAt++;
      return true;
    }
    const { block } = (this.slices[this.slice] as Slice).get();
    this.seconds = fromBlock;
    this.raw = block.nulls?.[this.at] === 1 ? null : (block.values[this.at] as number);
    this.aggregate = aggregateAt(block.aggregates, this.at);
    if (fromTail === fromBlock) this.tailAt++;
    this.nextInBlocks();
    return true;
  }
}

/** Up to `limit` readings of the registers within their bounds, merged in (ts, register id) order. */
export async function readPage(
  sql: Sql,
  decoded: DecodedBlocks,
  allBounds: Bounds[],
  order: Order,
  limit: number,
): Promise<Reading[]> {
  const ascending = order === "asc";
  const bounds = allBounds
    .filter((b) => b.high > b.low)
    .map((b) => ({ ...b, from: Math.floor(b.low / periodSeconds) * periodSeconds }));
  if (bounds.length === 0 || limit <= 0) return [];
  const perRegister = 2 + Math.ceil(limit / 240);
  const slices = new Map<number, { list: Slice[]; count: number }>();
  const tails = new Map<number, TailHeld>();
  for (const b of bounds) {
    slices.set(b.registerId, { list: [], count: 0 });
    tails.set(b.registerId, { seconds: [], raws: [], aggregates: [] });
  }
  let pending = bounds;
  let first = true;
  while (pending.length > 0) {
    const { blocks, tail } = await fetch(sql, pending, order, perRegister, first ? limit : null);
    if (first) {
      for (const row of tail) {
        const held = tails.get(row.register_id) as TailHeld;
        held.seconds.push(row.s);
        held.raws.push(row.raw);
        held.aggregates.push(row.aggregate);
      }
    }
    first = false;
    const fetched = new Map<number, BlockHit[]>();
    for (const block of blocks) {
      const list = fetched.get(block.register_id) ?? [];
      list.push(block);
      fetched.set(block.register_id, list);
    }
    const more: typeof pending = [];
    for (const b of pending) {
      const list = fetched.get(b.registerId) ?? [];
      const held = slices.get(b.registerId) as { list: Slice[]; count: number };
      for (const hit of list) {
        if (held.count >= limit) break;
        // Only a block at the window's edge is decoded to count what it holds inside.
        const slice = new Slice(hit, decoded, b.low, b.high);
        const known = slice.knownCount;
        const { from, to } = known === null ? slice.get() : { from: 0, to: known };
        if (to <= from) continue;
        held.list.push(slice);
        held.count += to - from;
      }
      const last = list[list.length - 1];
      if (held.count < limit && list.length === perRegister && last !== undefined) {
        // Its blocks ran out before the page did: the next ones, past the last fetched.
        more.push(ascending ? { ...b, from: last.start_s + 1 } : { ...b, high: last.start_s });
      }
    }
    pending = more;
  }
  const heap: RegisterCursor[] = [];
  for (const b of bounds) {
    const tail = tails.get(b.registerId) as TailHeld;
    const list = (slices.get(b.registerId) as { list: Slice[] }).list;
    const cursor = new RegisterCursor(b.registerId, list, tail.seconds, tail.raws, tail.aggregates, ascending);
    if (cursor.advance()) heap.push(cursor);
  }
  const before = (a: RegisterCursor, b: RegisterCursor) =>
    ascending
      ? a.seconds < b.seconds || (a.seconds === b.seconds && a.registerId < b.registerId)
      : a.seconds > b.seconds || (a.seconds === b.seconds && a.registerId > b.registerId);
  const siftDown = (start: number) => {
    let at = start;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let best = at;
      if (left < heap.length && before(heap[left] as RegisterCursor, heap[best] as RegisterCursor)) best = left;
      if (right < heap.length && before(heap[right] as RegisterCursor, heap[best] as RegisterCursor)) best = right;
      if (best === at) return;
      [heap[at], heap[best]] = [heap[best] as RegisterCursor, heap[at] as RegisterCursor];
      at = best;
    }
  };
  for (let index = (heap.length >>> 1) - 1; index >= 0; index--) siftDown(index);
  const rows: Reading[] = [];
  while (rows.length < limit && heap.length > 0) {
    const top = heap[0] as RegisterCursor;
    const row: ReadingRow = { registerId: top.registerId, ts: msOf(top.seconds), rawValue: top.raw };
    if (top.aggregate !== null) row.aggregate = top.aggregate;
    rows.push(row);
    if (!top.advance()) {
      const last = heap.pop() as RegisterCursor;
      if (heap.length === 0) break;
      heap[0] = last;
    }
    siftDown(0);
  }
  return rows;
}

export async function page(sql: Sql, decoded: DecodedBlocks, query: ReadingsPageQuery): Promise<ReadingsPage> {
  const found = await readPage(sql, decoded, pageBounds(query), query.order, query.limit + 1);
  const hasMore = found.length > query.limit;
  if (hasMore) found.length = query.limit;
  return { rows: found, hasMore };
}
