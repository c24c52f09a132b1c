/**
 * Webhook endpoints, their messages and the attempts log on PostgreSQL: the
 * semantics of ../sqlite/webhooks.ts, plus leases, because several central processes
 * share one outbox (docs/fleet.md, "Webhook leases").
 *
 * - Taking due messages (`due`, `dueFor`) claims them: the rows get this store's
 *   owner id and a lease end, in one statement (`FOR UPDATE SKIP LOCKED`), so two
 *   processes never take the same message. Other processes skip a claimed message
 *   until its lease has passed; its holder gets it again (the dispatcher filters
 *   what it has in flight, as on SQLite) and renews the lease doing so.
 * - Settling checks the claim is still its own (owner and attempt count): a
 *   process whose lease ran out and whose message another process took and
 *   settled changes nothing, so it never overwrites the newer outcome.
 * - A process killed mid-delivery leaves its claims behind; they are taken again
 *   when their lease ends (at least once, docs/api.md section 6.4, rule 4: same webhook-id).
 *
 * Lock order is endpoint row, then message rows, in every transaction that takes
 * both (settle, deleteEndpoint, enable), so concurrent settles cannot deadlock.
 */
import { randomUUID } from "node:crypto";
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
  type NewEndpoint,
  noDeliveries,
  type ResendRange,
  type Settlement,
  type SettleOutcome,
  type WebhookStore,
} from "../contract/webhooks.ts";
import type { Sql } from "./connection.ts";
import { recordEventIn } from "./event-store.ts";
import {
  type ClaimedRow,
  dueFrom,
  endpointColumns,
  endpointFrom,
  listingFrom,
  num,
  numOrNull,
} from "./webhook-rows.ts";

export interface PostgresWebhookStoreOptions {
  /** How long a claim holds (ms; default 60 s, six times the 10 s answer time of docs/api.md section 6.4). */
  leaseMs?: number;
  /** This process's id on its claims (default a random one per store). */
  owner?: string;
}

const defaultLeaseMs = 60_000;

/** A settle that brings its endpoint to a pause (the `index`th of its batch). */
interface Pause {
  index: number;
  endpointId: number;
  attempt: AttemptRow;
  reason: PauseReason;
  failed: number;
}
/** SQLSTATE of a deadlock: the transaction was rolled back and is safe to run again. */
const deadlockDetected = "40P01";

