/**
 * Prometheus metrics (prom-client): one registry per running fieldhub, filled by
 * the parts that have something to count and served at /metrics.
 */
import { Counter, Gauge, Registry } from "./prometheus.ts";

export type MetricsRegistry = Registry;

export function createMetricsRegistry(): MetricsRegistry {
  return new Registry();
}

type Labels = Record<string, string>;
type Figures = { labels: Labels; value: number }[];
/** A figure read from the store comes as a promise (the store is asynchronous). */
type ReadFigures = () => Figures | Promise<Figures>;

/**
 * A metric whose values are read, when /metrics is scraped, from figures kept
 * elsewhere (a poller's or the dispatcher's statistics): a counter for running
 * totals, a gauge for levels.
 */
function readAtScrape(
  kind: "counter" | "gauge",
  registry: MetricsRegistry,
  name: string,
  help: string,
  labelNames: readonly string[],
  read: ReadFigures,
): void {
  const options = { name, help, labelNames, registers: [registry] };
  if (kind === "counter") {
    new Counter({
      ...options,
      async collect() {
        const figures = await read();
        this.reset();
        for (const { labels, value } of figures) this.inc(labels, value);
      },
    });
  } else {
    new Gauge({
      ...options,
      async collect() {
        const figures = await read();
        this.reset();
        for (const { labels, value } of figures) this.set(labels, value);
      },
    });
  }
}

export const countedFrom = (...args: Parameters<typeof gaugedFrom>) => readAtScrape("counter", ...args);
export const gaugedFrom = (
  registry: MetricsRegistry,
  name: string,
  help: string,
  labelNames: readonly string[],
  read: ReadFigures,
) => readAtScrape("gauge", registry, name, help, labelNames, read);

/** One labelled histogram read at a scrape: bucket counts (not cumulative, the last one +Inf), their sum and count. */
export type HistogramFigures = { labels: Labels; buckets: ArrayLike<number>; sum: number }[];

/**
 * A histogram whose buckets are counted elsewhere (a poller counts into fixed arrays,
 * no allocation per observation) and read when /metrics is scraped. prom-client's
 * Histogram only takes observations one by one, so this is a metric of its own kind
 * in the registry's terms (name, help, type, get, reset).
 */
export function histogramFrom(
  registry: MetricsRegistry,
  name: string,
  help: string,
  bucketBounds: readonly number[],
  read: () => HistogramFigures,
): void {
  registry.registerMetric({
    name,
    help,
    type: "histogram",
    aggregator: "sum",
    reset() {},
    get() {
      const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
      for (const { labels, buckets, sum } of read()) {
        let cumulative = 0;
        for (let i = 0; i < buckets.length; i++) {
          cumulative += buckets[i]!;
          const le = i < bucketBounds.length ? bucketBounds[i]! : "+Inf";
          values.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative });
        }
        values.push({ metricName: `${name}_sum`, labels, value: sum });
        values.push({ metricName: `${name}_count`, labels, value: cumulative });
      }
      return { name, help, type: "histogram", values, aggregator: "sum" };
    },
  } as unknown as Parameters<MetricsRegistry["registerMetric"]>[0]);
}

/**
 * Runs `start`, which registers the metrics of a part, and returns what it started
 * with `release`, which takes exactly those metrics off the registry again: a part
 * a config reload replaces (app/parts.ts) registers its metrics anew.
 */
export async function withOwnMetrics<T>(
  registry: MetricsRegistry,
  start: () => T | Promise<T>,
): Promise<{ part: T; release: () => void }> {
  const before = new Set(registry.getMetricsAsArray().map((metric) => metric.name));
  const part = await start();
  const added = registry
    .getMetricsAsArray()
    .map((metric) => metric.name)
    .filter((name) => !before.has(name));
  return {
    part,
    release: () => {
      for (const name of added) registry.removeSingleMetric(name);
    },
  };
}
