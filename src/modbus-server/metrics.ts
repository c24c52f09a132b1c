/**
 * The Modbus TCP servers' Prometheus metrics (docs/polling.md, "The Modbus TCP
 * server"): requests by result and clients connected, read from each server's counts
 * at each scrape; the answer time as a histogram, observed as answers go out.
 */
import { countedFrom, gaugedFrom, type MetricsRegistry } from "../lib/metrics.ts";
import { type ModbusServerView, modbusServerResults } from "../lib/modbus-server-view.ts";
import { Histogram } from "../lib/prometheus.ts";

type Served = { gatewaySerial: string; stats: () => ModbusServerView };

/** The latency histogram, to be observed per gateway serial. */
export function modbusServerLatency(registry: MetricsRegistry): (gatewaySerial: string) => (seconds: number) => void {
  const histogram = new Histogram({
    name: "fieldhub_modbus_server_request_seconds",
    help: "Time from a Modbus TCP server request to its answer (from memory, or through the bus)",
    labelNames: ["gateway"],
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return (gatewaySerial) => (seconds) => histogram.observe({ gateway: gatewaySerial }, seconds);
}

export function registerModbusServerMetrics(registry: MetricsRegistry, servers: readonly Served[]): void {
  countedFrom(
    registry,
    "fieldhub_modbus_server_requests_total",
    "Modbus TCP server requests by result: cache (words last read), bus (the device through the bus), exception (the server's own), refused (connections refused or closed)",
    ["gateway", "result"],
    () =>
      servers.flatMap((server) => {
        const { requests } = server.stats();
        return modbusServerResults.map((result) => ({
          labels: { gateway: server.gatewaySerial, result },
          value: requests[result],
        }));
      }),
  );
  gaugedFrom(
    registry,
    "fieldhub_modbus_server_connections",
    "Clients connected to the Modbus TCP server",
    ["gateway"],
    () =>
      servers.map((server) => ({ labels: { gateway: server.gatewaySerial }, value: server.stats().clientsConnected })),
  );
}
