/** The pollers' Prometheus metrics: per bus (labelled with the gateway serial), read at each scrape. */
import { countedFrom, type MetricsRegistry } from "../lib/metrics.ts";
import type { GatewayPoller } from "./poller.ts";

export function registerModbusMetrics(
  registry: MetricsRegistry,
  pollers: readonly GatewayPoller[],
  /** Gateway id -> serial, the label operators know a bus by. */
  serialOf: ReadonlyMap<string, string>,
): void {
  const perBus = (read: (stats: ReturnType<GatewayPoller["stats"]>) => number) => () =>
    pollers.map((poller) => ({
      labels: { gateway: serialOf.get(poller.gatewayId) ?? poller.gatewayId },
      value: read(poller.stats()),
    }));
  countedFrom(
    registry,
    "fieldhub_modbus_requests_total",
    "Modbus requests sent, per gateway (bus)",
    ["gateway"],
    perBus((stats) => stats.requests),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_errors_total",
    "Modbus requests that failed (timeout, exception, connection)",
    ["gateway"],
    perBus((stats) => stats.errors),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_timeouts_total",
    "Modbus requests without an answer in time",
    ["gateway"],
    perBus((stats) => stats.timeouts),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_exceptions_total",
    "Modbus exception answers",
    ["gateway"],
    perBus((stats) => stats.exceptions),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_reconnects_total",
    "Failed connection attempts",
    ["gateway"],
    perBus((stats) => stats.reconnects),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_round_trip_seconds_sum",
    "Sum of request round-trip times (divide by requests for the mean)",
    ["gateway"],
    perBus((stats) => stats.rttTotalMs / 1000),
  );
}
