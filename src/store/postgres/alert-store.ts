/**
 * Alerts on PostgreSQL, as ../sqlite/alerts.ts: GET /alerts, and each lifecycle change
 * written with its event in one transaction (event-store.ts, `recordEventIn`: the event and its deliveries): no change without its
 * event, no event without its change.
 *
 * Several central processes share the table, so every read-then-change is atomic
 * by itself:
 * - acknowledge and resolve are one conditional `UPDATE ... WHERE status = <seen>
 *   RETURNING`: of two processes acting on the same alert at once, the second finds
 *   the status changed, writes nothing and records no event;
 * - trigger and markReturned read the alert open for a rule and gateway, then open,
 *   re-trigger or return it: they hold a transaction-scoped advisory lock on the
 *   (rule, gateway) pair, so two processes never open two alerts for it, and take
 *   the open row `FOR UPDATE` against a concurrent acknowledge or resolve.
 */

import type {
  AlertEvents,
  AlertFilter,
  AlertRecord,
  AlertRequest,
  AlertRow,
  AlertStatus,
  AlertStore,
  AlertTrigger,
  ForwardedAlerts,
  OpenAlert,
  SeededAlert,
} from "../contract/alerts.ts";
import type { NewEvent } from "../contract/events.ts";
import { alertWithNamesSql } from "../shared/alert-register.ts";
import { lastSeqOfAlerts, requestAnsweredSql } from "../shared/alert-requests.ts";
import type { Sql } from "./connection.ts";
import { recordEventIn } from "./event-store.ts";
import { firstOf, rowsOf } from "./rows.ts";

type StatusChange = { id: number; from: AlertStatus; at: number; note: string | null };

/** An alert as GET /alerts lists it (AlertRow), from `alertWithNamesSql`. */
const rowColumns = `a.uuid, g.uuid AS "gatewayUuid", r.uuid AS "registerUuid", a.rule_id AS "ruleId", a.severity, a.message, a.status, a.value,
  a.created_at::float8 AS "createdAt", a.last_triggered_at::float8 AS "lastTriggeredAt",
  a.returned_at::float8 AS "returnedAt", a.ack_at::float8 AS "ackAt", a.ack_note AS "ackNote",
  a.resolved_at::float8 AS "resolvedAt", a.resolve_note AS "resolveNote", a.entry_count AS "entryCount"`;

const openColumns = `id, uuid, rule_id AS "ruleId", gateway_id AS "gatewayId", status, entry_count AS "entryCount"`;

