/**
 * Alerts (spec section 2, Alert; GET /alerts) and the writes of their lifecycle
 * (spec section 3; docs/alerts.md). Each lifecycle change is one operation that
 * writes the change and records its event (spec section 6) in one transaction:
 * no change without its event, no event without its change.
 */
import { and, count, desc, eq, ne, or, sql } from "drizzle-orm";
import type { SqliteConnection } from "./connection.ts";
import type { EventRecorder, NewEvent } from "./events.ts";
import type { Synchronous } from "./resolved-operations.ts";
import { type AlertSeverity, type AlertStatus, alerts, gateways } from "./schema.ts";

export interface AlertFilter {
  status?: AlertStatus;
  severity?: AlertSeverity;
  gatewayId?: number;
  limit: number;
  offset: number;
}

/** An alert as GET /alerts lists it. */
export interface AlertRow {
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
}

/** An alert stored as given (the demo's and the tests' seeded alerts). */
export interface SeededAlert {
  uuid: string;
  orgId: number;
  gatewayId: number | null;
  ruleId?: string | null;
  severity: AlertSeverity;
  message: string;
  status: AlertStatus;
  value?: number | null;
  createdAt: number;
  lastTriggeredAt?: number | null;
  returnedAt?: number | null;
  ackAt?: number | null;
  ackNote?: string | null;
  resolvedAt?: number | null;
  resolveNote?: string | null;
  entryCount?: number;
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

/** A rule's (or the offline detector's) condition met for a gateway. */
export interface AlertTrigger {
  ruleId: string;
  gatewayId: number;
  orgId: number;
  severity: AlertSeverity;
  message: string;
  value: number | null;
  at: number;
  /** The id a new alert gets; an alert still open for the rule and gateway keeps its own. */
  newUuid: string;
}

/** An alert event before the alert is known: the store puts the alert's id first in its data as `alert_id`. */
export type AlertEventDraft = NewEvent;

export interface AlertStore {
  list(orgId: number, filter: AlertFilter): Promise<{ rows: AlertRow[]; total: number }>;
  /** Alerts not yet resolved (introspection's stats.open_alerts). */
  countOpen(orgId: number): Promise<number>;
  /** Stores an alert as given; one whose id exists is left alone. */
  seed(alert: SeededAlert): Promise<void>;
  /** Open alerts of rules (the rules engine's state at start). */
  allOpen(): Promise<OpenAlert[]>;
  find(uuid: string): Promise<AlertRecord | null>;
  /**
   * Opens an alert for the trigger, or re-triggers the one still open for its rule
   * and gateway; records `event` (with the alert's id) and `followUps` (the
   * automations it runs), all in one transaction. Returns the alert's id.
   */
  trigger(trigger: AlertTrigger, event: AlertEventDraft, followUps: readonly NewEvent[]): Promise<string>;
  /**
   * Marks the alert open for the rule and gateway as returned (condition no
   * longer met) and records `event` with its id, in one transaction. Returns the
   * alert's id, or null when no alert was open or it had already returned.
   */
  markReturned(
    target: { ruleId: string; gatewayId: number; at: number; value: number | null },
    event: AlertEventDraft,
  ): Promise<string | null>;
  /**
   * Acknowledges the alert if its status is still `from`, recording `event` with
   * it, in one transaction; false (nothing written) when its status changed.
   */
  acknowledge(
    change: { id: number; from: AlertStatus; at: number; note: string | null },
    event: NewEvent,
  ): Promise<boolean>;
  /** Resolves the alert if its status is still `from`, with `event`, in one transaction; false when it changed. */
  resolve(
    change: { id: number; from: AlertStatus; at: number; note: string | null },
    event: NewEvent,
  ): Promise<boolean>;
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

export function sqliteAlertStore(
  { sqlite, db }: SqliteConnection,
  recordEvent: EventRecorder,
): Synchronous<AlertStore> {
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
  const retrigger = sqlite.prepare<never, [number, number, number | null, string]>(
    "UPDATE alerts SET status = 'active', entry_count = entry_count + 1, last_triggered_at = ?2, value = ?3, message = ?4 WHERE id = ?1",
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
            (SELECT g.uuid FROM gateways g WHERE g.id = a.gateway_id) AS gatewayUuid,
            a.rule_id AS ruleId, a.severity AS severity, a.message AS message, a.status AS status, a.value AS value,
            a.ack_at AS ackAt, a.resolved_at AS resolvedAt
       FROM alerts a WHERE a.uuid = ?1`,
  );
  const withAlertId = (event: AlertEventDraft, alertUuid: string): NewEvent => ({
    ...event,
    data: { alert_id: alertUuid, ...event.data },
  });

  return {
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
    trigger: sqlite.transaction((trigger: AlertTrigger, event: AlertEventDraft, followUps: readonly NewEvent[]) => {
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
        );
      } else {
        alertUuid = current.uuid;
        retrigger.run(current.id, trigger.at, trigger.value, trigger.message);
      }
      recordEvent(withAlertId(event, alertUuid));
      for (const followUp of followUps) recordEvent(followUp);
      return alertUuid;
    }),
    markReturned: sqlite.transaction(
      (target: { ruleId: string; gatewayId: number; at: number; value: number | null }, event: AlertEventDraft) => {
        const current = openFor.get(target.ruleId, target.gatewayId);
        if (current === null || current.status === "returned") return null;
        markReturned.run(current.id, target.at, target.value);
        recordEvent(withAlertId(event, current.uuid));
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
  };
}
