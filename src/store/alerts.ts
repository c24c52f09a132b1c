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
