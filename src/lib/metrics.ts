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

/**
 * A counter whose value is read from a running total kept elsewhere (a poller's
 * or the dispatcher's statistics) each time /metrics is scraped.
 */
export function countedFrom(
  registry: MetricsRegistry,
  name: string,
  help: string,
  labelNames: readonly string[],
  read: () => { labels: Labels; value: number }[],
): void {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, value } of read()) this.inc(labels, value);
    },
  });
}

/** A gauge read when /metrics is scraped. */
export function gaugedFrom(
  registry: MetricsRegistry,
  name: string,
  help: string,
  labelNames: readonly string[],
  read: () => { labels: Labels; value: number }[],
): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, value } of read()) this.set(labels, value);
    },
  });
}
