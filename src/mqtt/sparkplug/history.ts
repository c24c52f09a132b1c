/**
 * Stored readings the broker missed, sent as historical DDATA (docs/mqtt.md,
 * "Sparkplug B", "History after an outage"): the readings of a window in time order
 * (the store's scan: time, then register), each metric with its reading's time and
 * `is_historical`, a message per device of at most `metricsPerMessage`. The
 * position moves only past whole seconds the broker has taken (the caller's
 * `confirm`): the readings of the last second of a page wait for the next page, so
 * a position saved between two pages never splits a second, and nothing is sent
 * twice or passed over across a restart.
 */
import type { ReadingRow, ReadingStore } from "../../store/contract/readings.ts";
import type { SparkplugDevice, SparkplugMetric } from "./devices.ts";
import type { Metric } from "./payload.ts";

const metricsPerMessage = 500;

export interface HistoryReplay {
  readings: Pick<ReadingStore, "scan">;
  /** The metric (and its device) of each register's internal id; readings of others are passed over. */
  metricOf: ReadonlyMap<number, { device: SparkplugDevice; metric: SparkplugMetric }>;
  /** Whether the device has had its DBIRTH on this connection: the readings of one that has not are passed over. */
  born: (deviceId: string) => boolean;
  /** Publishes one DDATA of a device (historical metrics). */
  publish: (device: SparkplugDevice, metrics: Metric[]) => void;
  /** Resolves once the broker has taken everything published before it; rejects when the connection is lost. */
  confirm: () => Promise<void>;
  /** Every reading up to this time (Unix ms, inclusive) has been sent. */
  moved: (through: number) => void;
  goOn: () => boolean;
  pageSize?: number;
}

/** Sends the readings in (since, until] (Unix ms); returns how many were sent. */
export async function replayHistory(replay: HistoryReplay, since: number, until: number): Promise<number> {
  let sent = 0;
  const send = (rows: readonly ReadingRow[]): void => {
    const byDevice = new Map<SparkplugDevice, Metric[]>();
    const flush = (device: SparkplugDevice, metrics: Metric[]) => {
      replay.publish(device, metrics);
      sent += metrics.length;
      byDevice.delete(device);
    };
    for (const row of rows) {
      const entry = replay.metricOf.get(row.registerId);
      if (entry === undefined || !replay.born(entry.device.deviceId)) continue;
      let metrics = byDevice.get(entry.device);
      if (metrics === undefined) {
        metrics = [];
        byDevice.set(entry.device, metrics);
      }
      metrics.push({
        alias: entry.metric.alias,
        timestamp: row.ts,
        is_historical: true,
        value: entry.metric.valueOf(row.rawValue, undefined),
      });
      if (metrics.length === metricsPerMessage) flush(entry.device, metrics);
    }
    for (const [device, metrics] of byDevice) flush(device, metrics);
  };

  let held: ReadingRow[] = [];
  for await (const page of replay.readings.scan({
    registerIds: [...replay.metricOf.keys()],
    since: since + 1,
    until: until + 1,
    pageSize: replay.pageSize ?? 5000,
  })) {
    const rows = held.length === 0 ? page : held.concat(page);
    const lastTs = rows[rows.length - 1]?.ts;
    let cut = rows.length;
    while (cut > 0 && rows[cut - 1]?.ts === lastTs) cut -= 1;
    held = rows.slice(cut);
    if (cut === 0) continue;
    send(rows.slice(0, cut));
    await replay.confirm();
    replay.moved(rows[cut - 1]?.ts ?? since);
    if (!replay.goOn()) return sent;
  }
  send(held);
  await replay.confirm();
  replay.moved(until);
  return sent;
}
