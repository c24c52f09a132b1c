/** The webhook outbox (docs/api.md section 6): events, each fanned out to the endpoints that subscribed. */
import { eq } from "drizzle-orm";
import { newMessageId } from "../../lib/crypto.ts";
import type { RecordableEvent } from "../contract/events.ts";
import { type EventStore, type EventType, type NewEvent, positionKey, testEventType } from "../contract/events.ts";
import type { SqliteConnection } from "./connection.ts";
import { resolvedOperations } from "./resolved-operations.ts";
import { storeMeta } from "./schema.ts";

/** `eventId` 0: an event forwarded with a message id already recorded, nothing fanned out again. */
export type EventRecorder = (event: RecordableEvent, now?: number) => { messageId: string; eventId: number };

/**
 * Records an event with its fan-out inside the caller's transaction: the store's
 * other domains use it so a change and its event commit together.
 */
export function sqliteEventRecorder({ sqlite }: SqliteConnection): EventRecorder {
  const insert = sqlite.prepare<never, [string, number, string, number, string]>(
    `INSERT INTO events (message_id, org_id, type, occurred_at, data) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (message_id) DO NOTHING`,
  );
  // The message for every endpoint that subscribed, in the event's own transaction:
  // held while an endpoint is paused, due at once otherwise. One row per statement:
  // an INSERT ... SELECT of several rows inside a transaction keeps a statement
  // journal, which SQLite writes to a temporary file (a write per event on the SD
  // card, and a third of a record's time; docs/benchmarks.md, webhook delivery).
  const subscribers = sqlite.prepare<{ id: number; status: string }, [number, string]>(
    `SELECT id, CASE status WHEN 'paused' THEN 'held' ELSE 'pending' END AS status FROM webhook_endpoints
      WHERE org_id = ?1 AND deleted_at IS NULL
        AND (event_types = '' OR instr(' ' || event_types || ' ', ' ' || ?2 || ' ') > 0)`,
  );
  const insertDelivery = sqlite.prepare<never, [number, number, string, number]>(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_attempt_at, created_at)
     VALUES (?1, ?2, ?3, ?4, ?4)`,
  );
  const fanOut = (eventId: number, orgId: number, type: string, now: number): void => {
    for (const endpoint of subscribers.all(orgId, type)) insertDelivery.run(endpoint.id, eventId, endpoint.status, now);
  };
  return (event, now = event.occurredAt) => {
    const messageId = event.messageId ?? newMessageId();
    const inserted = insert.run(messageId, event.orgId, event.type, event.occurredAt, JSON.stringify(event.data));
    if (inserted.changes === 0) return { messageId, eventId: 0 };
    const eventId = Number(inserted.lastInsertRowid);
    if (event.type !== testEventType) fanOut(eventId, event.orgId, event.type, now);
    return { messageId, eventId };
  };
}

export function sqliteEventStore(connection: SqliteConnection, recordEvent: EventRecorder): EventStore {
  const since = connection.sqlite.prepare<
    { messageId: string; type: EventType; occurredAt: number; data: string },
    [number, number]
  >(
    `SELECT message_id AS messageId, type, occurred_at AS occurredAt, data
       FROM events WHERE org_id = ?1 AND id > ?2 ORDER BY id`,
  );
  const alertEvents = connection.sqlite.prepare<
    { id: number; messageId: string; type: EventType; occurredAt: number; data: string },
    [number, number]
  >(
    `SELECT id, message_id AS messageId, type, occurred_at AS occurredAt, data
       FROM events WHERE id > ?1 AND type LIKE 'alert.%' ORDER BY id LIMIT ?2`,
  );
  const allEvents = connection.sqlite.prepare<
    { id: number; orgId: number; messageId: string; type: EventType; occurredAt: number; data: string },
    [number, number]
  >(
    `SELECT id, org_id AS orgId, message_id AS messageId, type, occurred_at AS occurredAt, data
       FROM events WHERE id > ?1 ORDER BY id LIMIT ?2`,
  );
  const waiting = connection.sqlite.prepare<{ count: number }, [number, number]>(
    "SELECT count(*) AS count FROM (SELECT 1 FROM events WHERE id > ?1 LIMIT ?2)",
  );
  const { db } = connection;
  // A first ask starts at the end of the outbox (contract/events.ts, positionOf).
  const startAtEnd = connection.sqlite.prepare<never, [string]>(
    `INSERT INTO store_meta (key, value) SELECT ?1, CAST(coalesce(max(id), 0) AS TEXT) FROM events WHERE true
     ON CONFLICT (key) DO NOTHING`,
  );
  return resolvedOperations<EventStore>({
    record: connection.sqlite.transaction((event: NewEvent, now?: number) => recordEvent(event, now)),
    listAfter(orgId, afterId = 0) {
      return since
        .all(orgId, afterId)
        .map((row) => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }));
    },
    alertEventsAfter(afterId, limit) {
      return alertEvents
        .all(afterId, limit)
        .map((row) => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }));
    },
    eventsAfter(afterId, limit) {
      return allEvents
        .all(afterId, limit)
        .map((row) => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }));
    },
    countAfter(afterId, cap) {
      return waiting.get(afterId, cap)?.count ?? 0;
    },
    positionOf: connection.sqlite.transaction((publisher: string) => {
      const key = positionKey(publisher);
      startAtEnd.run(key);
      const row = db.select({ value: storeMeta.value }).from(storeMeta).where(eq(storeMeta.key, key)).get();
      return Number(row?.value ?? 0);
    }),
    savePosition(publisher, eventId) {
      db.insert(storeMeta)
        .values({ key: positionKey(publisher), value: String(eventId) })
        .onConflictDoUpdate({ target: storeMeta.key, set: { value: String(eventId) } })
        .run();
    },
  });
}
