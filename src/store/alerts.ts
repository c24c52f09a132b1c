/**
 * Alerts (docs/api.md section 2, Alert; GET /alerts) and the writes of their lifecycle
 * (docs/api.md section 3; docs/alerts.md). Each lifecycle change is one operation that
 * writes the change and records its event (docs/api.md section 6) in one transaction:
 * no change without its event, no event without its change.
 */
import { and, count, desc, eq, inArray, ne, or, sql } from "drizzle-orm";
import type { SqliteConnection } from "./connection.ts";
import type { AlertStatusSubject } from "./contract/event-types.ts";
import type { EventRecorder, NewEvent, RecordedEvent } from "./events.ts";
import type { Synchronous } from "./resolved-operations.ts";
import { type AlertRequestAction, type AlertSeverity, type AlertStatus, alerts, gateways } from "./schema.ts";

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

/** An alert with what its status events need (docs/api.md section 6.6, alert status). */
export interface AlertRecord extends AlertStatusSubject {
  id: number;
  orgId: number;
  status: AlertStatus;
  resolvedAt: number | null;
  /** On a central, the site that owns the alert (it evaluates and changes it), else null. */
  edgeSite: string | null;
  /** On a central, an acknowledge or resolve waiting for the owning site. */
  requestedAction: AlertRequestAction | null;
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

/**
 * The events of an alert change, built once the store knows which alert changed
 * (a new one, or the one still open for its rule and gateway): given its id.
 */
export type AlertEvents = (alertUuid: string) => readonly NewEvent[];

/** A site's alert as it forwards it, with the central's row id of its gateway (docs/fleet.md, "Alerts"). */
export interface ForwardedAlert extends AlertRow {
  gatewayId: number;
}

/** An alert event a site recorded, with its own row id (`seq`) and message id. */
export interface ForwardedAlertEvent extends RecordedEvent {
  seq: number;
  alertUuid: string;
}

/** One batch a site forwards: its alerts' whole state and the events that led there. */
export interface ForwardedAlerts {
  orgId: number;
  alerts: readonly ForwardedAlert[];
  events: readonly ForwardedAlertEvent[];
}

/** An acknowledge or resolve a central asked of the site that owns the alert (docs/fleet.md, "Alerts"). */
export interface AlertRequest {
  alertUuid: string;
  action: AlertRequestAction;
  note: string | null;
  at: number;
}

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
   * and gateway; records its `events` (`alert.triggered` and the automations it
   * runs), all in one transaction. Returns the alert's id.
   */
  trigger(trigger: AlertTrigger, events: AlertEvents): Promise<string>;
  /**
   * Marks the alert open for the rule and gateway as returned (condition no
   * longer met) and records its `events` (`alert.returned`), in one transaction.
   * Returns the alert's id, or null when no alert was open or it had already returned.
   */
  markReturned(
    target: { ruleId: string; gatewayId: number; at: number; value: number | null },
    events: AlertEvents,
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
  /** The alerts with these ids, as GET /alerts lists them (what a site forwards of them). */
  byUuids(uuids: readonly string[]): Promise<AlertRow[]>;
  /**
   * On a central, in one transaction: stores a site's alerts as the site sent them
   * (the site is their one writer), records each event the central does not have
   * yet under the site's message id, and drops a request the alert's status now
   * answers. Returns how many events were new.
   */
  applyForwarded(batch: ForwardedAlerts, now: number): Promise<number>;
  /** On a central: the site's `seq` of the last of its alert events applied, 0 when none. */
  forwardedPosition(orgId: number, site: string): Promise<number>;
  /** On a central: asks the site that owns alert `id` to acknowledge or resolve it (replacing an earlier ask). */
  request(id: number, request: Omit<AlertRequest, "alertUuid">): Promise<void>;
  /** On a central: what waits for a site, oldest first. */
  requestsOfSite(orgId: number, site: string): Promise<AlertRequest[]>;
}

/** An alert's status answers a request when it is where the request leads, or past it. */
export const requestAnsweredSql = `(requested_action = 'acknowledge' AND status IN ('acknowledged', 'resolved'))
   OR (requested_action = 'resolve' AND status = 'resolved')`;

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

export function sqliteAlertStore(
  { sqlite, db }: SqliteConnection,
  recordEvent: EventRecorder,
): Synchronous<AlertStore> {
  const list = db
    .select(listColumns)
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
            g.uuid AS gatewayUuid, g.serial AS gatewaySerial, g.name AS gatewayName,
            a.rule_id AS ruleId, a.severity AS severity, a.message AS message, a.status AS status, a.value AS value,
            a.ack_at AS ackAt, a.resolved_at AS resolvedAt, g.edge_site AS edgeSite,
            a.requested_action AS requestedAction
       FROM alerts a LEFT JOIN gateways g ON g.id = a.gateway_id WHERE a.uuid = ?1`,
  );
  const forwarded = sqlite.prepare<
    never,
    [string, number, number, string | null, string, string, string, number | null, number, number | null]
  >(
    `INSERT INTO alerts (uuid, org_id, gateway_id, rule_id, severity, message, status, value, created_at, last_triggered_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
     ON CONFLICT (uuid) DO NOTHING`,
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
        );
      } else {
        alertUuid = current.uuid;
        retrigger.run(current.id, trigger.at, trigger.value, trigger.message);
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
  };
}

/** Each alert's newest event `seq` in a batch. */
export function lastSeqOfAlerts(events: readonly ForwardedAlertEvent[]): Map<string, number> {
  const last = new Map<string, number>();
  for (const event of events) last.set(event.alertUuid, Math.max(last.get(event.alertUuid) ?? 0, event.seq));
  return last;
}
