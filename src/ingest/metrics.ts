/** Ingest's and gateway status's Prometheus metrics, read at each scrape. */
import { countedFrom, gaugedFrom, type MetricsRegistry } from "../lib/metrics.ts";
import type { GatewayStatusTracker } from "./gateway-status.ts";
import type { Ingest } from "./ingest.ts";

export function registerGatewayStatusMetrics(
  registry: MetricsRegistry,
  status: GatewayStatusTracker,
  gateways: readonly { id: string; serial: string }[],
): void {
  gaugedFrom(registry, "fieldhub_gateway_online", "1 when the gateway is online", ["gateway"], () =>
    gateways.map((gateway) => ({
      labels: { gateway: gateway.serial },
      value: status.statusOf(gateway.id) === "online" ? 1 : 0,
    })),
  );
}

export function registerIngestMetrics(registry: MetricsRegistry, ingest: Ingest): void {
  const read = (pick: (stats: ReturnType<Ingest["stats"]>) => number) => () => [
    { labels: {}, value: pick(ingest.stats()) },
  ];
  countedFrom(
    registry,
    "fieldhub_ingest_readings_total",
    "Readings handed to ingest",
    [],
    read((stats) => stats.accepted),
  );
  countedFrom(
    registry,
    "fieldhub_ingest_stored_total",
    "Readings stored (committed)",
    [],
    read((stats) => stats.committed),
  );
  countedFrom(
    registry,
    "fieldhub_ingest_dropped_total",
    "Readings dropped because the queue was full",
    [],
    read((stats) => stats.dropped),
  );
  countedFrom(
    registry,
    "fieldhub_ingest_batches_total",
    "Write transactions",
    [],
    read((stats) => stats.batches),
  );
  gaugedFrom(
    registry,
    "fieldhub_ingest_queue_readings",
    "Readings waiting to be written",
    [],
    read((stats) => stats.queued),
  );
  gaugedFrom(
    registry,
    "fieldhub_ingest_lag_seconds",
    "Age of the oldest reading waiting to be written",
    [],
    read((stats) => stats.lagMs / 1000),
  );
  gaugedFrom(
    registry,
    "fieldhub_ingest_last_batch_seconds",
    "Duration of the last write transaction",
    [],
    read((stats) => stats.lastBatchMs / 1000),
  );
}
