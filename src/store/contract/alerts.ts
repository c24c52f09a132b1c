/**
 * The alerts domain of the store contract (docs/api.md section 2, Alert; docs/alerts.md):
 * what GET /alerts lists, the lifecycle operations, and alert forwarding between a
 * site and its central (docs/fleet.md, "Alerts").
 */
import type { AlertStatusSubject } from "./event-types.ts";
import type { NewEvent, RecordedEvent } from "./events.ts";

export const alertSeverities = ["critical", "warning", "info"] as const;
export type AlertSeverity = (typeof alertSeverities)[number];
export const alertStatuses = ["active", "returned", "acknowledged", "resolved"] as const;
export type AlertStatus = (typeof alertStatuses)[number];

/** What a central asks of the site that owns an alert (docs/fleet.md, "Alerts"). */
export const alertRequestActions = ["acknowledge", "resolve"] as const;
export type AlertRequestAction = (typeof alertRequestActions)[number];

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
  /** The register a rule's alert concerns (its public id); null for offline alerts and alerts older than the column. */
  registerUuid: string | null;
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
  /** The rule's register (public id, one of the gateway's), remembered by the alert; null for the offline detector. */
  registerUuid: string | null;
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

/**
 * A site's alert as it forwards it, with the central's row id of its gateway (docs/fleet.md, "Alerts").
 * Its register is stored when the site names one of that gateway's registers; a state
 * that names none (a site older than the field) keeps the one known, else null.
 */
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
