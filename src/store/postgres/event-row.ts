/**
 * The event row a lifecycle change writes in its own transaction (spec section 6:
 * no change without its event). A plain INSERT into `events` as its table stands at
 * this step; the outbox's recorder (event-store.ts, `recordEventIn`, which also
 * queues the event for every subscribed endpoint) takes its place when the webhook
 * layer is merged: this function is the one place to swap.
 */
import { newMessageId } from "../../lib/crypto.ts";
import type { NewEvent } from "../events.ts";
import type { Sql } from "./connection.ts";

export async function insertEvent(tx: Sql, event: NewEvent): Promise<{ messageId: string; eventId: number }> {
  const messageId = newMessageId();
  const [row] = (await tx`
    INSERT INTO events (message_id, org_id, type, occurred_at, data)
    VALUES (${messageId}, ${event.orgId}, ${event.type}, ${event.occurredAt}, ${JSON.stringify(event.data)})
    RETURNING id`) as { id: number }[];
  return { messageId, eventId: row?.id ?? 0 };
}
