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
import { decodeBlock } from "../history/block.ts";
import { boundSeconds, type ReadingsPage, type ReadingsPageQuery, readingEpochMs, storedSeconds } from "../readings.ts";
import { periodSeconds } from "./blocks.ts";
import type { Sql } from "./connection.ts";

type Order = "asc" | "desc";
type Reading = { registerId: number; seconds: number; raw: number | null };
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

type BlockHit = { register_id: number; start_s: number; data: Uint8Array };

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
    SELECT true AS block, b.register_id, b.start_s AS s, NULL::float8 AS raw, b.data
      FROM q CROSS JOIN LATERAL (
        SELECT register_id, start_s, data FROM history_blocks
         WHERE register_id = q.id AND start_s >= q.from_s AND start_s < q.high AND last_s >= q.low
         ORDER BY start_s ${direction} LIMIT $5) b`;
  const tailPart = `
    SELECT false, t.register_id, t.ts_s, t.raw_value, NULL::bytea
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
    raw: number | null;
    data: Uint8Array | null;
  }[];
  const blocks: BlockHit[] = [];
  const tail: { register_id: number; s: number; raw: number | null }[] = [];
  for (const row of rows) {
    if (row.block) blocks.push({ register_id: row.register_id, start_s: row.s, data: row.data as Uint8Array });
    else tail.push({ register_id: row.register_id, s: row.s, raw: row.raw });
  }
  return { blocks, tail };
}

/** Up to `limit` readings of the registers within their bounds, merged in (seconds, register id) order. */
export async function readPage(sql: Sql, allBounds: Bounds[], order: Order, limit: number): Promise<Reading[]> {
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
          seconds: row.s,
          raw: row.raw,
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
        const block = decodeBlock(hit.start_s, hit.data);
        const step = ascending ? 1 : -1;
        for (let at = ascending ? 0 : block.count - 1; at >= 0 && at < block.count && rows.length < limit; at += step) {
          const seconds = block.ts[at] as number;
          if (seconds < b.low || seconds >= b.high) continue;
          rows.push({
            registerId: b.registerId,
            seconds,
            raw: block.nulls?.[at] === 1 ? null : (block.values[at] as number),
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
    ascending
      ? a.seconds - b.seconds || a.registerId - b.registerId
      : b.seconds - a.seconds || b.registerId - a.registerId;
  const merged: Reading[] = [];
  for (const b of bounds) {
    const blockRows = fromBlocks.get(b.registerId) as Reading[];
    const tailRows = fromTail.get(b.registerId) as Reading[];
    let i = 0;
    let j = 0;
    let taken = 0;
    while (taken < limit && (i < blockRows.length || j < tailRows.length)) {
      const x = blockRows[i];
      const y = tailRows[j];
      if (y === undefined || (x !== undefined && before(x, y) < 0)) {
        merged.push(x as Reading);
        i++;
      } else if (x === undefined || before(y, x) < 0) {
        merged.push(y);
        j++;
      } else {
        merged.push(x);
        i++;
        j++;
      }
      taken++;
    }
  }
  merged.sort(before);
  if (merged.length > limit) merged.length = limit;
  return merged;
}

export async function page(sql: Sql, query: ReadingsPageQuery): Promise<ReadingsPage> {
  const found = await readPage(sql, pageBounds(query), query.order, query.limit + 1);
  const hasMore = found.length > query.limit;
  if (hasMore) found.length = query.limit;
  return {
    rows: found.map((row) => ({
      registerId: row.registerId,
      ts: row.seconds * 1000 + readingEpochMs,
      rawValue: row.raw,
    })),
    hasMore,
  };
}
