/**
 * What fieldhub says of its link to the MQTT broker (docs/mqtt.md, "Watching the
 * link"): the MQTT part produces it, /healthz and the admin API show it (the parts
 * pass it along without importing each other; app/ wires one to the other).
 */

/**
 * - `connecting`: before the first connect, and between two attempts;
 * - `online`: connected, publishing;
 * - `away`: the broker cannot be reached (an outage fieldhub rides out);
 * - `refused`: credentials or authorisation refused;
 * - `tls_failed`: the broker's certificate was not accepted.
 */
export const mqttLinkStates = ["connecting", "online", "away", "refused", "tls_failed"] as const;
export type MqttLinkState = (typeof mqttLinkStates)[number];

/** The link as JSON: /healthz's `mqtt` and the admin API's GET /mqtt. */
export interface MqttLinkReport {
  state: MqttLinkState;
  /** Why it is not online (the broker's or the socket's words), or null. */
  reason: string | null;
  /** When the state last changed (RFC 3339); `connecting` between two failures alike is no change. */
  since: string;
  /** The last successful connect (RFC 3339), or null. */
  connected_at: string | null;
  connects: number;
  /** The last failure's reason and time, kept after the link is back; null before any. */
  last_error: string | null;
  last_error_at: string | null;
  /** Register values the broker took since start, and those waiting for it (at most one per register). */
  values_published: number;
  values_waiting: number;
  /** Events the broker acknowledged since start, and the outbox row id of the last one (the MQTT position). */
  events_published: number;
  events_position: number;
}

/**
 * The admin API's view (docs/admin.md, "MQTT"): the report with the broker's URL
 * (scheme, host and port: never a user name or password) and the events recorded
 * after the MQTT position (counted up to 100,000), or that this box has no `mqtt`.
 */
export type MqttView =
  | { configured: false }
  | ({ configured: true; broker_url: string; events_waiting: number } & MqttLinkReport);
