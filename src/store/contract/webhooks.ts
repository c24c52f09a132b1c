/** The webhooks domain of the store contract: endpoints, their messages (deliveries) and the attempts log (docs/webhooks.md). */
import { type PauseReason, webhookEndpointPaused } from "./event-types.ts";
import type { NewEvent } from "./events.ts";

export const endpointStatuses = ["enabled", "paused"] as const;
export type EndpointStatus = (typeof endpointStatuses)[number];

export const deliveryStatuses = ["pending", "held", "delivered", "failed", "discarded"] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export interface EndpointRow {
  id: number;
  uuid: string;
  orgId: number;
  orgKey: string;
  url: string;
  description: string | null;
  eventTypes: string;
  status: EndpointStatus;
  pausedAt: number | null;
  pauseReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: number | null;
  failedMessagesInRow: number;
  /** Deliveries a second at most (docs/webhooks.md, "Pacing"); null: unlimited. */
  rateLimitPerS: number | null;
  createdAt: number;
}

/** A message due for an attempt, with what it takes to send it. */
export interface DueDelivery {
  id: number;
  endpointId: number;
  attempts: number;
  messageId: string;
  type: string;
  occurredAt: number;
  data: string;
}

/** Deliveries by status; `retrying`: those of `pending` that had a failed attempt already. */
export type DeliveryCounts = Record<DeliveryStatus, number> & { retrying: number };

/** No deliveries yet: every count 0. */
export function noDeliveries(): DeliveryCounts {
  return {
    ...(Object.fromEntries(deliveryStatuses.map((status) => [status, 0])) as Record<DeliveryStatus, number>),
    retrying: 0,
  };
}

export interface DeliveryListing {
  id: number;
  messageId: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  createdAt: number;
  completedAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
}