export function postgresWebhookStore(sql: Sql, options: PostgresWebhookStoreOptions = {}): WebhookStore {
  const owner = options.owner ?? randomUUID();
  const leaseMs = options.leaseMs ?? defaultLeaseMs;

  async function createEndpoint(values: NewEndpoint): Promise<void> {
    await sql`
      INSERT INTO webhook_endpoints (uuid, org_id, url, description, event_types, secret, rate_limit_per_s, created_at)
      VALUES (${values.uuid}, ${values.orgId}, ${values.url}, ${values.description}, ${values.eventTypes},
              ${values.secret}, ${values.rateLimitPerS ?? null}, ${values.now})`;
  }

  function endpoint(uuid: string): Promise<EndpointRow | null> {
    return oneEndpoint("e.uuid = $1 AND e.deleted_at IS NULL", uuid);
  }

  function endpointEvenDeleted(uuid: string): Promise<EndpointRow | null> {
    return oneEndpoint("e.uuid = $1", uuid);
  }

  function endpointById(id: number): Promise<EndpointRow | null> {
    return oneEndpoint("e.id = $1", id);
  }

  async function endpoints(): Promise<EndpointRow[]> {
    const rows = await sql.unsafe(
      `SELECT ${endpointColumns} FROM webhook_endpoints e WHERE e.deleted_at IS NULL ORDER BY e.created_at, e.id`,
    );
    return (rows as Parameters<typeof endpointFrom>[0][]).map(endpointFrom);
  }

  async function updateEndpoint(id: number, fields: EndpointChanges): Promise<void> {
    await sql.begin(async (tx) => {
      if (fields.url !== undefined) await tx`UPDATE webhook_endpoints SET url = ${fields.url} WHERE id = ${id}`;
      if (fields.description !== undefined)
        await tx`UPDATE webhook_endpoints SET description = ${fields.description} WHERE id = ${id}`;
      if (fields.eventTypes !== undefined)
        await tx`UPDATE webhook_endpoints SET event_types = ${fields.eventTypes} WHERE id = ${id}`;
      if (fields.rateLimitPerS !== undefined)
        await tx`UPDATE webhook_endpoints SET rate_limit_per_s = ${fields.rateLimitPerS} WHERE id = ${id}`;
    });
  }

  async function deleteEndpoint(id: number, now: number): Promise<void> {
    await sql.begin(async (tx) => {
      await tx`UPDATE webhook_endpoints SET deleted_at = ${now} WHERE id = ${id}`;
      await tx`
        UPDATE webhook_deliveries
           SET status = 'discarded', next_attempt_at = NULL, completed_at = ${now}, lease_owner = NULL, lease_until = NULL
         WHERE endpoint_id = ${id} AND status IN ('pending', 'held')`;
    });
  }

  async function rotateSecret(id: number, secret: string, previous: string, previousUntil: number): Promise<void> {
    await sql`
      UPDATE webhook_endpoints SET secret = ${secret}, previous_secret = ${previous}, previous_secret_until = ${previousUntil}
       WHERE id = ${id}`;
  }

  function enable(id: number, now: number, discardHeld: boolean): Promise<number> {
    return sql.begin(async (tx) => {
      await tx`
        UPDATE webhook_endpoints SET status = 'enabled', paused_at = NULL, pause_reason = NULL, failed_messages_in_row = 0
         WHERE id = ${id}`;
      const changed = discardHeld
        ? await tx`
            UPDATE webhook_deliveries SET status = 'discarded', next_attempt_at = NULL, completed_at = ${now},
                   lease_owner = NULL, lease_until = NULL
             WHERE endpoint_id = ${id} AND status = 'held' RETURNING id`
        : await tx`
            UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ${now},
                   lease_owner = NULL, lease_until = NULL
             WHERE endpoint_id = ${id} AND status = 'held' RETURNING id`;
      return (changed as unknown[]).length;
    });
  }

  /** Only a message this process holds is set aside (the dispatcher's case): another's newer claim or outcome stands. */
  async function setAside(deliveryId: number, status: "held" | "discarded", now: number): Promise<void> {
    await sql`
      UPDATE webhook_deliveries
         SET status = ${status}, next_attempt_at = NULL,
             completed_at = CASE WHEN ${status}::text = 'discarded' THEN ${now}::bigint END,
             lease_owner = NULL, lease_until = NULL
       WHERE id = ${deliveryId} AND lease_owner = ${owner}`;
  }

  function enqueue(endpointId: number, eventId: number, now: number): Promise<number> {
    return enqueueIn(sql, endpointId, eventId, now);
  }

  function queueMessage(endpointId: number, event: NewEvent): Promise<{ messageId: string; eventId: number }> {
    return sql.begin(async (tx) => {
      const recorded = await recordEventIn(tx, event);
      await enqueueIn(tx, endpointId, recorded.eventId, event.occurredAt);
      return recorded;
    });
  }

  async function eventIdOfMessage(orgId: number, messageId: string): Promise<number | null> {
    const [row] = (await sql`
      SELECT id FROM events WHERE org_id = ${orgId} AND message_id = ${messageId}`) as { id: number }[];
    return row?.id ?? null;
  }

  /** Claims up to `limit` messages due at `now`, soonest first. */
  function due(now: number, limit: number): Promise<DueDelivery[]> {
    return claim(now, limit, null);
  }

  /** Endpoints with a message due at `now` that this process may take (unclaimed, lease passed, or its own). */
  async function dueEndpoints(now: number): Promise<number[]> {
    const rows = (await sql`
      SELECT endpoint_id AS "endpointId"
        FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= ${now}
         AND (lease_until IS NULL OR lease_until <= ${now} OR lease_owner = ${owner})
       GROUP BY endpoint_id
       ORDER BY min(next_attempt_at), endpoint_id`) as { endpointId: number }[];
    return rows.map((row) => row.endpointId);
  }

  /** Claims up to `limit` of one endpoint's messages due at `now`, soonest first. */
  function dueFor(endpointId: number, now: number, limit: number): Promise<DueDelivery[]> {
    return claim(now, limit, endpointId);
  }

  /** When the next pending message is due; a message another process holds is due (to this one) when its lease ends. */
  async function nextDueAt(): Promise<number | null> {
    const [row] = (await sql`
      SELECT min(CASE WHEN lease_owner IS NULL OR lease_owner = ${owner} THEN next_attempt_at
                      ELSE GREATEST(next_attempt_at, lease_until) END) AS at
        FROM webhook_deliveries WHERE status = 'pending'`) as {
      at: string | number | null;
    }[];
    return numOrNull(row?.at ?? null);
  }

  async function recordAttempt(deliveryId: number, attempt: AttemptRow): Promise<void> {
    await insertAttempt(sql, deliveryId, attempt);
  }

  /**
   * The outcome, its log line and the endpoint's failure count (pausing it), in one
   * transaction, if the claim is still this process's; otherwise nothing changes.
   */
  async function settle(delivery: DueDelivery, attempt: AttemptRow, outcome: AttemptOutcome): Promise<SettleOutcome> {
    const [settled] = await settleAll([{ delivery, attempt, outcome }]);
    return settled ?? { paused: false, settled: false };
  }

  /**
   * Many outcomes in one transaction, set-based: the endpoints' rows locked in id
   * order (one statement, so two processes settling together cannot deadlock on
   * them), then every message's new state and its attempt row in one statement,
   * then the endpoints' failure counts that changed in one more; a pause (rare)
   * adds its own statements.
   */
  async function settleAll(settlements: readonly Settlement[]): Promise<SettleOutcome[]> {
    if (settlements.length === 0) return [];
    for (let retry = 0; ; retry++) {
      try {
        return await sql.begin((tx) => settleAllIn(tx, settlements));
      } catch (error) {
        if (retry >= 3 || (error as { errno?: string }).errno !== deadlockDetected) throw error;
      }
    }
  }

  async function settleAllIn(tx: Sql, settlements: readonly Settlement[]): Promise<SettleOutcome[]> {
    const endpointIds = [...new Set(settlements.map((settlement) => settlement.delivery.endpointId))];
    endpointIds.sort((a, b) => a - b);
    const locked = (await tx`
      SELECT id, failed_messages_in_row AS failed FROM webhook_endpoints
       WHERE id = ANY(${endpointIds}::int[]) ORDER BY id FOR NO KEY UPDATE`) as { id: number; failed: number }[];
    // The claim check (owner and attempt count) and the message's new state in one statement, its
    // attempt row written only where the claim held, in the order given.
    const column = <T>(pick: (settlement: Settlement) => T): T[] => settlements.map(pick);
    const updated = (await tx`
      WITH input AS (
        SELECT * FROM unnest(
          ${column((s) => s.delivery.id)}::int[], ${column((s) => s.delivery.attempts)}::int[],
          ${column((s) => settledStatus(s.outcome))}::text[],
          ${column((s) => (s.outcome.kind === "retry" ? s.outcome.at : null))}::bigint[],
          ${column((s) => (s.outcome.kind === "retry" ? null : s.attempt.attemptedAt))}::bigint[],
          ${column((s) => s.attempt.attemptedAt)}::bigint[], ${column((s) => s.attempt.statusCode)}::int[],
          ${column((s) => s.attempt.durationMs)}::int[], ${column((s) => s.attempt.error)}::text[],
          ${column((s) => s.attempt.responseExcerpt)}::text[]
        ) WITH ORDINALITY AS i(id, attempts, status, next_at, completed_at, attempted_at, status_code, duration_ms,
                               error, excerpt, ord)
      ), updated AS (
        UPDATE webhook_deliveries d
           SET status = COALESCE(i.status, d.status), attempts = d.attempts + 1,
               next_attempt_at = i.next_at, completed_at = i.completed_at, lease_owner = NULL, lease_until = NULL
          FROM input i
         WHERE d.id = i.id AND d.lease_owner = ${owner} AND d.attempts = i.attempts
        RETURNING d.id
      ), logged AS (
        INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_excerpt)
        SELECT i.id, i.attempted_at, i.status_code, i.duration_ms, i.error, i.excerpt
          FROM input i JOIN updated u ON u.id = i.id
         ORDER BY i.ord
      )
      SELECT id FROM updated`) as { id: number | string }[];
    const settled = new Set(updated.map((row) => num(row.id)));
    // Each endpoint's failure count follows its settled outcomes in order, as one settle at a time would.
    const failedInRow = new Map(locked.map((row) => [num(row.id), num(row.failed)]));
    const before = new Map(failedInRow);
    const pauses: Pause[] = [];
    const outcomes = settlements.map(({ delivery, attempt, outcome }, index): SettleOutcome => {
      if (!settled.has(delivery.id)) return { paused: false, settled: false };
      const endpointId = delivery.endpointId;
      const failed = failedInRow.get(endpointId) ?? 0;
      if (outcome.kind === "delivered") failedInRow.set(endpointId, 0);
      else if (outcome.kind === "gone") pauses.push({ index, endpointId, attempt, reason: "gone", failed: failed + 1 });
      else if (outcome.kind === "failed") {
        failedInRow.set(endpointId, failed + 1);
        if (failed + 1 >= outcome.pauseAfter) {
          pauses.push({ index, endpointId, attempt, reason: "failed_messages", failed: failed + 1 });
        }
      }
      return { paused: false, settled: true };
    });
    const changed = [...failedInRow].filter(([id, failed]) => before.get(id) !== failed);
    if (changed.length > 0) {
      await tx`
        UPDATE webhook_endpoints e SET failed_messages_in_row = c.failed
          FROM unnest(${changed.map(([id]) => id)}::int[], ${changed.map(([, failed]) => failed)}::int[]) AS c(id, failed)
         WHERE e.id = c.id`;
    }
    // Of settles that would pause one endpoint, only the first does and tells (pauseIn).
    for (const pause of pauses) {
      const paused = await pauseIn(tx, pause.endpointId, pause.attempt, pause.reason, pause.failed);
      outcomes[pause.index] = { paused, settled: true };
    }
    return outcomes;
  }

  /** As on SQLite: a message is one event, its earlier deliveries to the endpoint judged together. */
  function resendRange(endpointId: number, range: ResendRange, now: number): Promise<number[]> {
    return sql.begin(async (tx) => {
      const rows = (await tx`
        INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_attempt_at, created_at)
        SELECT e.id, m.event_id, CASE e.status WHEN 'paused' THEN 'held' ELSE 'pending' END, ${now}, ${now}
          FROM (SELECT d.event_id, v.occurred_at,
                       bool_or(d.status = 'delivered') AS delivered, bool_or(d.status IN ('pending', 'held')) AS open
                  FROM webhook_deliveries d JOIN events v ON v.id = d.event_id
                 WHERE d.endpoint_id = ${endpointId} AND v.occurred_at >= ${range.since} AND v.occurred_at < ${range.until}
                 GROUP BY d.event_id, v.occurred_at) m
          JOIN webhook_endpoints e ON e.id = ${endpointId}
         WHERE NOT m.open AND (${range.status}::text = 'all' OR (${range.status}::text = 'delivered') = m.delivered)
         ORDER BY m.occurred_at, m.event_id
        RETURNING id`) as { id: number | string }[];
      return rows.map((row) => num(row.id));
    });
  }

  async function deliveryStatusCounts(deliveryIds: readonly number[]): Promise<DeliveryCounts> {
    const counts = noDeliveries();
    const rows = (await sql`
      SELECT status, attempts > 0 AS tried, count(*)::int AS n FROM webhook_deliveries
       WHERE id = ANY(${[...deliveryIds]}::int[]) GROUP BY status, tried`) as {
      status: DeliveryStatus;
      tried: boolean;
      n: number;
    }[];
    for (const row of rows) {
      counts[row.status] += row.n;
      if (row.status === "pending" && row.tried) counts.retrying += row.n;
    }
    return counts;
  }

  async function deliveries(endpointId: number, limit: number): Promise<DeliveryListing[]> {
    const rows = await sql`
      SELECT d.id, v.message_id AS "messageId", v.type, d.status, d.attempts,
             d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt", d.completed_at AS "completedAt",
             (SELECT a.status_code FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1) AS "lastStatusCode",
             (SELECT a.error FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1) AS "lastError"
        FROM webhook_deliveries d JOIN events v ON v.id = d.event_id
       WHERE d.endpoint_id = ${endpointId} ORDER BY d.id DESC LIMIT ${limit}`;
    return (rows as Parameters<typeof listingFrom>[0][]).map(listingFrom);
  }

  async function attempts(deliveryId: number): Promise<AttemptRow[]> {
    const rows = (await sql`
      SELECT attempted_at AS "attemptedAt", status_code AS "statusCode", duration_ms AS "durationMs", error,
             response_excerpt AS "responseExcerpt"
        FROM webhook_attempts WHERE delivery_id = ${deliveryId} ORDER BY id`) as (AttemptRow & {
      attemptedAt: number | string;
    })[];
    return rows.map((row) => ({ ...row, attemptedAt: num(row.attemptedAt) }));
  }

  function pruneLog(cutoff: number): Promise<{ attempts: number; deliveries: number; events: number }> {
    return sql.begin(async (tx) => {
      const attempts = await tx`
        DELETE FROM webhook_attempts
         WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE completed_at < ${cutoff}) RETURNING id`;
      const deliveries = await tx`DELETE FROM webhook_deliveries WHERE completed_at < ${cutoff} RETURNING id`;
      const events = await tx`
        DELETE FROM events
         WHERE occurred_at < ${cutoff}
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id) RETURNING id`;
      return {
        attempts: (attempts as unknown[]).length,
        deliveries: (deliveries as unknown[]).length,
        events: (events as unknown[]).length,
      };
    });
  }

  async function pendingCount(): Promise<number> {
    const [row] = (await sql`
      SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`) as { n: number }[];
    return row?.n ?? 0;
  }

  async function oneEndpoint(where: string, value: string | number): Promise<EndpointRow | null> {
    const [row] = (await sql.unsafe(`SELECT ${endpointColumns} FROM webhook_endpoints e WHERE ${where}`, [
      value,
    ])) as Parameters<typeof endpointFrom>[0][];
    return row === undefined ? null : endpointFrom(row);
  }

  /**
   * One statement: pick the due messages nobody else holds, skipping rows another
   * transaction is claiming this instant, and write this process's lease on them.
   */
  async function claim(now: number, limit: number, endpointId: number | null): Promise<DueDelivery[]> {
    const leaseUntil = now + leaseMs;
    const rows = (await sql`
      WITH picked AS (
        SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= ${now}
           AND (${endpointId}::integer IS NULL OR endpoint_id = ${endpointId}::integer)
           AND (lease_until IS NULL OR lease_until <= ${now} OR lease_owner = ${owner})
         ORDER BY next_attempt_at, id
         LIMIT ${limit}
         FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE webhook_deliveries d SET lease_owner = ${owner}, lease_until = ${leaseUntil}
          FROM picked WHERE d.id = picked.id
        RETURNING d.id, d.endpoint_id, d.attempts, d.event_id, d.next_attempt_at
      )
      SELECT c.id, c.endpoint_id AS "endpointId", c.attempts, v.message_id AS "messageId", v.type,
             v.occurred_at AS "occurredAt", v.data, c.next_attempt_at AS "nextAttemptAt"
        FROM claimed c JOIN events v ON v.id = c.event_id`) as ClaimedRow[];
    // UPDATE ... RETURNING keeps no order: soonest first, as on SQLite.
    rows.sort((a, b) => num(a.nextAttemptAt) - num(b.nextAttemptAt) || Number(a.id) - Number(b.id));
    return rows.map(dueFrom);
  }

  return {
    createEndpoint,
    endpoint,
    endpointEvenDeleted,
    endpointById,
    endpoints,
    updateEndpoint,
    deleteEndpoint,
    rotateSecret,
    enable,
    setAside,
    enqueue,
    queueMessage,
    eventIdOfMessage,
    due,
    dueEndpoints,
    dueFor,
    nextDueAt,
    recordAttempt,
    settle,
    settleAll,
    resendRange,
    deliveryStatusCounts,
    deliveries,
    attempts,
    pruneLog,
    pendingCount,
  };
}