export function postgresAlertStore(sql: Sql): AlertStore {
  async function list(orgId: number, filter: AlertFilter): Promise<{ rows: AlertRow[]; total: number }> {
    const status = filter.status ?? null;
    const severity = filter.severity ?? null;
    const gatewayId = filter.gatewayId ?? null;
    const where = sql`
      a.org_id = ${orgId} AND (${status}::text IS NULL OR a.status = ${status}::text)
      AND (${severity}::text IS NULL OR a.severity = ${severity}::text)
      AND (${gatewayId}::int IS NULL OR a.gateway_id = ${gatewayId}::int)`;
    const rows = await rowsOf<AlertRow>(sql`
      SELECT ${sql.unsafe(rowColumns)}
        FROM ${sql.unsafe(alertWithNamesSql)}
       WHERE ${where}
       -- Most recently triggered first (nulls last, as SQLite orders them descending); ties by newest id.
       ORDER BY a.last_triggered_at DESC NULLS LAST, a.id DESC
       LIMIT ${filter.limit} OFFSET ${filter.offset}`);
    const total = await firstOf<{ total: number }>(sql`SELECT count(*)::int AS total FROM alerts a WHERE ${where}`);
    return { rows, total: total?.total ?? 0 };
  }

  async function countOpen(orgId: number): Promise<number> {
    const row = await firstOf<{ total: number }>(
      sql`SELECT count(*)::int AS total FROM alerts WHERE org_id = ${orgId} AND status <> 'resolved'`,
    );
    return row?.total ?? 0;
  }

  async function seed(alert: SeededAlert): Promise<void> {
    await sql`
      INSERT INTO alerts (uuid, org_id, gateway_id, rule_id, severity, message, status, value, created_at,
                          last_triggered_at, returned_at, ack_at, ack_note, resolved_at, resolve_note, entry_count)
      VALUES (${alert.uuid}, ${alert.orgId}, ${alert.gatewayId}, ${alert.ruleId ?? null}, ${alert.severity},
              ${alert.message}, ${alert.status}, ${alert.value ?? null}, ${alert.createdAt},
              ${alert.lastTriggeredAt ?? null}::bigint, ${alert.returnedAt ?? null}::bigint, ${alert.ackAt ?? null}::bigint,
              ${alert.ackNote ?? null}, ${alert.resolvedAt ?? null}::bigint, ${alert.resolveNote ?? null},
              ${alert.entryCount ?? 1})
      ON CONFLICT (uuid) DO NOTHING`;
  }

  function allOpen(): Promise<OpenAlert[]> {
    return rowsOf(sql`
      SELECT ${sql.unsafe(openColumns)} FROM alerts WHERE status <> 'resolved' AND rule_id IS NOT NULL ORDER BY id`);
  }

  function find(uuid: string): Promise<AlertRecord | null> {
    return firstOf(sql`
      SELECT a.id, a.uuid, a.org_id AS "orgId", g.uuid AS "gatewayUuid", g.serial AS "gatewaySerial",
             g.name AS "gatewayName", d.uuid AS "modbusDeviceUuid", d.name AS "modbusDeviceName",
             r.uuid AS "registerUuid", r.name AS "registerName", r.unit AS "registerUnit",
             a.rule_id AS "ruleId", a.severity, a.message, a.status, a.value,
             a.ack_at::float8 AS "ackAt", a.resolved_at::float8 AS "resolvedAt", g.edge_site AS "edgeSite",
             a.requested_action AS "requestedAction"
        FROM ${sql.unsafe(alertWithNamesSql)} WHERE a.uuid = ${uuid}`);
  }

  function trigger(trigger: AlertTrigger, events: AlertEvents): Promise<string> {
    return sql.begin(async (tx) => {
      const current = await openFor(tx, trigger.ruleId, trigger.gatewayId);
      let alertUuid: string;
      if (current === null) {
        alertUuid = trigger.newUuid;
        await tx`
          INSERT INTO alerts (uuid, org_id, gateway_id, register_id, rule_id, severity, message, status, value,
                              created_at, last_triggered_at, entry_count)
          VALUES (${alertUuid}, ${trigger.orgId}, ${trigger.gatewayId},
                  ${registerOfGateway(tx, trigger.registerUuid, trigger.gatewayId)}, ${trigger.ruleId},
                  ${trigger.severity}, ${trigger.message}, 'active', ${trigger.value}, ${trigger.at}, ${trigger.at}, 1)`;
      } else {
        alertUuid = current.uuid;
        // A re-trigger names the rule's register as its alert.triggered does (a rule moved while its alert was open).
        await tx`
          UPDATE alerts SET status = 'active', entry_count = entry_count + 1, last_triggered_at = ${trigger.at},
                 value = ${trigger.value}, message = ${trigger.message},
                 register_id = ${registerOfGateway(tx, trigger.registerUuid, trigger.gatewayId)}
           WHERE id = ${current.id}`;
      }
      for (const event of events(alertUuid)) await recordEventIn(tx, event);
      return alertUuid;
    });
  }

  function markReturned(
    target: { ruleId: string; gatewayId: number; at: number; value: number | null },
    events: AlertEvents,
  ): Promise<string | null> {
    return sql.begin(async (tx) => {
      const current = await openFor(tx, target.ruleId, target.gatewayId);
      if (current === null || current.status === "returned") return null;
      await tx`
        UPDATE alerts SET status = 'returned', returned_at = ${target.at}, value = coalesce(${target.value}::float8, value)
         WHERE id = ${current.id}`;
      for (const event of events(current.uuid)) await recordEventIn(tx, event);
      return current.uuid;
    });
  }

  function acknowledge(change: StatusChange, event: NewEvent): Promise<boolean> {
    return sql.begin(async (tx) => {
      const changed = await rowsOf(tx`
        UPDATE alerts SET status = 'acknowledged', ack_at = ${change.at}, ack_note = ${change.note}
         WHERE id = ${change.id} AND status = ${change.from} RETURNING id`);
      if (changed.length === 0) return false;
      await recordEventIn(tx, event);
      return true;
    });
  }

  async function byUuids(uuids: readonly string[]): Promise<AlertRow[]> {
    if (uuids.length === 0) return [];
    return rowsOf(sql`
      SELECT ${sql.unsafe(rowColumns)} FROM ${sql.unsafe(alertWithNamesSql)}
       WHERE a.uuid = ANY(${[...uuids]}::text[])`);
  }

  function applyForwarded(batch: ForwardedAlerts, now: number): Promise<number> {
    const lastSeq = lastSeqOfAlerts(batch.events);
    return sql.begin(async (tx) => {
      for (const alert of batch.alerts) {
        await tx`
          INSERT INTO alerts (uuid, org_id, gateway_id, register_id, rule_id, severity, message, status, value,
                              created_at, last_triggered_at, returned_at, ack_at, ack_note, resolved_at, resolve_note,
                              entry_count, edge_event_seq)
          VALUES (${alert.uuid}, ${batch.orgId}, ${alert.gatewayId},
                  ${registerOfGateway(tx, alert.registerUuid, alert.gatewayId)}, ${alert.ruleId}, ${alert.severity},
                  ${alert.message},
                  ${alert.status}, ${alert.value}, ${alert.createdAt}, ${alert.lastTriggeredAt}::bigint,
                  ${alert.returnedAt}::bigint, ${alert.ackAt}::bigint, ${alert.ackNote}, ${alert.resolvedAt}::bigint,
                  ${alert.resolveNote}, ${alert.entryCount}, ${lastSeq.get(alert.uuid) ?? 0})
          ON CONFLICT (uuid) DO UPDATE SET
            -- A state that names no register (from a site older than the field) keeps the one known.
            register_id = coalesce(excluded.register_id, alerts.register_id), rule_id = excluded.rule_id, severity = excluded.severity, message = excluded.message,
            status = excluded.status, value = excluded.value, last_triggered_at = excluded.last_triggered_at,
            returned_at = excluded.returned_at, ack_at = excluded.ack_at, ack_note = excluded.ack_note,
            resolved_at = excluded.resolved_at, resolve_note = excluded.resolve_note,
            entry_count = excluded.entry_count,
            edge_event_seq = greatest(coalesce(alerts.edge_event_seq, 0), excluded.edge_event_seq)`;
        await tx`
          UPDATE alerts SET requested_action = NULL, requested_note = NULL, requested_at = NULL
           WHERE uuid = ${alert.uuid} AND (${tx.unsafe(requestAnsweredSql)})`;
      }
      let recorded = 0;
      for (const { seq: _seq, alertUuid: _alert, ...event } of batch.events) {
        if ((await recordEventIn(tx, { ...event, orgId: batch.orgId }, now)).eventId !== 0) recorded++;
      }
      return recorded;
    });
  }

  async function forwardedPosition(orgId: number, site: string): Promise<number> {
    const row = await firstOf<{ position: number | null }>(sql`
      SELECT max(a.edge_event_seq)::float8 AS position FROM alerts a JOIN gateways g ON g.id = a.gateway_id
       WHERE a.org_id = ${orgId} AND g.edge_site = ${site}`);
    return row?.position ?? 0;
  }

  async function request(id: number, request: Omit<AlertRequest, "alertUuid">): Promise<void> {
    await sql`
      UPDATE alerts SET requested_action = ${request.action}, requested_note = ${request.note},
             requested_at = ${request.at} WHERE id = ${id}`;
  }

  function requestsOfSite(orgId: number, site: string): Promise<AlertRequest[]> {
    return rowsOf(sql`
      SELECT a.uuid AS "alertUuid", a.requested_action AS action, a.requested_note AS note,
             a.requested_at::float8 AS at
        FROM alerts a JOIN gateways g ON g.id = a.gateway_id
       WHERE a.org_id = ${orgId} AND g.edge_site = ${site} AND a.requested_action IS NOT NULL
       ORDER BY a.requested_at, a.id`);
  }

  function resolve(change: StatusChange, event: NewEvent): Promise<boolean> {
    return sql.begin(async (tx) => {
      const changed = await rowsOf(tx`
        UPDATE alerts SET status = 'resolved', resolved_at = ${change.at}, resolve_note = ${change.note}
         WHERE id = ${change.id} AND status = ${change.from} RETURNING id`);
      if (changed.length === 0) return false;
      await recordEventIn(tx, event);
      return true;
    });
  }

  return {
    list,
    countOpen,
    seed,
    allOpen,
    find,
    trigger,
    markReturned,
    acknowledge,
    byUuids,
    applyForwarded,
    forwardedPosition,
    request,
    requestsOfSite,
    resolve,
  };
}

/**
 * The row id of register `uuid` when it is one of the gateway's, else null (the
 * offline detector names none; a forwarded alert may name one the central does not
 * have, or none at all from an older site).
 */
const registerOfGateway = (tx: Sql, uuid: string | null, gatewayId: number) =>
  tx`(SELECT id FROM registers WHERE uuid = ${uuid}::text AND gateway_id = ${gatewayId}::int)`;

/**
 * The alert open for a rule and gateway (the newest, as on SQLite), under the
 * pair's advisory lock (held to the end of the transaction) and locked itself.
 */
async function openFor(tx: Sql, ruleId: string, gatewayId: number | null): Promise<OpenAlert | null> {
  await tx`SELECT pg_advisory_xact_lock(hashtext('alert-rule'), hashtext(${ruleId} || '/' || coalesce(${gatewayId}::text, '')))`;
  return firstOf(tx`
    SELECT ${tx.unsafe(openColumns)} FROM alerts
     WHERE rule_id = ${ruleId} AND gateway_id IS NOT DISTINCT FROM ${gatewayId}::int AND status <> 'resolved'
     ORDER BY id DESC LIMIT 1 FOR UPDATE`);
}
