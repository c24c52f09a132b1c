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
  // A catch-up waiting for the central (unreachable, refused) is not one in progress.
  const catchUp = status.state === "connected" ? forwarder.catchUp() : null;
  return {
    state: status.state,
    reason: status.reason,
    organization: status.organization,
    site: status.site,
    since: new Date(status.since).toISOString(),
    last_contact_at: isoOrNull(status.lastContactAt),
    forwarded_readings: forwarding.forwarded,
    acknowledged_readings: forwarding.acknowledged,
    unconfirmed_readings: forwarding.unconfirmed,
    catching_up: catchUp !== null,
    catch_up_since: isoOrNull(catchUp?.since ?? null),
    catch_up_readings: catchUp?.readings ?? 0,
    forwarded_alert_events: forwarding.alertEvents,
    forwarded_through: isoOrNull(forwarding.forwardedThrough),
    complete_through: isoOrNull(forwarding.completeThrough),
    // Whole milliseconds as seconds, as /metrics' fieldhub_uplink_lag_seconds.
    lag_seconds: forwarder.lagMs(now) / 1000,
  };
}
