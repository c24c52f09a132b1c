/** Alerts of an organisation (spec section 2, Alert; GET /alerts), prepared once per store. */
import { and, count, desc, eq, ne, or, sql } from "drizzle-orm";
import type { Store } from "./open.ts";
import { type AlertSeverity, type AlertStatus, alerts, gateways } from "./schema.ts";

export interface AlertFilter {
  status?: AlertStatus;
  severity?: AlertSeverity;
  gatewayId?: number;
  limit: number;
  offset: number;
}

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

export function alertQueries(store: Store) {
  const { db } = store;
  const list = db
    .select({
      uuid: alerts.uuid,
      gatewayUuid: gateways.uuid,
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
    })
    .from(alerts)
    .leftJoin(gateways, eq(gateways.id, alerts.gatewayId))
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

  return {
    list(orgId: number, filter: AlertFilter) {
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
    /** Alerts not yet resolved (introspection's stats.open_alerts). */
    countOpen(orgId: number): number {
      return open.get({ orgId })?.total ?? 0;
    },
  };
}
export type AlertQueries = ReturnType<typeof alertQueries>;
export type AlertRow = ReturnType<AlertQueries["list"]>["rows"][number];

export type NewAlert = typeof alerts.$inferInsert;

/** Inserts an alert as given (the demo's seeded alerts; the rules engine later). */
export function insertAlert(store: Store, alert: NewAlert): void {
  store.db.insert(alerts).values(alert).onConflictDoNothing({ target: alerts.uuid }).run();
}

/** An open (not resolved) alert, as the rules engine needs it. */
export interface OpenAlert {
  id: number;
  uuid: string;
  ruleId: string;
  gatewayId: number | null;
  status: "active" | "returned" | "acknowledged";
  entryCount: number;
}

/** An alert with what its status events need (spec section 6, AlertStatusEvent). */
export interface AlertRecord {
  id: number;
  uuid: string;
  orgId: number;
  gatewayUuid: string | null;
  ruleId: string | null;
  severity: AlertSeverity;
  message: string;
  status: AlertStatus;
  value: number | null;
  ackAt: number | null;
  resolvedAt: number | null;
}

/** The writes of the alert lifecycle; callers wrap each change and its event in one transaction. */
export function alertLifecycleQueries(store: Store) {
  const { sqlite } = store;
  const openFor = sqlite.prepare<OpenAlert, [string, number | null]>(
    `SELECT id, uuid, rule_id AS ruleId, gateway_id AS gatewayId, status, entry_count AS entryCount
       FROM alerts WHERE rule_id = ?1 AND gateway_id IS ?2 AND status <> 'resolved' ORDER BY id DESC LIMIT 1`,
  );
  const allOpen = sqlite.prepare<OpenAlert, []>(
    `SELECT id, uuid, rule_id AS ruleId, gateway_id AS gatewayId, status, entry_count AS entryCount
       FROM alerts WHERE status <> 'resolved' AND rule_id IS NOT NULL`,
  );
  const insert = sqlite.prepare<never, [string, number, number | null, string, string, string, number | null, number]>(
    `INSERT INTO alerts (uuid, org_id, gateway_id, rule_id, severity, message, status, value, created_at, last_triggered_at, entry_count)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'active', ?7, ?8, ?8, 1)`,
  );
  const byUuid = sqlite.prepare<AlertRecord, [string]>(
    `SELECT a.id AS id, a.uuid AS uuid, a.org_id AS orgId,
            (SELECT g.uuid FROM gateways g WHERE g.id = a.gateway_id) AS gatewayUuid,
            a.rule_id AS ruleId, a.severity AS severity, a.message AS message, a.status AS status, a.value AS value,
            a.ack_at AS ackAt, a.resolved_at AS resolvedAt
       FROM alerts a WHERE a.uuid = ?1`,
  );
  return {
    openFor: (ruleId: string, gatewayId: number | null) => openFor.get(ruleId, gatewayId),
    allOpen: () => allOpen.all(),
    open(alert: { uuid: string; orgId: number; gatewayId: number | null; ruleId: string; severity: string; message: string; value: number | null; at: number }) {
      insert.run(alert.uuid, alert.orgId, alert.gatewayId, alert.ruleId, alert.severity, alert.message, alert.value, alert.at);
    },
    retrigger(id: number, at: number, value: number | null, message: string) {
      sqlite.run(
        "UPDATE alerts SET status = 'active', entry_count = entry_count + 1, last_triggered_at = ?, value = ?, message = ? WHERE id = ?",
        [at, value, message, id],
      );
    },
    markReturned(id: number, at: number, value: number | null) {
      sqlite.run("UPDATE alerts SET status = 'returned', returned_at = ?, value = coalesce(?, value) WHERE id = ?", [at, value, id]);
    },
    acknowledge(id: number, at: number, note: string | null) {
      sqlite.run("UPDATE alerts SET status = 'acknowledged', ack_at = ?, ack_note = ? WHERE id = ?", [at, note, id]);
    },
    resolve(id: number, at: number, note: string | null) {
      sqlite.run("UPDATE alerts SET status = 'resolved', resolved_at = ?, resolve_note = ? WHERE id = ?", [at, note, id]);
    },
    byUuid: (uuid: string) => byUuid.get(uuid),
  };
}
