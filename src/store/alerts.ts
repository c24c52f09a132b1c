/** Alerts of an organisation (spec section 2, Alert; GET /alerts). */
import { and, count, desc, eq, ne, type SQL } from "drizzle-orm";
import type { Store } from "./open.ts";
import { type AlertSeverity, type AlertStatus, alerts, gateways } from "./schema.ts";

export type AlertRow = {
  uuid: string;
  gatewayUuid: string | null;
  ruleId: string | null;
  severity: AlertSeverity;
  message: string;
  status: AlertStatus;
  value: number | null;
  createdAt: number;
  lastTriggeredAt: number | null;
  returnedAt: number | null;
  ackAt: number | null;
  ackNote: string | null;
  resolvedAt: number | null;
  resolveNote: string | null;
  entryCount: number;
};

export interface AlertFilter {
  status?: AlertStatus;
  severity?: AlertSeverity;
  gatewayId?: number;
  limit: number;
  offset: number;
}

/** Most recently triggered first; ties by newest id so offset paging is stable. */
export function listAlerts(store: Store, orgId: number, filter: AlertFilter): { rows: AlertRow[]; total: number } {
  const conditions: SQL[] = [eq(alerts.orgId, orgId)];
  if (filter.status !== undefined) conditions.push(eq(alerts.status, filter.status));
  if (filter.severity !== undefined) conditions.push(eq(alerts.severity, filter.severity));
  if (filter.gatewayId !== undefined) conditions.push(eq(alerts.gatewayId, filter.gatewayId));
  const where = and(...conditions);
  const rows = store.db
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
    .where(where)
    .orderBy(desc(alerts.lastTriggeredAt), desc(alerts.id))
    .limit(filter.limit)
    .offset(filter.offset)
    .all();
  const total = store.db.select({ total: count() }).from(alerts).where(where).get()?.total ?? 0;
  return { rows, total };
}

/** Alerts not yet resolved (introspection's stats.open_alerts). */
export function countOpenAlerts(store: Store, orgId: number): number {
  return (
    store.db
      .select({ total: count() })
      .from(alerts)
      .where(and(eq(alerts.orgId, orgId), ne(alerts.status, "resolved")))
      .get()?.total ?? 0
  );
}

export type NewAlert = typeof alerts.$inferInsert;

/** Inserts an alert as given (the demo's seeded alerts; the rules engine later). */
export function insertAlert(store: Store, alert: NewAlert): void {
  store.db.insert(alerts).values(alert).onConflictDoNothing({ target: alerts.uuid }).run();
}