/** A settled message's status; null keeps it (a retry stays pending, or held if its endpoint paused meanwhile). */
function settledStatus(outcome: AttemptOutcome): DeliveryStatus | null {
  return outcome.kind === "delivered" ? "delivered" : outcome.kind === "retry" ? null : "failed";
}

async function enqueueIn(sql: Sql, endpointId: number, eventId: number, now: number): Promise<number> {
  const [row] = (await sql`
    INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_attempt_at, created_at)
    SELECT id, ${eventId}, CASE status WHEN 'paused' THEN 'held' ELSE 'pending' END, ${now}, ${now}
      FROM webhook_endpoints WHERE id = ${endpointId}
    RETURNING id`) as { id: number }[];
  return row?.id ?? 0;
}

async function insertAttempt(sql: Sql, deliveryId: number, attempt: AttemptRow): Promise<void> {
  await sql`
    INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_excerpt)
    VALUES (${deliveryId}, ${attempt.attemptedAt}, ${attempt.statusCode}, ${attempt.durationMs}, ${attempt.error},
            ${attempt.responseExcerpt})`;
}

/**
 * Pauses the endpoint, holds its messages already due, and records
 * `webhook_endpoint.paused` for the organisation's other endpoints, as on SQLite.
 * Whether this call paused it: of settles racing on one endpoint, only the first tells.
 */
async function pauseIn(
  tx: Sql,
  endpointId: number,
  attempt: AttemptRow,
  reason: PauseReason,
  failed: number,
): Promise<boolean> {
  const at = attempt.attemptedAt;
  const paused = (await tx`
    UPDATE webhook_endpoints SET status = 'paused', paused_at = ${at}, pause_reason = ${pauseReasonText(reason, failed)}
     WHERE id = ${endpointId} AND status = 'enabled'
    RETURNING uuid, org_id AS "orgId", url, description`) as {
    uuid: string;
    orgId: number | string;
    url: string;
    description: string | null;
  }[];
  const endpoint = paused[0];
  if (endpoint === undefined) return false;
  await tx`UPDATE webhook_deliveries SET status = 'held' WHERE endpoint_id = ${endpointId} AND status = 'pending'`;
  const event = endpointPausedEvent({ ...endpoint, orgId: num(endpoint.orgId) }, attempt, reason, failed);
  const { eventId } = await recordEventIn(tx, event);
  // The paused endpoint is told nothing about its own pause.
  await tx`DELETE FROM webhook_deliveries WHERE event_id = ${eventId} AND endpoint_id = ${endpointId}`;
  return true;
}
