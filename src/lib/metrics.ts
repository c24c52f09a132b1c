/**
 * Prometheus metrics (prom-client): one registry per running fieldhub, filled by
 * the parts that have something to count and served at /metrics.
 */
import { Counter, Gauge, Registry } from "prom-client";

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
