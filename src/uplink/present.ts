/**
 * The link and its forwarding progress as JSON (docs/fleet.md, "Forwarding"): one
 * presenter for /healthz's `uplink` and the admin API's GET /uplink.
 */
import type { UplinkReport } from "../lib/uplink-report.ts";
import type { Forwarder } from "./forwarder.ts";
import type { UplinkStatus } from "./link.ts";

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function presentUplink(status: UplinkStatus, forwarder: Forwarder, now: number): UplinkReport {
  const forwarding = forwarder.stats();
  return {
    state: status.state,
    reason: status.reason,
    organization: status.organization,
    site: status.site,
    since: new Date(status.since).toISOString(),
    last_contact_at: isoOrNull(status.lastContactAt),
    forwarded_readings: forwarding.forwarded,
    forwarded_alert_events: forwarding.alertEvents,
    forwarded_through: isoOrNull(forwarding.forwardedThrough),
    complete_through: isoOrNull(forwarding.completeThrough),
    // Whole milliseconds as seconds, as /metrics' fieldhub_uplink_lag_seconds.
    lag_seconds: forwarder.lagMs(now) / 1000,
  };
}
