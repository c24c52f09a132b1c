/**
 * An alert as JSON, the one presentation of it (docs/api.md section 2.9): the /v1 API
 * and the admin API give it with RFC 3339 times, a site forwards it to its central
 * with Unix ms times (docs/fleet.md, "Alerts"; lib/edge-protocol/alerts.ts).
 */

/** The stored fields an alert is presented from (the store's alert rows have them). */
export interface PresentableAlert {
  uuid: string;
  gatewayUuid: string | null;
  ruleId: string | null;
  severity: string;
  message: string;
  status: string;
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

type AlertCoreFields = Pick<
  PresentableAlert,
  "uuid" | "gatewayUuid" | "ruleId" | "severity" | "message" | "status" | "value"
>;

/** The presented fields keep the alert's own types (its severity and status enums, a gateway id known present). */
interface AlertCoreJson<A extends AlertCoreFields> {
  id: string;
  device_id: A["gatewayUuid"];
  rule_id: string | null;
  severity: A["severity"];
  message: string;
  status: A["status"];
  value: number | null;
}

interface AlertJson<A extends PresentableAlert, Time> extends AlertCoreJson<A> {
  created_at: Time;
  last_triggered_at: Time | null;
  returned_at: Time | null;
  ack_at: Time | null;
  ack_note: string | null;
  resolved_at: Time | null;
  resolve_note: string | null;
  entry_count: number;
}

/** What every alert shape starts with: which alert, what it says and where it stands. */
export function presentAlertCore<A extends AlertCoreFields>(alert: A): AlertCoreJson<A> {
  return {
    id: alert.uuid,
    device_id: alert.gatewayUuid,
    rule_id: alert.ruleId,
    severity: alert.severity,
    message: alert.message,
    status: alert.status,
    value: alert.value,
  };
}

/** The alert's whole state, each time written by `time` (from Unix ms). */
export function presentAlert<A extends PresentableAlert, Time>(
  alert: A,
  time: (ms: number) => Time,
): AlertJson<A, Time> {
  const orNull = (ms: number | null): Time | null => (ms === null ? null : time(ms));
  return {
    ...presentAlertCore(alert),
    created_at: time(alert.createdAt),
    last_triggered_at: orNull(alert.lastTriggeredAt),
    returned_at: orNull(alert.returnedAt),
    ack_at: orNull(alert.ackAt),
    ack_note: alert.ackNote,
    resolved_at: orNull(alert.resolvedAt),
    resolve_note: alert.resolveNote,
    entry_count: alert.entryCount,
  };
}
