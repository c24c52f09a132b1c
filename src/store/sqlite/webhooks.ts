/** Webhook endpoints, their messages (deliveries) and the attempts log. */

import { type PauseReason, pauseReasonText } from "../contract/event-types.ts";
import type { NewEvent } from "../contract/events.ts";
import {
  type AttemptOutcome,
  type AttemptRow,
  type DeliveryCounts,
  type DeliveryListing,
  type DeliveryStatus,
  type DueDelivery,
  type EndpointChanges,
  type EndpointRow,
  endpointPausedEvent,
  noDeliveries,
  type ResendRange,
  type Settlement,
  type SettleOutcome,
  type WebhookStore,
} from "../contract/webhooks.ts";
import type { SqliteConnection } from "./connection.ts";
import type { EventRecorder } from "./events.ts";
import { resolvedOperations } from "./resolved-operations.ts";

const endpointColumns = `e.id AS id, e.uuid AS uuid, e.org_id AS orgId,
  (SELECT o.key FROM organizations o WHERE o.id = e.org_id) AS orgKey,
  e.url AS url, e.description AS description, e.event_types AS eventTypes, e.status AS status,
  e.paused_at AS pausedAt, e.pause_reason AS pauseReason, e.secret AS secret,
  e.previous_secret AS previousSecret, e.previous_secret_until AS previousSecretUntil,
  e.failed_messages_in_row AS failedMessagesInRow, e.rate_limit_per_s AS rateLimitPerS, e.created_at AS createdAt`;

