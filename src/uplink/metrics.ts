/** The uplink's Prometheus metrics (docs/fleet.md), read at each scrape. */
import { gaugedFrom, type MetricsRegistry } from "../lib/metrics.ts";
import type { Uplink, UplinkState } from "./link.ts";

const states: readonly UplinkState[] = ["connecting", "connected", "unreachable", "refused"];

export function registerUplinkMetrics(registry: MetricsRegistry, uplink: Uplink): void {
  gaugedFrom(registry, "fieldhub_uplink_state", "1 for the uplink's current state, 0 for the others", ["state"], () =>
    states.map((state) => ({ labels: { state }, value: uplink.status().state === state ? 1 : 0 })),
  );
  gaugedFrom(
    registry,
    "fieldhub_uplink_last_contact_seconds",
    "When the central last answered (Unix time); 0 before it first did",
    [],
    () => [{ labels: {}, value: (uplink.status().lastContactAt ?? 0) / 1000 }],
  );
}
