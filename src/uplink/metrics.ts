/** The uplink's Prometheus metrics (docs/fleet.md): the link's state, forwarding progress and lag, read at each scrape. */
import type { Clock } from "../lib/clock.ts";
import { countedFrom, gaugedFrom, type MetricsRegistry } from "../lib/metrics.ts";
import { uplinkStates } from "../lib/uplink-report.ts";
import type { Forwarder } from "./forwarder.ts";
import type { Uplink } from "./link.ts";

export function registerUplinkMetrics(registry: MetricsRegistry, uplink: Uplink, forwarder: Forwarder, clock: Clock) {
  gaugedFrom(registry, "fieldhub_uplink_state", "1 for the uplink's current state, 0 for the others", ["state"], () =>
    uplinkStates.map((state) => ({ labels: { state }, value: uplink.status().state === state ? 1 : 0 })),
  );
  gaugedFrom(
    registry,
    "fieldhub_uplink_last_contact_seconds",
    "When the central last answered (Unix time); 0 before it first did",
    [],
    () => [{ labels: {}, value: (uplink.status().lastContactAt ?? 0) / 1000 }],
  );
  countedFrom(
    registry,
    "fieldhub_uplink_forwarded_readings_total",
    "Readings the central has taken since start: by its receipts, and a batch whose receipt was lost once its positions show it",
    [],
    () => [{ labels: {}, value: forwarder.stats().forwarded }],
  );
  countedFrom(
    registry,
    "fieldhub_uplink_acknowledged_readings_total",
    "Readings whose receipt from the central the site read (stored, or already there) since start",
    [],
    () => [{ labels: {}, value: forwarder.stats().acknowledged }],
  );
  gaugedFrom(
    registry,
    "fieldhub_uplink_catching_up",
    "1 while connected and the connection's first round has not sent the whole backlog yet, else 0",
    [],
    () => [{ labels: {}, value: uplink.status().state === "connected" && forwarder.catchUp() !== null ? 1 : 0 }],
  );
  countedFrom(
    registry,
    "fieldhub_uplink_forwarded_alert_events_total",
    "Alert events the central acknowledged (recorded, or already there) since start",
    [],
    () => [{ labels: {}, value: forwarder.stats().alertEvents }],
  );
  gaugedFrom(
    registry,
    "fieldhub_uplink_forwarded_through_seconds",
    "Time of the newest reading the central acknowledged (Unix time); 0 before the first",
    [],
    () => [{ labels: {}, value: (forwarder.stats().forwardedThrough ?? 0) / 1000 }],
  );
  gaugedFrom(
    registry,
    "fieldhub_uplink_lag_seconds",
    "How far behind the central is: every reading stored before now minus this is there (since start when none is yet)",
    [],
    () => [{ labels: {}, value: forwarder.lagMs(clock.now()) / 1000 }],
  );
}