export interface AttemptRow {
  attemptedAt: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

/** How one attempt at a message ended, as the dispatcher judged it. */
export type AttemptOutcome =
  | { kind: "delivered" }
  | { kind: "retry"; at: number }
  | { kind: "failed"; pauseAfter: number }
  | { kind: "gone" };

export interface NewEndpoint {
  uuid: string;
  orgId: number;
  url: string;
  description: string | null;
  /** Space-separated event types; empty: every type. */
  eventTypes: string;
  secret: string;
  /** Absent: unlimited. */
  rateLimitPerS?: number | null;
  now: number;
}

/** The fields of an endpoint an update may change; absent ones stay. */
export interface EndpointChanges {
  url?: string;
  description?: string | null;
  eventTypes?: string;
  rateLimitPerS?: number | null;
}

/** One attempt's outcome to settle (`settle`, `settleAll`). */
export interface Settlement {
  delivery: DueDelivery;
  attempt: AttemptRow;
  outcome: AttemptOutcome;
}

/** Which of an endpoint's messages a resend takes (docs/webhooks.md, "Resending a time range"). */
export const resendStatuses = ["failed", "delivered", "all"] as const;
export type ResendStatus = (typeof resendStatuses)[number];

export interface ResendRange {
  /** The messages' `timestamp` (when the event happened), ms: since inclusive, until exclusive. */
  since: number;
  until: number;
  /** `delivered`: the endpoint took it at least once; `failed`: it never did (failed or discarded); `all`: both. */
  status: ResendStatus;
}

/** What settling an attempt did: whether it paused the endpoint, and whether it was written at all. */
export interface SettleOutcome {
  paused: boolean;
  settled: boolean;
}

/**
 * The `webhook_endpoint.paused` event that the settle pausing an endpoint records
 * in its transaction (both engines), for the organisation's other endpoints.
 */
export function endpointPausedEvent(
  endpoint: Pick<EndpointRow, "uuid" | "orgId" | "url" | "description">,
  attempt: Pick<AttemptRow, "attemptedAt" | "statusCode">,
  reason: PauseReason,
  failedMessages: number,
): NewEvent {
  return {
    orgId: endpoint.orgId,
    occurredAt: attempt.attemptedAt,
    ...webhookEndpointPaused({
      endpoint,
      reason,
      failedMessages,
      lastStatusCode: attempt.statusCode,
      pausedAt: attempt.attemptedAt,
    }),
  };
}

export interface WebhookStore {
  createEndpoint(values: NewEndpoint): Promise<void>;
  endpoint(uuid: string): Promise<EndpointRow | null>;
  /** Also a deleted endpoint, whose delivery log stays readable. */
  endpointEvenDeleted(uuid: string): Promise<EndpointRow | null>;
  endpointById(id: number): Promise<EndpointRow | null>;
  /** Endpoints not deleted, oldest first. */
  endpoints(): Promise<EndpointRow[]>;
  updateEndpoint(id: number, fields: EndpointChanges): Promise<void>;
  /** Deleting keeps the row (its log stays readable) and discards what was still to be sent. */
  deleteEndpoint(id: number, now: number): Promise<void>;
  rotateSecret(id: number, secret: string, previous: string, previousUntil: number): Promise<void>;
  /** Enables a paused endpoint; its held messages are sent from now on, or discarded. Returns how many. */
  enable(id: number, now: number, discardHeld: boolean): Promise<number>;
  /** A message whose endpoint is paused (held) or gone (discarded) when its turn came. */
  setAside(deliveryId: number, status: "held" | "discarded", now: number): Promise<void>;
  /** Queues an event already recorded for one endpoint (a resend). */
  enqueue(endpointId: number, eventId: number, now: number): Promise<number>;
  /**
   * Queues again, in one transaction, the endpoint's finished messages in `range`
   * (oldest first; a message still pending or held is on its way and skipped).
   * Returns the new deliveries' ids.
   */
  resendRange(endpointId: number, range: ResendRange, now: number): Promise<number[]>;
  /** How many of these deliveries are in each status (a resend's progress). */
  deliveryStatusCounts(deliveryIds: readonly number[]): Promise<DeliveryCounts>;
  /** Records an event for one endpoint only, with its message, in one transaction (the test message). */
  queueMessage(endpointId: number, event: NewEvent): Promise<{ messageId: string; eventId: number }>;
  eventIdOfMessage(orgId: number, messageId: string): Promise<number | null>;
  /** Messages due for an attempt at `now`, soonest first. */
  due(now: number, limit: number): Promise<DueDelivery[]>;
  /** Endpoints with a message due at `now`, the one whose oldest due message is soonest first. */
  dueEndpoints(now: number): Promise<number[]>;
  /** One endpoint's messages due at `now`, soonest first (the dispatcher serves endpoints in turn: docs/webhooks.md). */
  dueFor(endpointId: number, now: number, limit: number): Promise<DueDelivery[]>;
  /** When the next pending message is due, or null when none is. */
  nextDueAt(): Promise<number | null>;
  recordAttempt(deliveryId: number, attempt: AttemptRow): Promise<void>;
  /**
   * One attempt's outcome, its log line and the endpoint's failure count (pausing
   * it), in one transaction. `settled: false` when the message is no longer this
   * process's to settle (PostgreSQL: its lease ran out and another process took it
   * over, docs/fleet.md "Webhook leases"); nothing is written then.
   */
  settle(delivery: DueDelivery, attempt: AttemptRow, outcome: AttemptOutcome): Promise<SettleOutcome>;
  /** Settles many attempts as `settle` does each, in one transaction, in order; their outcomes in the same order. */
  settleAll(settlements: readonly Settlement[]): Promise<SettleOutcome[]>;
  /** An endpoint's messages, newest first, with their last attempt's result. */
  deliveries(endpointId: number, limit: number): Promise<DeliveryListing[]>;
  attempts(deliveryId: number): Promise<AttemptRow[]>;
  /**
   * The delivery log's own retention: attempts and messages completed before
   * `cutoff`, then events older than it that no message refers to any more.
   */
  pruneLog(cutoff: number): Promise<{ attempts: number; deliveries: number; events: number }>;
  pendingCount(): Promise<number>;
}
