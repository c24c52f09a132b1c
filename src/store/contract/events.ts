/** The events domain of the store contract: the webhook outbox (docs/api.md section 6). */
import type { EventType, TypedEvent } from "./event-types.ts";

export { type EventType, eventTypes, testEventType } from "./event-types.ts";

/** An event to record: its type and data built by its constructor (event-types.ts). */
export type NewEvent = TypedEvent & {
  orgId: number;
  occurredAt: number;
  /**
   * An event a site recorded and forwards keeps the site's message id, so a
   * receiver sees one webhook-id for it wherever it was delivered (docs/fleet.md,
   * "Alerts"); recording it again records nothing. Others get a new id.
   */
  messageId?: string;
};

/** An event as recorded (its data as stored; a site's forwarded one as the site built it). */
export interface RecordedEvent {
  messageId: string;
  type: EventType;
  occurredAt: number;
  data: Record<string, unknown>;
}

export interface EventStore {
  /**
   * Records an event and queues it for every endpoint that subscribed, in one
   * transaction. The test message is not fanned out: it is delivered to the one
   * endpoint asked (WebhookStore.queueMessage).
   */
  record(event: NewEvent, now?: number): Promise<{ messageId: string; eventId: number }>;
  /** Events of an organisation after a given row id, oldest first (for tests and the dispatcher). */
  listAfter(orgId: number, afterId?: number): Promise<RecordedEvent[]>;
  /**
   * Alert events (`alert.*`) of every organisation after row id `afterId`, oldest
   * first, at most `limit`, each with its row id: what a site forwards to its
   * central (docs/fleet.md, "Alerts").
   */
  alertEventsAfter(afterId: number, limit: number): Promise<(RecordedEvent & { id: number })[]>;
  /**
   * Events of every organisation after row id `afterId`, oldest first, at most
   * `limit`, each with its row id and organisation: what a publisher other than
   * webhooks (MQTT, docs/mqtt.md) sends from its own position.
   */
  eventsAfter(afterId: number, limit: number): Promise<OutboxEvent[]>;
  /** How many events there are after row id `afterId`, counting at most `cap` (a publisher's backlog). */
  countAfter(afterId: number, cap: number): Promise<number>;
  /**
   * A publisher's position in the outbox: the row id of the last event it sent. A
   * publisher asking for the first time starts at the end of the outbox (the events
   * before it was configured are not replayed), and that position is kept.
   */
  positionOf(publisher: string): Promise<number>;
  /** Notes that `publisher` has sent every event up to row id `eventId`. */
  savePosition(publisher: string, eventId: number): Promise<void>;
}

/** An event with its row id and organisation, as a publisher reads the outbox. */
export type OutboxEvent = RecordedEvent & { id: number; orgId: number };

/** Where a publisher's position is kept in store_meta (both engines). */
export const positionKey = (publisher: string) => `outbox-position:${publisher}`;

/** A new event, or one a site forwards as it recorded it (AlertStore.applyForwarded). */
export type RecordableEvent = NewEvent | (RecordedEvent & { orgId: number });
