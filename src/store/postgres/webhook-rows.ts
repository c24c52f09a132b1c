/**
 * Rows of the webhook tables as the store interfaces give them (../sqlite/webhooks.ts):
 * PostgreSQL returns `bigint` columns (the millisecond times) as strings, read here
 * as numbers.
 */
import type { DeliveryListing, DueDelivery, EndpointRow } from "../contract/webhooks.ts";

type Raw<T> = {
  [K in keyof T]: T[K] extends number ? number | string : T[K] extends number | null ? number | string | null : T[K];
};

const num = (value: number | string): number => Number(value);
const numOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

export const endpointColumns = `e.id, e.uuid, e.org_id AS "orgId",
  (SELECT o.key FROM organizations o WHERE o.id = e.org_id) AS "orgKey",
  e.url, e.description, e.event_types AS "eventTypes", e.status, e.paused_at AS "pausedAt",
  e.pause_reason AS "pauseReason", e.secret, e.previous_secret AS "previousSecret",
  e.previous_secret_until AS "previousSecretUntil", e.failed_messages_in_row AS "failedMessagesInRow",
  e.rate_limit_per_s AS "rateLimitPerS", e.created_at AS "createdAt"`;

export function endpointFrom(row: Raw<EndpointRow>): EndpointRow {
  return {
    ...row,
    pausedAt: numOrNull(row.pausedAt),
    previousSecretUntil: numOrNull(row.previousSecretUntil),
    createdAt: num(row.createdAt),
  } as EndpointRow;
}

/** A claimed message as the dispatcher gets it, with when it was due (for the order). */
export type ClaimedRow = Raw<DueDelivery> & { nextAttemptAt: number | string };

export function dueFrom(row: ClaimedRow): DueDelivery {
  return {
    id: row.id as number,
    endpointId: row.endpointId as number,
    attempts: row.attempts as number,
    messageId: row.messageId,
    type: row.type,
    occurredAt: num(row.occurredAt),
    data: row.data,
  };
}

export function listingFrom(row: Raw<DeliveryListing>): DeliveryListing {
  return {
    ...row,
    nextAttemptAt: numOrNull(row.nextAttemptAt),
    createdAt: num(row.createdAt),
    completedAt: numOrNull(row.completedAt),
  } as DeliveryListing;
}

export { num, numOrNull, type Raw };
