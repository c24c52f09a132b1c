/**
 * A site's alerts on its central (docs/fleet.md, "Alerts"): `GET /edge/v1/alerts`
 * answers where the site resumes and what was asked of it; `POST /edge/v1/alerts`
 * carries alert events with the whole state of every alert they name.
 */
import { Type } from "@sinclair/typebox";
import { maxForwardedAlertEvents } from "./limits.ts";
import { count, nullable, oneOf, unixMs } from "./wire.ts";

// The wire's alert vocabularies are the store's (alert severities, statuses, request
// actions, alert event types): the site's compiler holds what it sends to them, the
// central's what it stores.
export const alertEventTypes = ["alert.triggered", "alert.returned", "alert.acknowledged", "alert.resolved"] as const;

/** Whether an event type is one of the alert events a site forwards. */
export const isAlertEventType = (type: string): type is (typeof alertEventTypes)[number] =>
  (alertEventTypes as readonly string[]).includes(type);

const textOrNull = (maxLength: number) => nullable(Type.String({ maxLength }));

/**
 * An alert's whole state, as presented by lib/present-alert.ts with times in Unix ms,
 * and the register it concerns (null for an offline alert; absent from sites older
 * than the field, whose alerts the central stores without one).
 */
const ForwardedAlert = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  device_id: Type.String({ minLength: 1, maxLength: 64 }),
  register_id: Type.Optional(textOrNull(64)),
  rule_id: textOrNull(200),
  severity: oneOf(["critical", "warning", "info"]),
  message: Type.String({ maxLength: 2000 }),
  status: oneOf(["active", "returned", "acknowledged", "resolved"]),
  value: nullable(Type.Number()),
  created_at: unixMs,
  last_triggered_at: nullable(unixMs),
  returned_at: nullable(unixMs),
  ack_at: nullable(unixMs),
  ack_note: textOrNull(2000),
  resolved_at: nullable(unixMs),
  resolve_note: textOrNull(2000),
  entry_count: Type.Integer({ minimum: 1 }),
});

export const ForwardedAlerts = Type.Object({
  alerts: Type.Array(ForwardedAlert, { maxItems: maxForwardedAlertEvents }),
  events: Type.Array(
    Type.Object({
      seq: Type.Integer({ minimum: 1 }),
      message_id: Type.String({ pattern: "^msg_[0-9A-Za-z]{1,60}$" }),
      type: oneOf(alertEventTypes),
      occurred_at: unixMs,
      data: Type.Record(Type.String(), Type.Unknown()),
    }),
    { maxItems: maxForwardedAlertEvents },
  ),
});

/** Alerts and events taken, and how many of the events were new to the central (recorded, fanned out). */
export const AlertsReceipt = Type.Object({ alerts: count, events: count, recorded: count });

/** Where the site resumes (its own `seq` of the last alert event the central applied, 0 for none), and what waits for it. */
export const AlertsPosition = Type.Object({
  forwarded_through: Type.Integer({ minimum: 0 }),
  requests: Type.Array(
    Type.Object({
      alert_id: Type.String({ minLength: 1, maxLength: 64 }),
      action: oneOf(["acknowledge", "resolve"]),
      note: nullable(Type.String()),
      requested_at: unixMs,
    }),
  ),
});
