/**
 * Acknowledge and resolve (spec section 3): the one service behind the CLI's
 * `fieldhub alerts` and, later, the admin page. Each change is written with its
 * event (AlertStatusEvent) in one transaction; an invalid transition is refused
 * with `conflict` and changes nothing.
 */
import { isoOrNull } from "../lib/clock.ts";
import { CodedError } from "../lib/errors.ts";
import { type AlertRecord, alertLifecycleQueries } from "../store/alerts.ts";
import { eventQueries } from "../store/events.ts";
import type { Store } from "../store/open.ts";

export function alertService(store: Store, now: () => number, onEvent?: () => void) {
  const alerts = alertLifecycleQueries(store);
  const events = eventQueries(store);

  function find(id: string): AlertRecord {
    const alert = alerts.byUuid(id.toLowerCase());
    if (alert === null) throw new CodedError("not_found", `no alert ${id}`);
    return alert;
  }

  function statusEvent(alert: AlertRecord, status: "acknowledged" | "resolved", at: number, note: string | null) {
    events.record({
      orgId: alert.orgId,
      type: status === "acknowledged" ? "alert.acknowledged" : "alert.resolved",
      occurredAt: at,
      data: {
        alert_id: alert.uuid,
        device_id: alert.gatewayUuid,
        rule_id: alert.ruleId,
        severity: alert.severity,
        message: alert.message,
        status,
        value: alert.value,
        acknowledged_at: isoOrNull(status === "acknowledged" ? at : alert.ackAt),
        resolved_at: isoOrNull(status === "resolved" ? at : null),
        note,
      },
    });
  }

  const acknowledge = store.sqlite.transaction((id: string, note: string | null) => {
    const alert = find(id);
    if (alert.status === "resolved") throw new CodedError("conflict", `alert ${alert.uuid} is resolved; it cannot be acknowledged`);
    if (alert.status === "acknowledged") throw new CodedError("conflict", `alert ${alert.uuid} is already acknowledged`);
    const at = now();
    alerts.acknowledge(alert.id, at, note);
    statusEvent(alert, "acknowledged", at, note);
    return find(id);
  });

  const resolve = store.sqlite.transaction((id: string, note: string | null) => {
    const alert = find(id);
    if (alert.status === "resolved") throw new CodedError("conflict", `alert ${alert.uuid} is already resolved`);
    const at = now();
    alerts.resolve(alert.id, at, note);
    statusEvent(alert, "resolved", at, note);
    return find(id);
  });

  return {
    acknowledge(id: string, note: string | null): AlertRecord {
      const alert = acknowledge(id, note);
      onEvent?.();
      return alert;
    },
    resolve(id: string, note: string | null): AlertRecord {
      const alert = resolve(id, note);
      onEvent?.();
      return alert;
    },
  };
}
