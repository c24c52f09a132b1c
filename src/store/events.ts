/** Recording events in the outbox (spec section 6), inside the caller's transaction. */
import { randomHex } from "../lib/ids.ts";
import type { Store } from "./open.ts";

export const eventTypes = [
  "device.online",
  "device.offline",
  "alert.triggered",
  "alert.returned",
  "alert.acknowledged",
  "alert.resolved",
  "automation.triggered",
] as const;
export type EventType = (typeof eventTypes)[number];

export interface NewEvent {
  orgId: number;
  type: EventType;
  occurredAt: number;
  data: Record<string, unknown>;
}

export interface RecordedEvent {
  messageId: string;
  type: EventType;
  occurredAt: number;
  data: Record<string, unknown>;
}

/** `msg_<hex>`: the id every delivery of the event carries (spec section 6, Envelope). */
export function newMessageId(): string {
  return `msg_${randomHex(16)}`;
}

export function eventQueries(store: Store) {
  const insert = store.sqlite.prepare<never, [string, number, string, number, string]>(
    "INSERT INTO events (message_id, org_id, type, occurred_at, data) VALUES (?1, ?2, ?3, ?4, ?5)",
  );
  const since = store.sqlite.prepare<
    { messageId: string; type: EventType; occurredAt: number; data: string },
    [number, number]
  >(
    `SELECT message_id AS messageId, type, occurred_at AS occurredAt, data
       FROM events WHERE org_id = ?1 AND id > ?2 ORDER BY id`,
  );
  return {
    /** Call inside the transaction that makes the change the event reports. */
    record(event: NewEvent): string {
      const messageId = newMessageId();
      insert.run(messageId, event.orgId, event.type, event.occurredAt, JSON.stringify(event.data));
      return messageId;
    },
    /** Events of an organisation after a given row id, oldest first (for tests and the dispatcher). */
    listAfter(orgId: number, afterId = 0): RecordedEvent[] {
      return since.all(orgId, afterId).map((row) => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }));
    },
  };
}
export type EventQueries = ReturnType<typeof eventQueries>;
