/**
 * A keyset page of readings on PostgreSQL (spec section 4, rules 1 to 3), with the
 * semantics of the SQLite engine's page (../history/page.ts): `since` inclusive,
 * `until` exclusive, ordered by (ts, register id) either way, strictly after the
 * cursor. One statement reads, in one snapshot, each register's first blocks and
 * first tail rows of its window in the page's order (a LATERAL per register on its
 * key); a register whose blocks run out before the page is full gets more blocks.
 * A second held both in a block and in the tail (a resend not yet compacted) is
 * the block's: it was stored first.
 */
import { type DecodedBlock, decodeBlock } from "../history/block.ts";
import {
  boundSeconds,
  type ReadingRow,
  type ReadingsPage,
  type ReadingsPageQuery,
  readingEpochMs,
  storedSeconds,
} from "../readings.ts";
import { periodSeconds } from "./blocks.ts";
import type { Sql } from "./connection.ts";

type Order = "asc" | "desc";
type Reading = ReadingRow;
const msOf = (seconds: number) => seconds * 1000 + readingEpochMs;
type Bounds = { registerId: number; low: number; high: number };

const int32 = (value: number) => Math.max(-2_147_483_648, Math.min(2_147_483_647, value));

/** Each register's [low, high) in stored seconds: the window narrowed by the cursor (as ../history/history.ts). */
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
    const key = `${hit.register_id}/${hit.start_s}/${hit.last_s}/${hit.count}`;
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
): Promise<{ blocks: BlockHit[]; tail: { register_id: number; s: number; raw: number | null }[] }> {
  const direction = order === "asc" ? "ASC" : "DESC";
  const ids = bounds.map((b) => b.registerId);
  const lows = bounds.map((b) => int32(b.low));
  const highs = bounds.map((b) => int32(b.high));
  // A block never spans a period, so the one holding `low` starts in low's period.
  const froms = bounds.map((b) => int32(b.from));
  const blockPart = `
    SELECT true AS block, b.register_id, b.start_s AS s, b.last_s, b.count, NULL::float8 AS raw, b.data
      FROM q CROSS JOIN LATERAL (
        SELECT register_id, start_s, last_s, count, data FROM history_blocks
         WHERE register_id = q.id AND start_s >= q.from_s AND start_s < q.high AND last_s >= q.low
         ORDER BY start_s ${direction} LIMIT $5) b`;
  const tailPart = `
    SELECT false, t.register_id, t.ts_s, 0, 0, t.raw_value, NULL::bytea
      FROM q CROSS JOIN LATERAL (
        SELECT register_id, ts_s, raw_value FROM history_tail
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
  }[];
  const blocks: BlockHit[] = [];
  const tail: { register_id: number; s: number; raw: number | null }[] = [];
  for (const row of rows) {
    if (row.block) {
      blocks.push({
        register_id: row.register_id,
        start_s: row.s,
        last_s: row.last_s,
        count: row.count,
        data: row.data as Uint8Array,
      });
    } else tail.push({ register_id: row.register_id, s: row.s, raw: row.raw });
  }
  return { blocks, tail };
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
  const fromBlocks = new Map<number, Reading[]>();
  const fromTail = new Map<number, Reading[]>();
  for (const b of bounds) {
    fromBlocks.set(b.registerId, []);
    fromTail.set(b.registerId, []);
  }
  let pending = bounds;
  let first = true;
  while (pending.length > 0) {
    const { blocks, tail } = await fetch(sql, pending, order, perRegister, first ? limit : null);
    if (first) {
      for (const row of tail) {
        (fromTail.get(row.register_id) as Reading[]).push({
          registerId: row.register_id,
          ts: msOf(row.s),
          rawValue: row.raw,
        });
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
      const rows = fromBlocks.get(b.registerId) as Reading[];
      for (const hit of list) {
        if (rows.length >= limit) break;
        const block = decoded.of(hit);
        const step = ascending ? 1 : -1;
        for (let at = ascending ? 0 : block.count - 1; at >= 0 && at < block.count && rows.length < limit; at += step) {
          const seconds = block.ts[at] as number;
          if (seconds < b.low || seconds >= b.high) continue;
          rows.push({
            registerId: b.registerId,
            ts: msOf(seconds),
            rawValue: block.nulls?.[at] === 1 ? null : (block.values[at] as number),
          });
        }
      }
      const last = list[list.length - 1];
      if (rows.length < limit && list.length === perRegister && last !== undefined) {
        // Its blocks ran out before the page did: the next ones, past the last fetched.
        more.push(ascending ? { ...b, from: last.start_s + 1 } : { ...b, high: last.start_s });
      }
    }
    pending = more;
  }
  const before = (a: Reading, b: Reading) =>
    ascending ? a.ts - b.ts || a.registerId - b.registerId : b.ts - a.ts || b.registerId - a.registerId;
  const lists: Reading[][] = [];
  for (const b of bounds) {
    const one = dedupe(
      fromBlocks.get(b.registerId) as Reading[],
      fromTail.get(b.registerId) as Reading[],
      before,
      limit,
    );
    if (one.length > 0) lists.push(one);
  }
  return mergeLists(lists, before, limit);
}

/** One register's rows from blocks and tail in page order, a second held by both taken from the block (stored first). */
function dedupe(blockRows: Reading[], tailRows: Reading[], before: (a: Reading, b: Reading) => number, limit: number) {
  if (tailRows.length === 0) return blockRows;
  if (blockRows.length === 0) return tailRows;
  const rows: Reading[] = [];
  let i = 0;
  let j = 0;
  while (rows.length < limit && (i < blockRows.length || j < tailRows.length)) {
    const x = blockRows[i];
    const y = tailRows[j];
    if (y === undefined || (x !== undefined && before(x, y) < 0)) {
      rows.push(x as Reading);
      i++;
    } else if (x === undefined || before(y, x) < 0) {
      rows.push(y);
      j++;
    } else {
      rows.push(x);
      i++;
      j++;
    }
  }
  return rows;
}

/** The first `limit` rows of lists each in page order, merged through a heap of their heads. */
function mergeLists(lists: Reading[][], before: (a: Reading, b: Reading) => number, limit: number): Reading[] {
  if (lists.length === 1) return (lists[0] as Reading[]).slice(0, limit);
  const heads = lists.map(() => 0);
  const head = (list: number) => (lists[list] as Reading[])[heads[list] as number] as Reading;
  const heap = lists.map((_, index) => index);
  const less = (a: number, b: number) => before(head(a), head(b)) < 0;
  const siftDown = (start: number) => {
    let at = start;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let best = at;
      if (left < heap.length && less(heap[left] as number, heap[best] as number)) best = left;
      if (right < heap.length && less(heap[right] as number, heap[best] as number)) best = right;
      if (best === at) return;
      [heap[at], heap[best]] = [heap[best] as number, heap[at] as number];
      at = best;
    }
  };
  for (let index = (heap.length >>> 1) - 1; index >= 0; index--) siftDown(index);
  const rows: Reading[] = [];
  while (rows.length < limit && heap.length > 0) {
    const top = heap[0] as number;
    rows.push(head(top));
    heads[top] = (heads[top] as number) + 1;
    if ((heads[top] as number) >= (lists[top] as Reading[]).length) {
      const last = heap.pop() as number;
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
