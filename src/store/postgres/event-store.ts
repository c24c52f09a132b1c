/**
 * The event outbox on PostgreSQL (docs/api.md section 6), the same semantics as
 * ../sqlite/events.ts: an event and its messages, one per subscribed endpoint, commit
 * together, so every message is in the store before any delivery starts.
 */
import { newMessageId } from "../../lib/crypto.ts";
import type { RecordableEvent } from "../contract/events.ts";
import {
  type EventStore,
  type EventType,
  type NewEvent,
  type OutboxEvent,
  positionKey,
  type RecordedEvent,
  testEventType,
} from "../contract/events.ts";
import type { Sql } from "./connection.ts";
import { firstOf } from "./rows.ts";

/** Records an event with its fan-out inside the caller's transaction `tx`. */
export async function recordEventIn(
  tx: Sql,
  event: RecordableEvent,
  now = event.occurredAt,
): Promise<{ messageId: string; eventId: number }> {
  const messageId = event.messageId ?? newMessageId();
  const [row] = (await tx`
    INSERT INTO events (message_id, org_id, type, occurred_at, data)
    VALUES (${messageId}, ${event.orgId}, ${event.type}, ${event.occurredAt}, ${JSON.stringify(event.data)})
    ON CONFLICT (message_id) DO NOTHING
    RETURNING id`) as { id: number }[];
  // A forwarded event already recorded (../sqlite/events.ts, NewEvent.messageId): nothing to fan out again.
  if (row === undefined) return { messageId, eventId: 0 };
  const eventId = row.id;
  // Held while an endpoint is paused, due at once otherwise (as on SQLite).
  if (event.type !== testEventType) {
    await tx`
      INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_attempt_at, created_at)
      SELECT id, ${eventId}, CASE status WHEN 'paused' THEN 'held' ELSE 'pending' END, ${now}, ${now}
        FROM webhook_endpoints
       WHERE org_id = ${event.orgId} AND deleted_at IS NULL
         AND (event_types = '' OR position(' ' || ${event.type}::text || ' ' IN ' ' || event_types || ' ') > 0)`;
  }
  return { messageId, eventId };
}

export function postgresEventStore(sql: Sql): EventStore {
  function record(event: NewEvent, now?: number): Promise<{ messageId: string; eventId: number }> {
    return sql.begin((tx) => recordEventIn(tx, event, now));
  }

  async function listAfter(orgId: number, afterId = 0): Promise<RecordedEvent[]> {
    const rows = (await sql`
      SELECT id, message_id AS "messageId", type, occurred_at AS "occurredAt", data
        FROM events WHERE org_id = ${orgId} AND id > ${afterId} ORDER BY id`) as EventRow[];
    return rows.map(({ id: _id, ...row }) => parsed(row));
  }

  async function alertEventsAfter(afterId: number, limit: number): Promise<(RecordedEvent & { id: number })[]> {
    const rows = (await sql`
      SELECT id, message_id AS "messageId", type, occurred_at AS "occurredAt", data
        FROM events WHERE id > ${afterId} AND type LIKE 'alert.%' ORDER BY id LIMIT ${limit}`) as EventRow[];
    return rows.map((row) => ({ ...parsed(row), id: Number(row.id) }));
  }

  async function eventsAfter(afterId: number, limit: number): Promise<OutboxEvent[]> {
    const rows = (await sql`
      SELECT id, org_id AS "orgId", message_id AS "messageId", type, occurred_at AS "occurredAt", data
        FROM events WHERE id > ${afterId} ORDER BY id LIMIT ${limit}`) as (EventRow & { orgId: number | string })[];
    return rows.map((row) => ({ ...parsed(row), id: Number(row.id), orgId: Number(row.orgId) }));
  }

  async function countAfter(afterId: number, cap: number): Promise<number> {
    const row = await firstOf<{ count: number | string }>(
      sql`SELECT count(*)::int AS count FROM (SELECT 1 FROM events WHERE id > ${afterId} LIMIT ${cap}) AS waiting`,
    );
    return Number(row?.count ?? 0);
  }

  async function positionOf(publisher: string): Promise<number> {
    const key = positionKey(publisher);
    // A first ask starts at the end of the outbox (contract/events.ts).
    await sql`
      INSERT INTO store_meta (key, value) SELECT ${key}, coalesce(max(id), 0)::text FROM events
      ON CONFLICT (key) DO NOTHING`;
    const row = await firstOf<{ value: string }>(sql`SELECT value FROM store_meta WHERE key = ${key}`);
    return row === null ? 0 : Number(row.value);
  }

  async function savePosition(publisher: string, eventId: number): Promise<void> {
    await sql`
      INSERT INTO store_meta (key, value) VALUES (${positionKey(publisher)}, ${String(eventId)})
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
  }

  return { record, listAfter, alertEventsAfter, eventsAfter, countAfter, positionOf, savePosition };
}

type EventRow = { id: number | string; messageId: string; type: EventType; occurredAt: string; data: string };

const parsed = (row: Omit<EventRow, "id">): RecordedEvent => ({
  messageId: row.messageId,
  type: row.type,
  occurredAt: Number(row.occurredAt),
  data: JSON.parse(row.data) as Record<string, unknown>,
});
