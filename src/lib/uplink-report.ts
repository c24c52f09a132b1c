/**
 * What a site says of its link to the central (docs/fleet.md, "Sites" and
 * "Forwarding"): the uplink part produces it, /healthz and the admin API show it
 * (the parts pass it along without importing each other; app/ wires one to the other).
 */

/**
 * - `connecting`: before the central's first answer;
 * - `connected`: from the central's first accepted answer (the session check), not
 *   from the end of a round that may carry hours of backlog (`catching_up` says that);
 *   after a refusal or an error answer, from that call answered;
 * - `unreachable`: no answer, a network error or a 5xx (an outage the site rides out);
 * - `refused`: the central refused the token or a forward, or answered what this site
 *   cannot read (docs/fleet.md, "The edge protocol"): an operator must act.
 */
export const uplinkStates = ["connecting", "connected", "unreachable", "refused"] as const;
export type UplinkState = (typeof uplinkStates)[number];

/** The link and its forwarding progress as JSON: /healthz's `uplink` and the admin API's GET /uplink. */
export interface UplinkReport {
  state: UplinkState;
  reason: string | null;
  /** The organisation and site name the central knows this site's token by, once connected. */
  organization: string | null;
  site: string | null;
  /** When the state last changed, and when the central last answered (RFC 3339). */
  since: string;
  last_contact_at: string | null;
  /**
   * Readings of this site the central has taken since this process started: by its
   * receipts, and a batch whose receipt was lost once the central's positions show
   * it stored (docs/fleet.md, "Forwarding").
   */
  forwarded_readings: number;
  /** Of those, the readings whose receipt the site read. */
  acknowledged_readings: number;
  /** A batch sent whose receipt was lost: not yet known to be at the central or not (0 or one batch). */
  unconfirmed_readings: number;
  /**
   * Connected, and this connection's first round has not sent everything yet: the
   * backlog is draining (`forwarded_through` says how far it has come).
   */
  catching_up: boolean;
  /** When the catch-up began (RFC 3339), while catching up. */
  catch_up_since: string | null;
  /** Readings the central took in this catch-up so far (0 when not catching up). */
  catch_up_readings: number;
  /** Alert events the central acknowledged since start (docs/fleet.md, "Alerts"). */
  forwarded_alert_events: number;
  /** The newest reading time the central acknowledged. */
  forwarded_through: string | null;
  /** When the last round that sent everything began: every reading stored before it is at the central. */
  complete_through: string | null;
  /** Now minus `complete_through` (since start while no round has completed), in seconds. */
  lag_seconds: number;
}

/**
 * The admin API's view (docs/admin.md, "Central"): the report with the central's
 * URL (never the token), or that this box forwards to no central.
 */
export type UplinkView = { configured: false } | ({ configured: true; central_url: string } & UplinkReport);
