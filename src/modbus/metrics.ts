/**
 * The pollers' Prometheus metrics, read at each scrape: per bus (labelled with the
 * gateway serial) and per Modbus device (gateway serial and device name, a bounded
 * set: the devices of the config; docs/polling.md "Bus diagnostics").
 */
import { countedFrom, histogramFrom, type MetricsRegistry } from "../lib/metrics.ts";
import { type DeviceBusCounters, responseTimeBuckets } from "./bus-stats.ts";
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
  registerDeviceMetrics(registry, pollers, serialOf);
}

function registerDeviceMetrics(
  registry: MetricsRegistry,
  pollers: readonly GatewayPoller[],
  serialOf: ReadonlyMap<string, string>,
): void {
  const eachDevice = () =>
    pollers.flatMap((poller) => {
      const gateway = serialOf.get(poller.gatewayId) ?? poller.gatewayId;
      return poller.deviceCounters().map(({ device, counters }) => ({ labels: { gateway, device }, counters }));
    });
  const perDevice = (read: (counters: DeviceBusCounters) => number) => () =>
    eachDevice().map(({ labels, counters }) => ({ labels, value: read(counters) }));
  const labels = ["gateway", "device"];
  countedFrom(
    registry,
    "fieldhub_modbus_device_requests_total",
    "Modbus requests sent to the device (polls, writes, read-backs; each retry counts)",
    labels,
    perDevice((counters) => counters.requests),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_device_timeouts_total",
    "Requests to the device without an answer in time",
    labels,
    perDevice((counters) => counters.timeouts),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_device_exceptions_total",
    "Modbus exception answers of the device, by exception code",
    [...labels, "code"],
    () =>
      eachDevice().flatMap(({ labels: deviceLabels, counters }) =>
        Object.entries(counters.exceptionCounts()).map(([code, value]) => ({
          labels: { ...deviceLabels, code },
          value,
        })),
      ),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_device_crc_errors_total",
    "Answers of the device that failed their CRC check (RTU)",
    labels,
    perDevice((counters) => counters.crcErrors),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_device_framing_errors_total",
    "Answers of the device of the wrong length, unit or function code (RTU)",
    labels,
    perDevice((counters) => counters.framingErrors),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_device_retries_total",
    "Reads of the device sent again after a timeout or a broken answer (polls, a write's read before and read-back)",
    labels,
    perDevice((counters) => counters.retries),
  );
  histogramFrom(
    registry,
    "fieldhub_modbus_device_response_seconds",
    "Round trip of the device's requests, answered or not",
    responseTimeBuckets,
    () =>
      eachDevice().map(({ labels: deviceLabels, counters }) => ({
        labels: deviceLabels,
        buckets: counters.responseBuckets,
        sum: counters.responseTotalMs / 1000,
      })),
  );
}
