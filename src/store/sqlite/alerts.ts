/**
 * Alerts (docs/api.md section 2, Alert; GET /alerts) and the writes of their lifecycle
 * (docs/api.md section 3; docs/alerts.md). Each lifecycle change is one operation that
 * writes the change and records its event (docs/api.md section 6) in one transaction:
 * no change without its event, no event without its change.
 */
import { and, count, desc, eq, inArray, ne, or, sql } from "drizzle-orm";
import type {
  AlertEvents,
  AlertRecord,
  AlertRequest,
  AlertStatus,
  AlertStore,
  AlertTrigger,
  ForwardedAlerts,
  OpenAlert,
} from "../contract/alerts.ts";
import type { NewEvent } from "../contract/events.ts";
import { alertWithNamesSql } from "../shared/alert-register.ts";
import { lastSeqOfAlerts, requestAnsweredSql } from "../shared/alert-requests.ts";
import type { SqliteConnection } from "./connection.ts";
import type { EventRecorder } from "./events.ts";
import { resolvedOperations } from "./resolved-operations.ts";
import { alerts, gateways, registers } from "./schema.ts";

const status = sql.placeholder("status");
const severity = sql.placeholder("severity");
const gatewayId = sql.placeholder("gatewayId");
/** Alerts of one organisation; each filter null means "any". */
const filtered = and(
  eq(alerts.orgId, sql.placeholder("orgId")),
  or(sql`${status} IS NULL`, eq(alerts.status, status)),
  or(sql`${severity} IS NULL`, eq(alerts.severity, severity)),
  or(sql`${gatewayId} IS NULL`, eq(alerts.gatewayId, gatewayId)),
);

/** The columns of an alert as GET /alerts lists it (AlertRow). */
const listColumns = {
  uuid: alerts.uuid,
  gatewayUuid: gateways.uuid,
  registerUuid: registers.uuid,
  ruleId: alerts.ruleId,
  severity: alerts.severity,
  message: alerts.message,
  status: alerts.status,
  value: alerts.value,
  createdAt: alerts.createdAt,
  lastTriggeredAt: alerts.lastTriggeredAt,
  returnedAt: alerts.returnedAt,
  ackAt: alerts.ackAt,
  ackNote: alerts.ackNote,
  resolvedAt: alerts.resolvedAt,
  resolveNote: alerts.resolveNote,
  entryCount: alerts.entryCount,
};

/**
 * The row id of register `uuid` when it is one of the alert's gateway's, else null
 * (the offline detector names none; a forwarded alert may name one the central
 * does not have, or none at all from an older site).
 */
const registerOfGateway = (uuid: string, gatewayId: string) =>
  `(SELECT id FROM registers WHERE uuid = ${uuid} AND gateway_id = ${gatewayId})`;