export function sqliteWebhookStore({ sqlite }: SqliteConnection, recordEvent: EventRecorder): WebhookStore {
  const insertEndpoint = sqlite.prepare<
    never,
    [string, number, string, string | null, string, string, number | null, number]
  >(
    `INSERT INTO webhook_endpoints (uuid, org_id, url, description, event_types, secret, rate_limit_per_s, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`,
  );
  const endpointByUuid = sqlite.prepare<EndpointRow, [string]>(
    `SELECT ${endpointColumns} FROM webhook_endpoints e WHERE e.uuid = ?1 AND e.deleted_at IS NULL`,
  );
  const anyEndpointByUuid = sqlite.prepare<EndpointRow, [string]>(
    `SELECT ${endpointColumns} FROM webhook_endpoints e WHERE e.uuid = ?1`,
  );
  const endpointById = sqlite.prepare<EndpointRow, [number]>(
    `SELECT ${endpointColumns} FROM webhook_endpoints e WHERE e.id = ?1`,
  );
  const endpointsAll = sqlite.prepare<EndpointRow, []>(
    `SELECT ${endpointColumns} FROM webhook_endpoints e WHERE e.deleted_at IS NULL ORDER BY e.created_at, e.id`,
  );
  // Pending messages are found endpoint by endpoint (webhook_deliveries_endpoint_due): an index on
  // (status, next_attempt_at) would be moved by every settle, and cost it a quarter of its time.
  const due = sqlite.prepare<DueDelivery, [number, number]>(
    `SELECT d.id AS id, d.endpoint_id AS endpointId, d.attempts AS attempts, v.message_id AS messageId,
            v.type AS type, v.occurred_at AS occurredAt, v.data AS data
       FROM webhook_endpoints e
       JOIN webhook_deliveries d ON d.id IN (
              SELECT x.id FROM webhook_deliveries x
               WHERE x.endpoint_id = e.id AND x.status = 'pending' AND x.next_attempt_at <= ?1
               ORDER BY x.next_attempt_at, x.id LIMIT ?2)
       JOIN events v ON v.id = d.event_id
      ORDER BY d.next_attempt_at, d.id
      LIMIT ?2`,
  );
  // One index seek per endpoint (webhook_deliveries_endpoint_due) rather than a scan of every due message.
  const dueEndpoints = sqlite.prepare<{ endpointId: number }, [number]>(
    `SELECT endpointId FROM (
       SELECT e.id AS endpointId,
              (SELECT d.next_attempt_at FROM webhook_deliveries d
                WHERE d.endpoint_id = e.id AND d.status = 'pending'
                ORDER BY d.next_attempt_at LIMIT 1) AS first
         FROM webhook_endpoints e)
      WHERE first <= ?1
      ORDER BY first, endpointId`,
  );
  const dueFor = sqlite.prepare<DueDelivery, [number, number, number]>(
    `SELECT d.id AS id, d.endpoint_id AS endpointId, d.attempts AS attempts, v.message_id AS messageId,
            v.type AS type, v.occurred_at AS occurredAt, v.data AS data
       FROM webhook_deliveries d
       JOIN events v ON v.id = d.event_id
      WHERE d.endpoint_id = ?1 AND d.status = 'pending' AND d.next_attempt_at <= ?2
      ORDER BY d.next_attempt_at, d.id
      LIMIT ?3`,
  );
  const nextDueAt = sqlite.prepare<{ at: number | null }, []>(
    `SELECT min((SELECT d.next_attempt_at FROM webhook_deliveries d
                  WHERE d.endpoint_id = e.id AND d.status = 'pending'
                  ORDER BY d.next_attempt_at LIMIT 1)) AS at
       FROM webhook_endpoints e`,
  );
  const pendingCount = sqlite.prepare<{ n: number }, []>(
    `SELECT coalesce(sum((SELECT count(*) FROM webhook_deliveries d
                           WHERE d.endpoint_id = e.id AND d.status = 'pending')), 0) AS n
       FROM webhook_endpoints e`,
  );
  const insertAttempt = sqlite.prepare<never, [number, number, number | null, number, string | null, string | null]>(
    `INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_excerpt)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
  );
  const markDelivered = sqlite.prepare<never, [number, number]>(
    "UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, next_attempt_at = NULL, completed_at = ?2 WHERE id = ?1",
  );
  const markRetry = sqlite.prepare<never, [number, number]>(
    "UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?2 WHERE id = ?1",
  );
  const markFailed = sqlite.prepare<never, [number, number]>(
    "UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, next_attempt_at = NULL, completed_at = ?2 WHERE id = ?1",
  );
  const resetFailures = sqlite.prepare<never, [number]>(
    "UPDATE webhook_endpoints SET failed_messages_in_row = 0 WHERE id = ?1 AND failed_messages_in_row <> 0",
  );
  const countFailure = sqlite.prepare<{ failed: number }, [number]>(
    "UPDATE webhook_endpoints SET failed_messages_in_row = failed_messages_in_row + 1 WHERE id = ?1 RETURNING failed_messages_in_row AS failed",
  );
  const pause = sqlite.prepare<never, [number, number, string]>(
    "UPDATE webhook_endpoints SET status = 'paused', paused_at = ?2, pause_reason = ?3 WHERE id = ?1 AND status = 'enabled'",
  );
  // Messages already due wait while the endpoint is paused.
  const holdPending = sqlite.prepare<never, [number]>(
    "UPDATE webhook_deliveries SET status = 'held' WHERE endpoint_id = ?1 AND status = 'pending'",
  );
  // The paused endpoint is told nothing about its own pause.
  const skipPausedEndpoint = sqlite.prepare<never, [number, number]>(
    "DELETE FROM webhook_deliveries WHERE event_id = ?1 AND endpoint_id = ?2",
  );

  const enqueue = (endpointId: number, eventId: number, now: number): number =>
    Number(
      sqlite.run(
        `INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_attempt_at, created_at)
         SELECT id, ?, CASE status WHEN 'paused' THEN 'held' ELSE 'pending' END, ?, ? FROM webhook_endpoints WHERE id = ?`,
        [eventId, now, now, endpointId],
      ).lastInsertRowid,
    );

  /**
   * Pauses the endpoint, holds its due messages and records `webhook_endpoint.paused`
   * for the organisation's other endpoints, inside settle's transaction. Whether this
   * call paused it: of attempts in flight together, only the first pauses and tells.
   */
  const pauseWithEvent = (delivery: DueDelivery, attempt: AttemptRow, reason: PauseReason, failed: number): boolean => {
    const at = attempt.attemptedAt;
    if (pause.run(delivery.endpointId, at, pauseReasonText(reason, failed)).changes === 0) return false;
    holdPending.run(delivery.endpointId);
    const endpoint = endpointById.get(delivery.endpointId);
    if (endpoint === null) return true;
    const { eventId } = recordEvent(endpointPausedEvent(endpoint, attempt, reason, failed));
    skipPausedEndpoint.run(eventId, delivery.endpointId);
    return true;
  };

  /**
   * One process serves a box: its claim on a message is never lost, so every settle is written.
   * `countZero`: endpoints whose failure count an earlier settle of the same transaction left at
   * 0, so a delivery there need not reset it again.
   */
  const settleOne = ({ delivery, attempt, outcome }: Settlement, countZero = new Set<number>()): SettleOutcome => {
    insertAttempt.run(
      delivery.id,
      attempt.attemptedAt,
      attempt.statusCode,
      attempt.durationMs,
      attempt.error,
      attempt.responseExcerpt,
    );
    if (outcome.kind === "delivered") {
      markDelivered.run(delivery.id, attempt.attemptedAt);
      if (!countZero.has(delivery.endpointId)) resetFailures.run(delivery.endpointId);
      countZero.add(delivery.endpointId);
      return { paused: false, settled: true };
    }
    if (outcome.kind === "retry") {
      markRetry.run(delivery.id, outcome.at);
      return { paused: false, settled: true };
    }
    markFailed.run(delivery.id, attempt.attemptedAt);
    countZero.delete(delivery.endpointId);
    if (outcome.kind === "gone") {
      const failed = (endpointById.get(delivery.endpointId)?.failedMessagesInRow ?? 0) + 1;
      return { paused: pauseWithEvent(delivery, attempt, "gone", failed), settled: true };
    }
    const failed = countFailure.get(delivery.endpointId)?.failed ?? 0;
    if (failed >= outcome.pauseAfter) {
      return { paused: pauseWithEvent(delivery, attempt, "failed_messages", failed), settled: true };
    }
    return { paused: false, settled: true };
  };

  // A message is one event; an earlier resend gives it several deliveries to the endpoint, judged together.
  const resendRange = sqlite.prepare<{ id: number }, [number, number, number, string, number]>(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_attempt_at, created_at)
     SELECT e.id, m.event_id, CASE e.status WHEN 'paused' THEN 'held' ELSE 'pending' END, ?5, ?5
       FROM (SELECT d.event_id, v.occurred_at,
                    max(d.status = 'delivered') AS delivered, max(d.status IN ('pending', 'held')) AS open
               FROM webhook_deliveries d JOIN events v ON v.id = d.event_id
              WHERE d.endpoint_id = ?1 AND v.occurred_at >= ?2 AND v.occurred_at < ?3
              GROUP BY d.event_id) m
       JOIN webhook_endpoints e ON e.id = ?1
      WHERE m.open = 0 AND (?4 = 'all' OR (?4 = 'delivered') = (m.delivered = 1))
      ORDER BY m.occurred_at, m.event_id
     RETURNING id`,
  );

  return resolvedOperations<WebhookStore>({
    createEndpoint(values) {
      insertEndpoint.run(
        values.uuid,
        values.orgId,
        values.url,
        values.description,
        values.eventTypes,
        values.secret,
        values.rateLimitPerS ?? null,
        values.now,
      );
    },
    endpoint(uuid: string): EndpointRow | null {
      return endpointByUuid.get(uuid);
    },
    /** Also a deleted endpoint, whose delivery log stays readable. */
    endpointEvenDeleted(uuid: string): EndpointRow | null {
      return anyEndpointByUuid.get(uuid);
    },
    /** A message whose endpoint is paused (held) or gone (discarded) when its turn came. */
    setAside(deliveryId: number, status: "held" | "discarded", now: number) {
      sqlite.run(
        "UPDATE webhook_deliveries SET status = ?, next_attempt_at = NULL, completed_at = CASE WHEN ? = 'discarded' THEN ? END WHERE id = ?",
        [status, status, now, deliveryId],
      );
    },
    endpointById(id: number): EndpointRow | null {
      return endpointById.get(id);
    },
    endpoints(): EndpointRow[] {
      return endpointsAll.all();
    },
    updateEndpoint(id: number, fields: EndpointChanges) {
      if (fields.url !== undefined) sqlite.run("UPDATE webhook_endpoints SET url = ? WHERE id = ?", [fields.url, id]);
      if (fields.description !== undefined) {
        sqlite.run("UPDATE webhook_endpoints SET description = ? WHERE id = ?", [fields.description, id]);
      }
      if (fields.eventTypes !== undefined) {
        sqlite.run("UPDATE webhook_endpoints SET event_types = ? WHERE id = ?", [fields.eventTypes, id]);
      }
      if (fields.rateLimitPerS !== undefined) {
        sqlite.run("UPDATE webhook_endpoints SET rate_limit_per_s = ? WHERE id = ?", [fields.rateLimitPerS, id]);
      }
    },
    /** Deleting keeps the row (its log stays readable) and discards what was still to be sent. */
    deleteEndpoint: sqlite.transaction((id: number, now: number) => {
      sqlite.run("UPDATE webhook_endpoints SET deleted_at = ? WHERE id = ?", [now, id]);
      sqlite.run(
        "UPDATE webhook_deliveries SET status = 'discarded', next_attempt_at = NULL, completed_at = ? WHERE endpoint_id = ? AND status IN ('pending', 'held')",
        [now, id],
      );
    }),
    rotateSecret(id: number, secret: string, previous: string, previousUntil: number) {
      sqlite.run(
        "UPDATE webhook_endpoints SET secret = ?, previous_secret = ?, previous_secret_until = ? WHERE id = ?",
        [secret, previous, previousUntil, id],
      );
    },
    /** Enables a paused endpoint; its held messages are sent from now on, or discarded. Returns how many. */
    enable: sqlite.transaction((id: number, now: number, discardHeld: boolean): number => {
      sqlite.run(
        "UPDATE webhook_endpoints SET status = 'enabled', paused_at = NULL, pause_reason = NULL, failed_messages_in_row = 0 WHERE id = ?",
        [id],
      );
      return discardHeld
        ? sqlite.run(
            "UPDATE webhook_deliveries SET status = 'discarded', next_attempt_at = NULL, completed_at = ? WHERE endpoint_id = ? AND status = 'held'",
            [now, id],
          ).changes
        : sqlite.run(
            "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ? WHERE endpoint_id = ? AND status = 'held'",
            [now, id],
          ).changes;
    }),
    enqueue,
    queueMessage: sqlite.transaction((endpointId: number, event: NewEvent) => {
      const recorded = recordEvent(event);
      enqueue(endpointId, recorded.eventId, event.occurredAt);
      return recorded;
    }),
    eventIdOfMessage(orgId: number, messageId: string): number | null {
      return (
        sqlite
          .query<{ id: number }, [number, string]>("SELECT id FROM events WHERE org_id = ? AND message_id = ?")
          .get(orgId, messageId)?.id ?? null
      );
    },
    due(now: number, limit: number): DueDelivery[] {
      return due.all(now, limit);
    },
    dueEndpoints(now: number): number[] {
      return dueEndpoints.all(now).map((row) => row.endpointId);
    },
    dueFor(endpointId: number, now: number, limit: number): DueDelivery[] {
      return dueFor.all(endpointId, now, limit);
    },
    nextDueAt(): number | null {
      return nextDueAt.get()?.at ?? null;
    },
    recordAttempt(deliveryId: number, attempt: AttemptRow) {
      insertAttempt.run(
        deliveryId,
        attempt.attemptedAt,
        attempt.statusCode,
        attempt.durationMs,
        attempt.error,
        attempt.responseExcerpt,
      );
    },
    /** One attempt's outcome, its log line and the endpoint's failure count, in one transaction. */
    settle: sqlite.transaction(
      (delivery: DueDelivery, attempt: AttemptRow, outcome: AttemptOutcome): SettleOutcome =>
        settleOne({ delivery, attempt, outcome }),
    ),
    /** Many outcomes in one transaction (the dispatcher settles what finished together). */
    settleAll: sqlite.transaction((settlements: readonly Settlement[]): SettleOutcome[] => {
      const countZero = new Set<number>();
      return settlements.map((settlement) => settleOne(settlement, countZero));
    }),
    resendRange: sqlite.transaction((endpointId: number, range: ResendRange, now: number): number[] =>
      resendRange.all(endpointId, range.since, range.until, range.status, now).map((row) => row.id),
    ),
    deliveryStatusCounts(deliveryIds: readonly number[]): DeliveryCounts {
      const counts = noDeliveries();
      for (let from = 0; from < deliveryIds.length; from += 500) {
        const chunk = deliveryIds.slice(from, from + 500);
        const rows = sqlite
          .query<{ status: DeliveryStatus; tried: number; n: number }, number[]>(
            `SELECT status, attempts > 0 AS tried, count(*) AS n FROM webhook_deliveries
              WHERE id IN (${chunk.map(() => "?").join(",")}) GROUP BY status, tried`,
          )
          .all(...chunk);
        for (const row of rows) {
          counts[row.status] += row.n;
          if (row.status === "pending" && row.tried === 1) counts.retrying += row.n;
        }
      }
      return counts;
    },
    deliveries(endpointId: number, limit: number): DeliveryListing[] {
      return sqlite
        .query<DeliveryListing, [number, number]>(
          `SELECT d.id AS id, v.message_id AS messageId, v.type AS type, d.status AS status, d.attempts AS attempts,
                  d.next_attempt_at AS nextAttemptAt, d.created_at AS createdAt, d.completed_at AS completedAt,
                  (SELECT a.status_code FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1) AS lastStatusCode,
                  (SELECT a.error FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1) AS lastError
             FROM webhook_deliveries d JOIN events v ON v.id = d.event_id
            WHERE d.endpoint_id = ?1 ORDER BY d.id DESC LIMIT ?2`,
        )
        .all(endpointId, limit);
    },
    attempts(deliveryId: number): AttemptRow[] {
      return sqlite
        .query<AttemptRow, [number]>(
          `SELECT attempted_at AS attemptedAt, status_code AS statusCode, duration_ms AS durationMs, error,
                  response_excerpt AS responseExcerpt
             FROM webhook_attempts WHERE delivery_id = ? ORDER BY id`,
        )
        .all(deliveryId);
    },
    /**
     * The delivery log's own retention: attempts and messages completed before
     * `cutoff`, then events older than it that no message refers to any more.
     */
    pruneLog: sqlite.transaction((cutoff: number): { attempts: number; deliveries: number; events: number } => {
      const attempts = sqlite.run(
        "DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE completed_at < ?)",
        [cutoff],
      ).changes;
      const deliveries = sqlite.run("DELETE FROM webhook_deliveries WHERE completed_at < ?", [cutoff]).changes;
      const events = sqlite.run(
        "DELETE FROM events WHERE occurred_at < ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id)",
        [cutoff],
      ).changes;
      return { attempts, deliveries, events };
    }),
    pendingCount(): number {
      return pendingCount.get()?.n ?? 0;
    },
  });
}