export function sqliteAlertStore({ sqlite, db }: SqliteConnection, recordEvent: EventRecorder): AlertStore {
  const list = db
    .select(listColumns)
    .from(alerts)
    .leftJoin(gateways, eq(gateways.id, alerts.gatewayId))
    .leftJoin(registers, eq(registers.id, alerts.registerId))
    .where(filtered)
    // Most recently triggered first; ties by newest id so offset paging is stable.
    .orderBy(desc(alerts.lastTriggeredAt), desc(alerts.id))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare();
  const total = db.select({ total: count() }).from(alerts).where(filtered).prepare();
  const open = db
    .select({ total: count() })
    .from(alerts)
    .where(and(eq(alerts.orgId, sql.placeholder("orgId")), ne(alerts.status, "resolved")))
    .prepare();

  const openFor = sqlite.prepare<OpenAlert, [string, number | null]>(
    `SELECT id, uuid, rule_id AS ruleId, gateway_id AS gatewayId, status, entry_count AS entryCount
       FROM alerts WHERE rule_id = ?1 AND gateway_id IS ?2 AND status <> 'resolved' ORDER BY id DESC LIMIT 1`,
  );
  const allOpen = sqlite.prepare<OpenAlert, []>(
    `SELECT id, uuid, rule_id AS ruleId, gateway_id AS gatewayId, status, entry_count AS entryCount
       FROM alerts WHERE status <> 'resolved' AND rule_id IS NOT NULL`,
  );
  const insert = sqlite.prepare<
    never,
    [string, number, number | null, string, string, string, number | null, number, string | null]
  >(
    `INSERT INTO alerts (uuid, org_id, gateway_id, register_id, rule_id, severity, message, status, value, created_at,
                         last_triggered_at, entry_count)
     VALUES (?1, ?2, ?3, ${registerOfGateway("?9", "?3")}, ?4, ?5, ?6, 'active', ?7, ?8, ?8, 1)`,
  );
  // A re-trigger names the rule's register as its alert.triggered does (a rule moved to another register while open).
  const retrigger = sqlite.prepare<never, [number, number, number | null, string, string | null]>(
    `UPDATE alerts SET status = 'active', entry_count = entry_count + 1, last_triggered_at = ?2, value = ?3, message = ?4,
            register_id = ${registerOfGateway("?5", "alerts.gateway_id")}
      WHERE id = ?1`,
  );
  const markReturned = sqlite.prepare<never, [number, number, number | null]>(
    "UPDATE alerts SET status = 'returned', returned_at = ?2, value = coalesce(?3, value) WHERE id = ?1",
  );
  const acknowledge = sqlite.prepare<never, [number, string, number, string | null]>(
    "UPDATE alerts SET status = 'acknowledged', ack_at = ?3, ack_note = ?4 WHERE id = ?1 AND status = ?2",
  );
  const resolve = sqlite.prepare<never, [number, string, number, string | null]>(
    "UPDATE alerts SET status = 'resolved', resolved_at = ?3, resolve_note = ?4 WHERE id = ?1 AND status = ?2",
  );
  const byUuid = sqlite.prepare<AlertRecord, [string]>(
    `SELECT a.id AS id, a.uuid AS uuid, a.org_id AS orgId,
            g.uuid AS gatewayUuid, g.serial AS gatewaySerial, g.name AS gatewayName,
            d.uuid AS modbusDeviceUuid, d.name AS modbusDeviceName,
            r.uuid AS registerUuid, r.name AS registerName, r.unit AS registerUnit,
            a.rule_id AS ruleId, a.severity AS severity, a.message AS message, a.status AS status, a.value AS value,
            a.ack_at AS ackAt, a.resolved_at AS resolvedAt, g.edge_site AS edgeSite,
            a.requested_action AS requestedAction
       FROM ${alertWithNamesSql} WHERE a.uuid = ?1`,
  );
  const forwarded = sqlite.prepare<
    never,
    [string, number, number, string | null, string, string, string, number | null, number, number | null]
  >(
    `INSERT INTO alerts (uuid, org_id, gateway_id, rule_id, severity, message, status, value, created_at, last_triggered_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
     ON CONFLICT (uuid) DO NOTHING`,
  );
  // A state that names no register (from a site older than the field) keeps the one known.
  const forwardedRegister = sqlite.prepare<never, [string, string | null]>(
    `UPDATE alerts SET register_id = coalesce(${registerOfGateway("?2", "alerts.gateway_id")}, register_id) WHERE uuid = ?1`,
  );
  const forwardedState = sqlite.prepare<
    never,
    [
      string,
      string | null,
      string,
      string,
      string,
      number | null,
      number | null,
      number | null,
      number | null,
      string | null,
    ]
  >(
    `UPDATE alerts SET rule_id = ?2, severity = ?3, message = ?4, status = ?5, value = ?6,
            last_triggered_at = ?7, returned_at = ?8, ack_at = ?9, ack_note = ?10
      WHERE uuid = ?1`,
  );
  const forwardedEnd = sqlite.prepare<never, [string, number | null, string | null, number, number]>(
    `UPDATE alerts SET resolved_at = ?2, resolve_note = ?3, entry_count = ?4,
            edge_event_seq = max(coalesce(edge_event_seq, 0), ?5)
      WHERE uuid = ?1`,
  );
  const answered = sqlite.prepare<never, [string]>(
    `UPDATE alerts SET requested_action = NULL, requested_note = NULL, requested_at = NULL
      WHERE uuid = ?1 AND (${requestAnsweredSql})`,
  );
  const sitePosition = sqlite.prepare<{ position: number | null }, [number, string]>(
    `SELECT max(a.edge_event_seq) AS position FROM alerts a JOIN gateways g ON g.id = a.gateway_id
      WHERE a.org_id = ?1 AND g.edge_site = ?2`,
  );
  const ask = sqlite.prepare<never, [number, string, string | null, number]>(
    "UPDATE alerts SET requested_action = ?2, requested_note = ?3, requested_at = ?4 WHERE id = ?1",
  );
  const waiting = sqlite.prepare<AlertRequest, [number, string]>(
    `SELECT a.uuid AS alertUuid, a.requested_action AS action, a.requested_note AS note, a.requested_at AS at
       FROM alerts a JOIN gateways g ON g.id = a.gateway_id
      WHERE a.org_id = ?1 AND g.edge_site = ?2 AND a.requested_action IS NOT NULL
      ORDER BY a.requested_at, a.id`,
  );
  return resolvedOperations<AlertStore>({
    list(orgId, filter) {
      const values = {
        orgId,
        status: filter.status ?? null,
        severity: filter.severity ?? null,
        gatewayId: filter.gatewayId ?? null,
      };
      return {
        rows: list.all({ ...values, limit: filter.limit, offset: filter.offset }),
        total: total.get(values)?.total ?? 0,
      };
    },
    countOpen: (orgId) => open.get({ orgId })?.total ?? 0,
    seed(alert) {
      db.insert(alerts).values(alert).onConflictDoNothing({ target: alerts.uuid }).run();
    },
    allOpen: () => allOpen.all(),
    find: (uuid) => byUuid.get(uuid),
    trigger: sqlite.transaction((trigger: AlertTrigger, events: AlertEvents) => {
      const current = openFor.get(trigger.ruleId, trigger.gatewayId);
      let alertUuid: string;
      if (current === null) {
        alertUuid = trigger.newUuid;
        insert.run(
          alertUuid,
          trigger.orgId,
          trigger.gatewayId,
          trigger.ruleId,
          trigger.severity,
          trigger.message,
          trigger.value,
          trigger.at,
          trigger.registerUuid,
        );
      } else {
        alertUuid = current.uuid;
        retrigger.run(current.id, trigger.at, trigger.value, trigger.message, trigger.registerUuid);
      }
      for (const event of events(alertUuid)) recordEvent(event);
      return alertUuid;
    }),
    markReturned: sqlite.transaction(
      (target: { ruleId: string; gatewayId: number; at: number; value: number | null }, events: AlertEvents) => {
        const current = openFor.get(target.ruleId, target.gatewayId);
        if (current === null || current.status === "returned") return null;
        markReturned.run(current.id, target.at, target.value);
        for (const event of events(current.uuid)) recordEvent(event);
        return current.uuid;
      },
    ),
    acknowledge: sqlite.transaction(
      (change: { id: number; from: AlertStatus; at: number; note: string | null }, event: NewEvent) => {
        if (acknowledge.run(change.id, change.from, change.at, change.note).changes === 0) return false;
        recordEvent(event);
        return true;
      },
    ),
    resolve: sqlite.transaction(
      (change: { id: number; from: AlertStatus; at: number; note: string | null }, event: NewEvent) => {
        if (resolve.run(change.id, change.from, change.at, change.note).changes === 0) return false;
        recordEvent(event);
        return true;
      },
    ),
    byUuids(uuids) {
      if (uuids.length === 0) return [];
      return db
        .select(listColumns)
        .from(alerts)
        .leftJoin(gateways, eq(gateways.id, alerts.gatewayId))
        .leftJoin(registers, eq(registers.id, alerts.registerId))
        .where(inArray(alerts.uuid, [...uuids]))
        .all();
    },
    applyForwarded: sqlite.transaction((batch: ForwardedAlerts, now: number) => {
      const lastSeq = lastSeqOfAlerts(batch.events);
      for (const alert of batch.alerts) {
        forwarded.run(
          alert.uuid,
          batch.orgId,
          alert.gatewayId,
          alert.ruleId,
          alert.severity,
          alert.message,
          alert.status,
          alert.value,
          alert.createdAt,
          alert.lastTriggeredAt,
        );
        forwardedRegister.run(alert.uuid, alert.registerUuid);
        forwardedState.run(
          alert.uuid,
          alert.ruleId,
          alert.severity,
          alert.message,
          alert.status,
          alert.value,
          alert.lastTriggeredAt,
          alert.returnedAt,
          alert.ackAt,
          alert.ackNote,
        );
        forwardedEnd.run(
          alert.uuid,
          alert.resolvedAt,
          alert.resolveNote,
          alert.entryCount,
          lastSeq.get(alert.uuid) ?? 0,
        );
        answered.run(alert.uuid);
      }
      let recorded = 0;
      for (const event of batch.events) {
        const { seq: _seq, alertUuid: _alert, ...rest } = event;
        if (recordEvent({ ...rest, orgId: batch.orgId }, now).eventId !== 0) recorded++;
      }
      return recorded;
    }),
    forwardedPosition: (orgId, site) => sitePosition.get(orgId, site)?.position ?? 0,
    request(id, request) {
      ask.run(id, request.action, request.note, request.at);
    },
    requestsOfSite: (orgId, site) => waiting.all(orgId, site),
  });
}
